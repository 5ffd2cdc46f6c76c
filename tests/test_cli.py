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


@pytest.mark.parametrize("args, named", [
    (("--flows", "0"), "--flows"),
    (("--flows", "10,abc"), "--flows"),
    (("--flows", ","), "--flows"),
    (("--flows", "10", "--sim-s", "0"), "--sim-s"),
    (("--flows", "10", "--repeat", "0"), "--repeat"),
    (("--flows", "10", "--per-flow-mbps", "-1"), "--per-flow-mbps"),
    (("--flows", "10", "--start-jitter-ms", "-5"), "--start-jitter-ms"),
])
def test_bench_refuses_bad_options_naming_the_option_without_a_traceback(args, named):
    p = cli("bench", *args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    out = p.stdout + p.stderr
    assert named in out and "Traceback" not in out


def test_run_refuses_a_negative_seed_and_maxmin_a_negative_instant(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD)
    for args, named in ((("run", f, "--seed", "-1", "-q"), "--seed"), (("maxmin", f, "--at", "-3"), "--at")):
        p = cli(*args)
        out = p.stdout + p.stderr
        assert p.returncode == 2 and named in out and "Traceback" not in out, out
    from pinchpoint import api

    with pytest.raises(ValueError, match="seed"):
        api.load(f, seed=-1)


def test_sweep_takes_table_values_zip_and_a_plan_and_names_bad_parameters(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.5s"'))
    plan = tmp_path / "plan.toml"
    plan.write_text('seeds = [1]\n[sobol]\nn = 2\n"links.a->b.delay" = { min = "5ms", max = "15ms" }\n')
    db, table = tmp_path / "s.duckdb", tmp_path / "t.csv"
    p = cli("sweep", f, "--set", 'links.a->b.queue={"kind":"droptail","limit_pkts":5},{kind="droptail",limit_pkts=50}',
            "--zip", "links.a->b.rate=5Mbps,10Mbps", "--zip", "flows.f.cc=reno,newreno", "--plan", plan,
            "--store", db, "--out", table, "--workers", "1")
    assert p.returncode == 0, p.stderr
    import pandas as pd

    t = pd.read_csv(table)
    assert len(t) == 2 * 2 * 2
    assert set(t["links.a->b.queue.limit_pkts"]) == {5, 50} and set(t["links.a->b.rate_bps"]) == {5e6, 1e7}
    assert set(t["links.a->b.delay_s"]) == {0.005, 0.01}
    bad = cli("sweep", f, "--set", "flows.g.cc=reno", "--store", db)
    assert bad.returncode == 2 and "parameter 'flows.g.cc': no element named 'g'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_store_merge_without_a_spool_says_so_and_creates_nothing_and_refuses_a_directory(tmp_path):
    db = tmp_path / "s.duckdb"
    p = cli("store", "merge", db)
    assert p.returncode == 0 and "nothing to merge" in p.stdout, p.stdout + p.stderr
    assert not db.exists()
    p = cli("store", "merge", tmp_path)
    assert p.returncode == 2 and "directory" in p.stdout + p.stderr


def test_run_refuses_an_out_that_is_a_file_or_a_folder_of_other_things_and_leaves_it_as_it_was(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD)
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("important")
    a_file = tmp_path / "report.txt"
    a_file.write_text("keep me")
    for out in (folder, a_file):
        p = cli("run", f, "--out", out, "-q")
        assert p.returncode == 2 and "--out" in p.stdout + p.stderr and "Traceback" not in p.stdout + p.stderr
    assert (folder / "notes.txt").read_text() == "important" and sorted(x.name for x in folder.iterdir()) == ["notes.txt"]
    assert a_file.read_text() == "keep me"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["good.toml", "project", "report.txt"]
    # An empty folder and a previous run's results are replaced.
    empty = tmp_path / "empty"
    empty.mkdir()
    for out in (empty, empty):
        p = cli("run", f, "--out", out, "-q")
        assert p.returncode == 0, p.stdout + p.stderr
        assert (out / "meta.json").exists()


def test_results_write_and_api_run_refuse_to_replace_what_is_not_results(tmp_path):
    import pinchpoint as pp

    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("important")
    with pytest.raises(FileExistsError, match="not replaced"):
        pp.run(f, out=folder)
    r = pp.run(f)
    with pytest.raises(FileExistsError, match="not replaced"):
        r.write(folder)
    a_file = tmp_path / "x.parquet"
    a_file.write_text("keep me")
    with pytest.raises(FileExistsError, match="not a directory"):
        r.write(a_file)
    assert (folder / "notes.txt").read_text() == "important" and a_file.read_text() == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_sweep_table_and_schema_are_written_whole(tmp_path):
    # The writers go through atomic.write_file: no sibling is left and the file is complete.
    out = tmp_path / "schema.json"
    p = cli("schema", "--out", out)
    assert p.returncode == 0 and json.loads(out.read_text())["title"]
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    table = tmp_path / "t.parquet"
    p = cli("sweep", f, "--seeds", "1,2", "--out", table, "--store", tmp_path / "s.duckdb", "--workers", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    import pandas as pd

    assert len(pd.read_parquet(table)) == 2
    assert not [x for x in tmp_path.iterdir() if x.name.startswith(".")]


def test_a_store_path_that_is_not_a_duckdb_file_is_refused_before_the_run_and_left_as_it_was(tmp_path):
    # DuckDB opened a .csv given as the store without complaint and the run merged into it was
    # lost (the command said nothing); now every way in refuses it, naming the file.
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    csv = tmp_path / "data.csv"
    csv.write_text("a,b\n1,2\n")
    for args in (("run", f, "--store", csv, "-q"), ("sweep", f, "--seeds", "1", "--store", csv, "--workers", "1"),
                 ("store", "merge", csv)):
        p = cli(*args)
        out = p.stdout + p.stderr
        assert p.returncode == 2 and "not a DuckDB database" in out and "Traceback" not in out, out
    assert csv.read_text() == "a,b\n1,2\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["data.csv", "good.toml"]
    from pinchpoint import store

    with pytest.raises(store.NotAStore):
        store.Store(csv)
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    with pytest.raises(store.NotAStore):
        store.Store(empty)
    import pinchpoint as pp

    db = tmp_path / "new.duckdb"
    key = store.Store(db).put(pp.run(f))
    assert store.Store(db).put(pp.run(f)) == key  # a real store opens again


def test_directories_and_files_in_the_wrong_place_are_refused_with_the_path_named(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    folder = tmp_path / "folder"
    folder.mkdir()
    a_file = tmp_path / "a_file"
    a_file.write_text("keep")
    cases = [
        (("run", folder, "-q"), "got a directory"),
        (("validate", folder), "got a directory"),
        (("reproduce", "atn", "--quick", "--out", a_file), "not a directory"),
        (("sweep", f, "--seeds", "1", "--out", folder, "--store", tmp_path / "s.duckdb", "--workers", "1"),
         "is a directory"),
    ]
    for args, said in cases:
        p = cli(*args)
        out = p.stdout + p.stderr
        assert p.returncode in (1, 2) and said in out and "Traceback" not in out, (args, out)
    assert a_file.read_text() == "keep" and list(folder.iterdir()) == []
    assert not (tmp_path / "s.duckdb").exists()


@pytest.mark.parametrize("args, words", [
    (("--set", "simulation.seed=4,5"), ["--set simulation.seed", "--seeds"]),
    (("--zip", "simulation.seed=4,5"), ["--zip simulation.seed", "--seeds"]),
    (("--set", "flows.f.cc=reno", "--set", "flows.f.cc=newreno"), ["--set flows.f.cc", "appears twice"]),
    (("--zip", "flows.f.cc=[]"), ["--zip flows.f.cc", "no values"]),
    (("--set", "flows.f.cc="), ["--set flows.f.cc", "no values"]),
    (("--set", "flows.f.cc=reno,reno"), ["--set flows.f.cc", '"reno" appears twice']),
    (("--zip", "flows.f.cc=reno,reno"), ["zip[0]", "appears twice"]),
    (("--set", "flows.f.cc=reno", "--zip", "flows.f.cc=newreno"), ["'flows.f.cc' appears twice"]),
    (("--seeds", "1,1"), ["--seeds", "seed 1 appears twice"]),
    (("--seeds", "1", "--workers", "-2"), ["--workers", "at least 1"]),
    (("--seeds", "1", "--workers", "0"), ["--workers", "at least 1"]),
])
def test_sweep_refuses_values_it_would_ignore_repeat_or_run_nothing_with_before_running(tmp_path, args, words):
    # simulation.seed was overridden by the sweep's seed, a repeated --set kept its last values,
    # an empty zip "succeeded" with an empty table, duplicates ran twice, --workers 0 meant the default.
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    table = tmp_path / "t.csv"
    p = cli("sweep", f, *args, "--store", tmp_path / "s.duckdb", "--out", table)
    out = p.stdout + p.stderr
    assert p.returncode == 2 and "Traceback" not in out, out
    for w in words:
        assert w in out, (w, out)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["good.toml"]


def test_sweep_out_takes_csv_or_parquet_in_any_case_and_replaces_only_a_previous_sweep_table(tmp_path):
    import pandas as pd
    import pyarrow.parquet as pq

    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    scenario_text = f.read_text()
    data = tmp_path / "data.csv"
    data.write_text("a,b\n1,2\n")
    fake = tmp_path / "fake.parquet"
    fake.write_text("seed,run,goodput_bps,jain,wall_s\n")  # a CSV under a Parquet name
    store = tmp_path / "s.duckdb"
    for out, said in ((f, "expected a file name ending in .csv or .parquet"), (tmp_path / "t.txt", "'.txt'"),
                      (tmp_path / "table", "no suffix"), (data, "not a sweep table"), (fake, "not a sweep table"),
                      (data / "t.csv", "is a file, not a directory")):
        p = cli("sweep", f, "--seeds", "1", "--store", store, "--out", out, "--workers", "1")
        text = p.stdout + p.stderr
        assert p.returncode == 2 and "--out" in text and said in text and "Traceback" not in text, (out, text)
    assert f.read_text() == scenario_text and data.read_text() == "a,b\n1,2\n"
    assert not store.exists() and not (tmp_path / "t.txt").exists()
    # .Parquet is Parquet; a previous table (of the format its name says) is replaced.
    for out in (tmp_path / "t.Parquet", tmp_path / "t.CSV"):
        for seeds in ("1", "1,2"):
            p = cli("sweep", f, "--seeds", seeds, "--store", store, "--out", out, "--workers", "1")
            assert p.returncode == 0, p.stdout + p.stderr
    assert pq.read_table(tmp_path / "t.Parquet").num_rows == 2
    assert list(pd.read_csv(tmp_path / "t.CSV")["seed"]) == [1, 2]


def test_missing_files_directories_and_files_in_the_way_are_clear_errors_not_tracebacks(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    broken = tmp_path / "broken.toml"
    broken.write_text("[simulation\nduration = 1\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    a_file = tmp_path / "a_file.csv"
    a_file.write_text("keep")
    results = tmp_path / "res"
    assert cli("run", f, "-q", "--out", results).returncode == 0
    missing = tmp_path / "missing.toml"
    cases = [
        (("sweep", missing, "--seeds", "1", "--store", tmp_path / "s.duckdb"), "missing.toml: no such scenario file"),
        (("sweep", folder, "--seeds", "1", "--store", tmp_path / "s.duckdb"), "got a directory"),
        (("sweep", broken, "--seeds", "1", "--store", tmp_path / "s.duckdb"), "broken.toml: not valid TOML"),
        (("maxmin", missing), "missing.toml: no such scenario file"),
        (("maxmin", folder), "got a directory"),
        (("run", f, "-q", "--store", a_file / "s.duckdb"), "a_file.csv is a file, not a directory"),
        (("sweep", f, "--seeds", "1", "--store", a_file / "s.duckdb"), "a_file.csv is a file, not a directory"),
        (("plot", results, "--out", a_file), "--out"),
        (("plot", results, "--out", a_file / "figs"), "a_file.csv is a file, not a directory"),
        (("schema", "--out", folder), "is a directory"),
        (("schema", "--out", a_file), "not a JSON Schema"),
        (("schema", "--out", a_file / "x.json"), "a_file.csv is a file, not a directory"),
        (("bench", "--flows", "3", "--sim-s", "1", "--start-jitter-ms", "1e10"), "--start-jitter-ms"),
        # Refused before the run, not with a traceback after it.
        (("run", f, "-q", "--out", a_file / "sub"), "--out: " + str(a_file / "sub") + ": " + str(a_file) + " is a file"),
        (("run", f, "-q", "--pcap", "a->b", "--out", a_file / "sub"), "a_file.csv is a file, not a directory"),
    ]
    if sys.platform.startswith("linux"):
        # Only the write finds this one out (mkdir in /proc fails even for root).
        cases.append((("run", f, "-q", "--out", "/proc/pinchpoint-no-such-dir"), "--out: /proc/pinchpoint-no-such-dir: cannot write"))
    for args, said in cases:
        p = cli(*args)
        out = p.stdout + p.stderr
        assert p.returncode == 2 and said in out and "Traceback" not in out, (args, out)
    assert a_file.read_text() == "keep" and list(folder.iterdir()) == []
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a_file.csv", "broken.toml", "folder", "good.toml", "res"]
    # A missing parent of schema --out is created.
    p = cli("schema", "--out", tmp_path / "new" / "dir" / "s.json")
    assert p.returncode == 0 and json.loads((tmp_path / "new" / "dir" / "s.json").read_text())["$schema"]
    assert cli("schema", "--out", tmp_path / "new" / "dir" / "s.json").returncode == 0  # its own file: replaced


def test_sweep_says_when_the_scheduler_cannot_be_reached(tmp_path):
    import time

    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    t0 = time.monotonic()
    p = cli("sweep", f, "--seeds", "1", "--store", tmp_path / "s.duckdb", "--scheduler", "tcp://127.0.0.1:9",
            "--scheduler-timeout", "1")
    out = p.stdout + p.stderr
    assert p.returncode == 2 and "--scheduler" in out and "could not be reached" in out, out
    assert "Traceback" not in out
    assert time.monotonic() - t0 < 25, "the 1 s timeout was not used (Dask's default is 30 s)"


@pytest.mark.parametrize("args, says", [
    (["--scheduler-timeout", "5"], "--scheduler-timeout: has no effect without --scheduler"),
    (["--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "0"], "--scheduler-timeout: expected a positive"),
    (["--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "nan"], "--scheduler-timeout: expected a positive"),
    (["--scheduler", "tcp://127.0.0.1:9", "--workers", "2"], "--workers: has no effect with --scheduler"),
])
def test_sweep_refuses_scheduler_settings_without_effect(tmp_path, args, says):
    f = tmp_path / "good.toml"
    f.write_text(GOOD)
    p = cli("sweep", f, "--seeds", "1", "--store", tmp_path / "s.duckdb", *args)
    out = p.stdout + p.stderr
    assert p.returncode == 2 and says in out, out
    assert not (tmp_path / "s.duckdb").exists()


def test_bench_json_writes_null_for_an_undefined_jain_index():
    # 10 ms: no flow has delivered anything, Jain's index is NaN, and json.dumps wrote the bare word NaN.
    p = cli("bench", "--flows", "10", "--sim-s", "0.01", "--json", "--repeat", "1")
    assert p.returncode == 0, p.stderr
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")][0]
    assert "NaN" not in line
    row = json.loads(line, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
    assert row["jain"] is None and row["goodput_bps"] == 0


def test_documented_commands_quote_every_argument_with_an_arrow(root):
    # Unquoted, `--zip links.r1->r2.rate=5Mbps` is cut at `>`, a redirection to a file "r2.rate=5Mbps".
    import re
    import shlex

    docs = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted((root / "docs").glob("*/*.md"))]
    checked = 0
    for doc in docs:
        text = doc.read_text()
        blocks = re.findall(r"```(?:sh|bash|console|shell)\n(.*?)```", text, re.S)
        commands = [ln for b in blocks for ln in b.replace("\\\n", " ").splitlines()]
        commands += re.findall(r"`(pinchpoint [^`]*)`", text)
        for cmd in commands:
            if "->" not in cmd:
                continue
            lex = shlex.shlex(cmd.lstrip("$ "), posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            tokens = list(lex)
            assert not any(t.startswith(">") for t in tokens), f"{doc.name}: unquoted -> in: {cmd}"
            checked += 1
    assert checked >= 2


def test_the_run_summary_lists_the_busiest_ports_by_utilisation_and_the_transfers_as_pandas_would(root):
    # The summary reads the Arrow tables without pandas (issue 13: converting 400,000 ports to
    # print 8 took about a second); what it prints must be what the pandas version printed.
    import pinchpoint as pp
    from pinchpoint.cli import summary_tables, transfers_line

    r = pp.run(root / "scenarios" / "examples" / "poisson_transfers.toml")
    flows, ports = summary_tables(r)
    assert flows.row_count == min(21, len(r.flows) + (len(r.flows) > 20))
    shown = list(ports.columns[0].cells)
    links = r.links[["link", "utilisation"]].sort_values("utilisation", ascending=False, kind="stable")
    expected = [link for link in links["link"] if link in set(r.ports["port"])][:8]
    assert shown == expected
    assert list(ports.columns[1].cells) == [f"{u:.3f}" for u in links.set_index("link").loc[expected, "utilisation"]]
    t = r.transfers
    done = t[t["completed"]]
    assert len(done) > 10
    assert transfers_line(r) == (f"{len(t)} transfers, {len(done)} completed, response time median "
                                 f"{done['response_time_s'].median():.4g} s, p95 {done['response_time_s'].quantile(0.95):.4g} s "
                                 f"({r.meta['transfer_slots']} flow slots used)")


def test_plot_of_a_damaged_results_directory_names_the_file_and_leaves_no_figures_directory(tmp_path):
    import shutil

    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    good = tmp_path / "res"
    assert cli("run", f, "-q", "--out", good).returncode == 0
    damages = [
        ("flows.parquet", None, "flows.parquet: missing"),
        ("scenario.toml", None, "scenario.toml: cannot be read"),
        ("flow_series.parquet", None, "flow_series.parquet: missing"),  # not "no flow series recorded"
        ("meta.json", "{", "meta.json: not readable as JSON"),
        ("ports.parquet", "abc", "ports.parquet: not a readable Parquet table"),
    ]
    for name, text, said in damages:
        d = tmp_path / f"damaged-{name}"
        shutil.copytree(good, d)
        if text is None:
            (d / name).unlink()
        else:
            (d / name).write_text(text)
        figs = tmp_path / f"figs-{name}"
        p = cli("plot", d, "--out", figs)
        out = p.stdout + p.stderr
        assert p.returncode == 2 and said in out and "damaged" in out and "Traceback" not in out, (name, out)
        assert not figs.exists(), name


def test_maxmin_active_and_crossval_sim_s_refuse_what_would_be_ignored_or_crash(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD)
    for args, said in [(("maxmin", f, "--active", ""), "--active: expected comma-separated flow names"),
                       (("maxmin", f, "--active", "f,f"), "--active: flow 'f' is named twice"),
                       (("crossval", f, "--sim-s", "-1"), "--sim-s: expected a positive number"),
                       (("crossval", f, "--sim-s", "nan"), "--sim-s: expected a positive number")]:
        p = cli(*args)
        out = p.stdout + p.stderr
        assert p.returncode == 2 and said in out and "Traceback" not in out, (args, out)
    assert cli("maxmin", f, "--active", "f").returncode == 0


def test_an_empty_or_repeated_item_of_a_list_option_is_refused_not_dropped(tmp_path):
    f = tmp_path / "good.toml"
    f.write_text(GOOD.replace('duration = "2s"', 'duration = "0.2s"'))
    res = tmp_path / "res"
    assert cli("run", f, "-q", "--out", res).returncode == 0
    for args, said in [(("sweep", f, "--seeds", "1,,2", "--store", tmp_path / "s.duckdb"), "--seeds '1,,2': expected comma-separated integers"),
                       (("plot", res, "--format", "png,png"), "--format: \"png\" is given twice"),
                       (("plot", res, "--format", "png,"), "--format: expected one or more of")]:
        p = cli(*args)
        out = p.stdout + p.stderr
        assert p.returncode == 2 and said in out and "Traceback" not in out, (args, out)
    assert not (tmp_path / "s.duckdb").exists() and not (res / "figures").exists()


def test_validate_sums_up_a_random_part_repeated_for_many_flows(tmp_path):
    flows = "".join(f'[[flows]]\nname = "f{i}"\nsrc = "a"\ndst = "b"\nstart_jitter = "10ms"\nworkload = {{ kind = "bulk" }}\n'
                    for i in range(50))
    f = tmp_path / "many.toml"
    f.write_text(GOOD.split("[[flows]]")[0] + flows)
    p = cli("validate", f)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "the seed changes: flows.*.start_jitter (50 flows: f0, f1, f2, ...)" in p.stdout, p.stdout
    assert "f49" not in p.stdout
