"""The command line: run, validate, bench, and clear errors that write nothing."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = """
[simulation]
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "10ms"
[[flows]]
name = "f"
src = "a"
dst = "b"
workload = { kind = "bulk" }
"""


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pinchpoint.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd)


def test_run_writes_results_atomically(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD)
    out = tmp_path / "out"
    p = cli("run", f, "--out", out)
    assert p.returncode == 0, p.stderr
    assert (out / "flows.parquet").exists() and (out / "scenario.toml").exists()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["packet_hops"] > 0


# One case per invalid-input class: (mutation, expected words in the message).
INVALID = {
    "unknown_field": (GOOD.replace('delay = "10ms"', 'delay = "10ms"\ncolour = "red"'), ["links[0]", "unknown field", "colour"]),
    "bad_unit": (GOOD.replace('"10Mbps"', '"10 parsecs"'), ["links[0].rate", "expected a rate"]),
    "unknown_node_in_route": (GOOD + '[[routes]]\nnode = "a"\ndst = "zz"\nnext_hop = "b"\n', ["routes[0].dst", "unknown node 'zz'"]),
    "negative_rate": (GOOD.replace('"10Mbps"', "-5"), ["links[0].rate", "non-negative"]),
    "zero_rate": (GOOD.replace('"10Mbps"', '"0bps"'), ["links[0].rate", "positive rate"]),
    "disconnected": (GOOD + '[[nodes]]\nname = "island"\n', ["disconnected", "island"]),
    "not_toml": ("[simulation\nduration=", ["not valid TOML"]),
    "unknown_cc": (GOOD.replace('workload = { kind = "bulk" }', 'workload = { kind = "bulk" }\ncc = "no-such-cc"'), ["flows[0].cc", "no-such-cc"]),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_input_fails_clearly_and_writes_nothing(tmp_path, case):
    text, words = INVALID[case]
    f = tmp_path / f"{case}.toml"
    f.write_text(text)
    out = tmp_path / "out"
    for args in (["validate", f], ["run", f, "--out", out]):
        p = cli(*args)
        assert p.returncode != 0
        err = p.stderr + p.stdout
        assert str(f.name) in err, err
        for w in words:
            assert w in err, (w, err)
    assert not out.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == [f.name]


def test_validate_accepts_every_bundled_scenario(root):
    files = sorted((root / "scenarios").rglob("*.toml"))
    assert files
    p = cli("validate", *files)
    assert p.returncode == 0, p.stderr


def test_bench_json_lines(tmp_path):
    p = cli("bench", "--flows", "3", "--sim-s", "2", "--json", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 1
    row = rows[0]
    for k in ("simulator", "n_flows", "sim_s", "wall_s", "packet_hops_per_s", "goodput_bps", "jain", "drops"):
        assert k in row
    assert row["simulator"] == "pinchpoint" and row["n_flows"] == 3
    assert 0 < row["goodput_bps"] <= 100e6
