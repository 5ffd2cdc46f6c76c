"""The Python API: builder, run, results tables, writing, determinism."""

import math

import pyarrow as pa
import pytest

import pinchpoint as pp


def small(seed=1, duration="5s", udp=True):
    s = pp.Scenario("small", duration=duration, seed=seed)
    s.host("a").host("u").router("r").host("b")
    s.link("a", "r", rate="100Mbps", delay="1ms")
    s.link("u", "r", rate="100Mbps", delay="1ms")
    s.link("r", "b", rate="10Mbps", delay="10ms", queue={"kind": "droptail", "limit_pkts": 30})
    s.flow("tcp", "a", "b", workload=pp.bulk(), cc="newreno")
    if udp:
        s.flow("udp", "u", "b", transport="udp", workload=pp.poisson("2Mbps", "1000B"))
    s.metrics(series_interval="100ms")
    return s


def test_summary_tables_have_the_documented_columns():
    r = pp.run(small())
    for c in ["flow", "goodput_bps", "fct_s", "sent_pkts", "retx_pkts", "lost_pkts", "delay_mean_s", "delay_p99_s"]:
        assert c in r.flows.columns
    for c in ["port", "queue_pkts_mean", "queue_bytes_p99", "drops"]:
        assert c in r.ports.columns
    for c in ["link", "utilisation"]:
        assert c in r.links.columns
    assert isinstance(r.flow_series, pa.Table) and r.flow_series.num_rows > 0
    assert isinstance(r.port_series, pa.Table) and r.port_series.num_rows > 0


def test_bottleneck_is_busy_and_goodput_is_bounded_by_the_link():
    r = pp.run(small())
    link = r.links.set_index("link").loc["r->b"]
    assert link["utilisation"] > 0.9
    assert r.flows["goodput_bps"].sum() <= 10e6


def test_same_seed_identical_other_seed_differs():
    a = pp.run(small(), seed=5)
    b = pp.run(small(), seed=5)
    c = pp.run(small(), seed=6)
    assert a.flows.equals(b.flows) and a.ports.equals(b.ports)
    assert a.flow("udp")["sent_pkts"] != c.flow("udp")["sent_pkts"]


def test_builder_and_file_give_the_same_results(tmp_path):
    s = small()
    path = s.save(tmp_path / "small.toml")
    a = pp.run(s)
    b = pp.run(path)
    assert a.flows.equals(b.flows)


def test_write_is_complete_and_readable(tmp_path):
    r = pp.run(small())
    out = r.write(tmp_path / "res")
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["flows.parquet", "ports.parquet", "links.parquet", "flow_series.parquet",
                            "port_series.parquet", "packets.parquet", "queue_trace.parquet", "capture.parquet",
                            "transfers.parquet", "groups.parquet", "loss_events.parquet",
                            "loss_events_total.parquet", "flow_rates.parquet", "scenario.toml",
                            "meta.json"])
    back = pp.Results.read(out)
    assert back.flows.equals(r.flows)
    # The resolved scenario runs again to the same results.
    again = pp.run(out / "scenario.toml")
    assert again.flows.equals(r.flows)
    # No temporary directories are left beside it.
    assert [p.name for p in tmp_path.iterdir()] == ["res"]


def test_jain_index():
    s = pp.Scenario("two", duration="30s")
    s.host("a").host("b").router("r").host("c").host("d").router("q")
    s.link("a", "r", rate="1Gbps", delay="1ms").link("b", "r", rate="1Gbps", delay="1ms")
    s.link("r", "q", rate="10Mbps", delay="20ms", queue={"kind": "droptail", "limit_pkts": 40})
    s.link("q", "c", rate="1Gbps", delay="1ms").link("q", "d", rate="1Gbps", delay="1ms")
    s.flow("f1", "a", "c").flow("f2", "b", "d", start="50ms")
    r = pp.run(s)
    assert r.jain() >= 0.9
    assert math.isclose(r.jain(flows=["f1"]), 1.0)


def test_jain_of_named_flows_refuses_a_name_that_is_not_a_flow():
    # A misspelt name was dropped silently: ['f1', 'F2'] gave f1's index alone (1.0), ['x'] NaN.
    r = pp.run(small(duration="1s"))
    with pytest.raises(KeyError, match=r"no flow named 'F2'; flows are \['tcp', 'udp'\]"):
        r.jain(flows=["tcp", "F2"])
    with pytest.raises(KeyError, match=r"no flow named 'x', 'y'"):
        r.jain(flows=["x", "y"])
    assert r.jain(flows="tcp") == 1.0  # one name, not its characters
    with pytest.raises(KeyError, match=r"no flow named 'x'; flows are \['tcp', 'udp'\]"):
        r.flow("x")


def test_scenario_error_names_the_origin_field_and_expectation():
    s = small()
    s.set("links.2.rate", "10 furlongs")
    with pytest.raises(pp.ScenarioError) as e:
        pp.run(s)
    msg = str(e.value)
    assert "links[2].rate" in msg and "expected a rate" in msg and "<Scenario small>" in msg


def test_a_non_finite_number_is_refused_naming_its_field():
    for value, text in ((float("nan"), "nan"), (float("inf"), "inf")):
        s = small()
        s.set("flows.udp.workload.rate", value)
        with pytest.raises(pp.ScenarioError) as e:
            pp.run(s)
        msg = str(e.value)
        assert "<Scenario small>: flows[1].workload.rate: expected a finite number" in msg and text in msg, msg
    s = small()
    s.set("links.2.queue", {"kind": "red", "w_q": float("nan")})
    with pytest.raises(pp.ScenarioError, match=r"links\[2\]\.queue\.w_q: expected a finite number"):
        pp.validate(s)


def test_from_dict_refuses_what_is_not_a_table_and_seeds_must_be_whole_i64(tmp_path):
    with pytest.raises(pp.ScenarioError, match="expected a table"):
        pp.Scenario.from_dict([1, 2])
    with pytest.raises(ValueError, match="seed"):
        pp.run(small(duration="0.1s"), seed=True)
    # Seeds end at 2^63 - 1: a TOML integer (the resolved scenario is written back as TOML) and
    # the results' int64 seed column (2^64 - 1 once ran and then failed to be written).
    with pytest.raises(ValueError, match=r"seed: expected an integer from 0 to 2\*\*63 - 1"):
        pp.run(small(duration="0.1s"), seed=2**63)
    d = small(duration="0.1s").to_dict()
    for seed, got in ((2**70, "got 11805916207174113"), (-1, "got -1"), (2**63, f"got {2**63}")):
        d["simulation"]["seed"] = seed
        with pytest.raises(pp.ScenarioError, match=r"simulation\.seed: expected an integer from 0 to 2\^63 - 1, " + got):
            pp.validate(pp.Scenario.from_dict(d))
    d["simulation"]["seed"] = 2**63 - 1
    r = pp.run(pp.Scenario.from_dict(d))
    back = pp.Results.read(r.write(tmp_path / "out"))
    assert back.meta["seed"] == 2**63 - 1 and back.key == r.key


def test_standard_figures_are_written(tmp_path):
    s = small()
    s.metrics(packet_trace=True, queue_trace=["r->b"])
    r = pp.run(s)
    paths = r.plot.save_all(tmp_path / "figs")
    assert sorted(p.name for p in paths) == ["delay_cdf.png", "goodput.png", "queue.png", "window.png"]
    assert all(p.stat().st_size > 5000 for p in paths)


def test_start_jitter_is_reproducible_and_breaks_lockstep():
    import json

    from pinchpoint import _native

    def scen(jitter):
        d = json.loads(_native.preset_dumbbell(300, 10.0))
        if jitter:
            for f in d["flows"]:
                f["start_jitter"] = jitter
        return pp.Scenario.from_dict(d)

    a = pp.run(scen("100ms"), seed=1)
    b = pp.run(scen("100ms"), seed=1)
    c = pp.run(scen("100ms"), seed=2)
    starts = a.flows["start_s"]
    assert starts.min() >= 0 and starts.max() < 0.1 and starts.nunique() == 300
    assert a.flows.equals(b.flows)
    assert not a.flows["start_s"].equals(c.flows["start_s"])
    # Without jitter, 300 identical flows start, lose and time out in lock-step and some starve;
    # staggered starts share the bottleneck far more evenly.
    lockstep = pp.run(scen(None))
    assert a.jain() > lockstep.jain() + 0.2


def test_run_refuses_progress_steps_below_one_and_a_dict_with_a_hint():
    for steps in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="steps: expected a whole number"):
            pp.run(small(duration="1s"), progress=lambda now, end: None, steps=steps)
    with pytest.raises(TypeError, match=r"expected a Scenario .* got dict \(a dict: Scenario.from_dict"):
        pp.run({"name": "x"})
    seen = []
    pp.run(small(duration="1s"), progress=lambda now, end: seen.append(now), steps=1)
    assert seen == [1.0]
