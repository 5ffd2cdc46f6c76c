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
    # Hops per flow: 40 M hops in 1 s over 10 flows, 5 M over 100,000.
    assert bench.hops_per_flow(rows[0]) == 4e6 and bench.hops_per_flow(rows[3]) == 50.0
    assert "4,000,000" in text and " 50 " in text


def test_a_bottleneck_per_flow_grows_the_dumbbell_with_its_flows():
    fixed = json.loads(bench.dumbbell_text(40, 1.0))
    scaled = json.loads(bench.dumbbell_text(40, 1.0, per_flow_mbps=2.0))
    ab = [link for link in scaled["links"] if (link["a"], link["b"]) == ("A", "B")]
    assert len(ab) == 1
    assert ab[0]["rate"] == "80000000bps"
    assert [link for link in fixed["links"] if (link["a"], link["b"]) == ("A", "B")][0]["rate"] == "100000000bps"
    assert ab[0]["queue"]["limit_pkts"] == 400
    # Everything else is the bench dumbbell's.
    assert scaled["flows"] == fixed["flows"] and scaled["links"][1:] == fixed["links"][1:]
    # The run is limited by the grown bottleneck (40 x 0.5 = 20 Mbit/s), and the row says which
    # rule it ran.
    row = bench.run_pinchpoint(40, 2.0, jitter_ms=0.0, per_flow_mbps=0.5)
    assert row["per_flow_mbps"] == 0.5 and row["bottleneck_bps"] == 20e6
    assert 0.8 * 20e6 * 1448 / 1502 < row["goodput_bps"] <= 20e6 * 1448 / 1502
    assert bench.run_pinchpoint(40, 2.0, jitter_ms=0.0)["bottleneck_bps"] == 100e6
    assert bench.bottleneck_bps(bench.dumbbell_text(7, 1.0, per_flow_mbps=3.0)) == 21e6
    import pytest

    from pinchpoint import _native
    with pytest.raises(ValueError, match="per_flow_bps"):
        _native.preset_dumbbell(4, 1.0, -1.0)


def test_flatness_compares_only_runs_of_the_same_bottleneck_rule():
    def row(n, hops_per_s, per_flow):
        return {"simulator": "pinchpoint", "n_flows": n, "sim_s": 1.0, "wall_s": 1.0, "packet_hops_per_s": hops_per_s,
                "goodput_bps": 9e7, "jain": 1.0, "drops": 0, "start_jitter_ms": 100.0, "flows_with_traffic": n,
                "per_flow_mbps": per_flow, "bottleneck_bps": 1e8}
    # A grown-bottleneck run at 1,000 flows has no smaller run of its rule to compare with...
    assert bench.per_hop_vs_smallest([row(10, 40e6, None), row(1000, 10e6, 10.0)]) == {}
    # ...and with one it compares with that one (25 against 100 ns a hop).
    assert bench.per_hop_vs_smallest([row(10, 40e6, 10.0), row(1000, 10e6, 10.0)]) == {1000: 4.0}


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
