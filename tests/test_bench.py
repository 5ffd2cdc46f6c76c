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
