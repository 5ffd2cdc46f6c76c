"""The dumbbell benchmark: start jitter at large N, and how many flows carried traffic."""
from __future__ import annotations

import json

from pinchpoint import bench


def test_large_benchmarks_stagger_starts_and_small_ones_start_together():
    assert bench.default_jitter_ms(10) == 0.0
    assert bench.default_jitter_ms(100) == 0.0
    assert bench.default_jitter_ms(bench.JITTER_FROM_FLOWS) == bench.DEFAULT_JITTER_MS == 100.0
    plain = json.loads(bench.dumbbell_text(4, 1.0))
    assert all("start_jitter" not in f for f in plain["flows"])
    staggered = json.loads(bench.dumbbell_text(4, 1.0, 100.0))
    assert [f["start_jitter"] for f in staggered["flows"]] == ["100ms"] * 4


def test_a_staggered_run_reports_its_jitter_and_the_flows_that_carried_traffic():
    row = bench.run_pinchpoint(20, 0.5, jitter_ms=100.0)
    assert row["start_jitter_ms"] == 100.0
    assert 0 < row["flows_with_traffic"] <= 20
    # Same seed, same jitter: the same run.
    again = bench.run_pinchpoint(20, 0.5, jitter_ms=100.0)
    assert (again["packet_hops"], again["drops"]) == (row["packet_hops"], row["drops"])
    # Staggering changes the run (the start times are really drawn).
    assert bench.run_pinchpoint(20, 0.5, jitter_ms=0.0)["packet_hops"] != row["packet_hops"]


def test_the_table_gives_each_size_its_wall_per_hop_against_the_smallest_size_with_the_same_jitter():
    def row(n, hops_per_s, jitter, sim="pinchpoint"):
        return {"simulator": sim, "n_flows": n, "sim_s": 10.0, "wall_s": 1.0, "packet_hops_per_s": hops_per_s,
                "goodput_bps": 9e7, "jain": 1.0, "drops": 0, "start_jitter_ms": jitter, "flows_with_traffic": n}
    rows = [row(10, 40e6, 100.0), row(100, 20e6, 0.0), row(10000, 10e6, 100.0), row(100000, 5e6, 100.0),
            row(10, 0.2e6, None, sim="ns3")]
    # 25 ns a hop at N = 10; 100 and 200 ns at 10,000 and 100,000 with the same jitter; N = 100 ran
    # without jitter and no smaller size did, so it has no ratio; ns-3's row is not ours.
    assert bench.per_hop_vs_smallest(rows) == {10000: 4.0, 100000: 8.0}
    assert bench.ns_per_hop(rows[0]) == 25.0
    from rich.console import Console

    console = Console(width=250, record=True)
    console.print(bench.table(rows))
    text = console.export_text()
    assert "4.00x" in text and "8.00x" in text and "200.0" in text


def test_the_run_key_reads_resolved_scenarios_exactly_as_tomllib_does(root):
    import tomllib

    from pinchpoint import _native, api
    from pinchpoint.store import canonical_scenario

    files = sorted((root / "scenarios").rglob("*.toml"))
    assert files
    for f in files:
        resolved = api.validate(f)
        slow = json.dumps({k: v for k, v in tomllib.loads(resolved).items() if k != "description"},
                          sort_keys=True, separators=(",", ":"))
        assert canonical_scenario(resolved) == slow, f
    # What JSON cannot carry falls back to tomllib.
    assert _native.toml_to_json("x = inf\n") is None
    assert _native.toml_to_json("x = 1979-05-27\n") is None
    assert _native.toml_to_json("not toml = = \n") is None
    assert canonical_scenario('x = inf\ndescription = "d"\n') == '{"x":Infinity}'
