"""DuckDB store and parameter sweeps."""

import pytest

import pinchpoint as pp
from pinchpoint.store import Store
from pinchpoint.sweep import grid_points, sweep


def tiny():
    s = pp.Scenario("tiny", duration="2s")
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms")
    s.flow("f", "a", "b", cc="newreno", start_jitter="5ms")  # so that the seeds are replications
    return s


def test_store_keeps_each_run_once(tmp_path):
    r = pp.run(tiny())
    with Store(tmp_path / "s.duckdb") as st:
        k1 = st.put(r, tags={"x": 1})
        k2 = st.put(r)
        assert k1 == k2
        assert len(st.runs()) == 1
        f = st.query("SELECT run, goodput_bps FROM flows")
        assert list(f["run"]) == [k1]
        assert f["goodput_bps"][0] == r.flows["goodput_bps"][0]


def test_grid_points_cover_every_combination():
    pts = grid_points({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(pts) == 6 and {"a": 2, "b": "z"} in pts


def test_sweep_runs_the_grid_and_reuses_stored_runs(tmp_path):
    db = tmp_path / "sweep.duckdb"
    grid = {"flows.0.cc": ["reno", "newreno"], "links.1.rate": ["5Mbps", "10Mbps"]}
    t1 = sweep(tiny(), grid, seeds=[1, 2], store=db, workers=2)
    assert len(t1) == 8
    # A faster bottleneck carries more.
    fast = t1[t1["links.1.rate"] == "10Mbps"]["goodput_bps"].mean()
    slow = t1[t1["links.1.rate"] == "5Mbps"]["goodput_bps"].mean()
    assert fast > 1.5 * slow
    t2 = sweep(tiny(), grid, seeds=[1, 2], store=db, workers=2)
    assert list(t2["run"]) == list(t1["run"])
    assert t2["wall_s"].isna().all()  # nothing ran again
    with Store(db) as st:
        assert len(st.runs()) == 8


def test_sweep_on_a_dask_cluster(tmp_path):
    distributed = __import__("pytest").importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        t = sweep(tiny(), {"links.1.rate": ["5Mbps", "10Mbps"]}, seeds=[1], store=tmp_path / "d.duckdb",
                  scheduler=cluster.scheduler_address, scheduler_timeout_s=10)
    assert len(t) == 2 and t["goodput_bps"].gt(0).all()
    by_rate = t.set_index("links.1.rate")["goodput_bps"]
    assert by_rate["10Mbps"] > 1.5 * by_rate["5Mbps"]


@pytest.mark.parametrize("kw, says", [
    ({"scheduler_timeout_s": 5}, "scheduler_timeout_s: has no effect without a scheduler"),
    ({"scheduler": "tcp://127.0.0.1:9", "scheduler_timeout_s": 0}, "expected a positive number"),
    ({"scheduler": "tcp://127.0.0.1:9", "scheduler_timeout_s": float("inf")}, "expected a positive number"),
    ({"scheduler": "tcp://127.0.0.1:9", "workers": 2}, "workers: has no effect with a scheduler"),
])
def test_sweep_refuses_scheduler_settings_without_effect(tmp_path, kw, says):
    with pytest.raises(ValueError, match=says):
        sweep(tiny(), {"links.1.rate": ["5Mbps"]}, store=tmp_path / "d.duckdb", **kw)
    assert not (tmp_path / "d.duckdb").exists()


def test_a_run_that_fails_names_its_point_stops_the_sweep_at_once_and_keeps_the_finished_runs(tmp_path):
    # Three points on two workers: a short run, one that would run for minutes, and one that
    # stops at a resource bound within milliseconds (on the first worker, after the short run).
    # The error crosses the process boundary as the library's own class (once it could not be
    # unpickled and arrived as a PicklingError) and names the point; the sweep ends without
    # waiting for the long run, and the short run that finished is in the store.
    import time

    db = tmp_path / "s.duckdb"
    t0 = time.monotonic()
    with pytest.raises(pp.ResourceLimitError) as e:
        sweep(tiny(), zip={"simulation.max_live_packets": [10**6, 10**6, 20], "simulation.duration": ["2s", "20000s", "2s"]},
              seeds=[1], store=db, workers=2)
    elapsed = time.monotonic() - t0
    assert "sweep point simulation.max_live_packets=20, simulation.duration=2s, seed 1:" in str(e.value)
    assert "max_live_packets" in str(e.value).split("seed 1:")[1]
    assert elapsed < 30, f"the sweep waited {elapsed:.0f} s for the run in progress"
    short = tiny()
    short.data["simulation"]["max_live_packets"] = 10**6
    with Store(db) as st:
        assert list(st.runs()["key"]) == [pp.run(short, seed=1).key]


def test_plan_runs_lists_every_run_of_a_plan_also_those_stored_before(tmp_path):
    # The second sweep reuses two stored runs and runs one: its plan's runs are all three, while
    # each run's tags still name the plan that first ran it.
    db = tmp_path / "s.duckdb"
    t1 = sweep(tiny(), {"flows.f.cc": ["reno", "cubic"]}, seeds=[1], store=db, workers=1)
    t2 = sweep(tiny(), {"flows.f.cc": ["reno", "cubic", "newreno"]}, seeds=[1], store=db, workers=1)
    assert t2["wall_s"].isna().sum() == 2
    with Store(db) as st:
        plans = st.query("SELECT plan, count(*) AS n FROM plan_runs GROUP BY plan ORDER BY n")
        assert list(plans["n"]) == [2, 3]
        second = plans["plan"].iloc[1]
        runs = st.query(f"SELECT run FROM plan_runs WHERE plan = '{second}'")
        assert sorted(runs["run"]) == sorted(t2["run"]) and set(t1["run"]) < set(runs["run"])
