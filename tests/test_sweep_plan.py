"""Sweeps that compare anything (issue 16): values, addressing, typed columns, zip, plans, seeds."""

import json
import warnings

import pytest

import pinchpoint as pp
from pinchpoint.plan import Plan, PlanError, sobol
from pinchpoint.scenario import ParameterError
from pinchpoint.store import Store
from pinchpoint.sweep import SeedWarning, parse_values, seed_sources, sweep, typed_columns


def tiny(duration="1s"):
    s = pp.Scenario("tiny", duration=duration)
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms")
    s.flow("f1", "a", "b", cc="newreno")
    return s


def test_cli_values_are_json_toml_or_plain_text():
    assert parse_values('{"kind":"droptail","limit_pkts":20}') == [{"kind": "droptail", "limit_pkts": 20}]
    assert parse_values('{kind="droptail",limit_pkts=20},{kind="rda"}') == [
        {"kind": "droptail", "limit_pkts": 20}, {"kind": "rda"}]
    assert parse_values('[{"kind":"droptail"}, {"kind":"sda"}]') == [{"kind": "droptail"}, {"kind": "sda"}]
    assert parse_values("reno,newreno") == ["reno", "newreno"]
    assert parse_values("5Mbps,15Mbps") == ["5Mbps", "15Mbps"]
    assert parse_values("1,2.5,true") == [1, 2.5, True]
    assert parse_values('"a,b",c') == ["a,b", "c"]


def test_parameters_address_list_elements_by_name_link_and_index():
    s = tiny()
    s.set("flows.f1.cc", "reno").set("links.r->b.queue", {"kind": "droptail", "limit_pkts": 7})
    s.set("links.0.delay", "2ms").set("nodes.r.kind", "router")
    assert s.data["flows"][0]["cc"] == "reno"
    assert s.data["links"][1]["queue"]["limit_pkts"] == 7
    assert s.data["links"][0]["delay"] == "2ms"


def test_names_with_dots_are_reachable_by_a_path():
    # Hosts named by address, flows named f.1: the longest run of components naming an element wins.
    from pinchpoint.scenario import set_path

    d = {"nodes": [{"name": "10.0.0.1"}, {"name": "r1"}], "links": [{"a": "10.0.0.1", "b": "r1", "delay": "1ms"}],
         "flows": [{"name": "f.1", "cc": "reno"}, {"name": "f", "cc": "reno"}]}
    set_path(d, "flows.f.1.cc", "cubic")
    set_path(d, "flows.f.cc", "vegas")
    set_path(d, "links.10.0.0.1->r1.delay", "2ms")
    set_path(d, "nodes.10.0.0.1.kind", "host")
    assert [f["cc"] for f in d["flows"]] == ["cubic", "vegas"]
    assert d["links"][0]["delay"] == "2ms" and d["nodes"][0]["kind"] == "host"
    with pytest.raises(ParameterError, match=r"no link r1->10.0.0.1 in links \(the link is written 10.0.0.1->r1"):
        set_path(d, "links.r1->10.0.0.1.delay", "3ms")


@pytest.mark.parametrize("path, words", [
    ("flows.f9.cc", ["flows.f9.cc", "no element named 'f9'", "f1"]),
    ("links.7.rate", ["links.7.rate", "out of range", "2 element"]),
    ("links.b->r.rate", ["links.b->r.rate", "written r->b"]),
    ("flows.f1.cc.kind", ["flows.f1.cc.kind", "is a value"]),
])
def test_unknown_names_and_indices_name_the_parameter(path, words):
    s = tiny()
    s.set("flows.f1.cc", "newreno")
    with pytest.raises(ParameterError) as e:
        s.set(path, 1)
    for w in words:
        assert w in str(e.value)


def test_typed_columns_parse_quantities_and_table_fields():
    assert typed_columns("links.r->b.rate", "15Mbps") == {"links.r->b.rate_bps": 15e6}
    assert typed_columns("x.delay", "250us") == {"x.delay_s": pytest.approx(250e-6)}
    assert typed_columns("x.size", "64KiB") == {"x.size_bytes": 65536.0}
    assert typed_columns("q", {"kind": "droptail", "limit_bytes": "3KB"}) == {
        "q.kind": "droptail", "q.limit_bytes": "3KB", "q.limit_bytes_bytes": 3000.0}
    assert typed_columns("cc", "reno") == {}


def test_bare_numbers_get_typed_columns_in_the_fields_base_unit():
    # A bare number is bit/s, seconds or bytes by the field it sets, as the scenario reads it:
    # without its typed column, 2000000 sorted after 5Mbps and fell out of plots by rate_bps.
    assert typed_columns("links.r1->r2.rate", 2000000) == {"links.r1->r2.rate_bps": 2e6}
    assert typed_columns("links.r1->r2.delay", 0.01) == {"links.r1->r2.delay_s": 0.01}
    assert typed_columns("links.r1->r2.delay", "0.01") == {"links.r1->r2.delay_s": 0.01}
    assert typed_columns("links.10.0.0.1->r1.delay", 0.5) == {"links.10.0.0.1->r1.delay_s": 0.5}
    assert typed_columns("links.r->b.queue", {"kind": "codel", "target": 0.005})["links.r->b.queue.target_s"] == 0.005
    # Not quantities: plain integers (a segment size), names, switches.
    assert typed_columns("flows.f1.tcp.mss", 1000) == {} and typed_columns("flows.f1.cc", "reno") == {}
    assert typed_columns("flows.f1.tcp.ecn", True) == {}


def test_sobol_matches_the_published_sequence_and_stratifies_every_dimension():
    pts = sobol(8, 2)
    assert pts == [[0, 0], [0.5, 0.5], [0.75, 0.25], [0.25, 0.75], [0.375, 0.375], [0.875, 0.875],
                   [0.625, 0.125], [0.125, 0.625]]
    # Each one-dimensional projection of the first 2^k points has one point per 1/2^k interval.
    pts = sobol(64, 13)
    for d in range(13):
        assert sorted(int(p[d] * 64) for p in pts) == list(range(64))


def test_plan_file_crosses_grid_zip_and_draws(tmp_path):
    f = tmp_path / "plan.toml"
    f.write_text('''
seeds = [3]
[grid]
"flows.f1.cc" = ["reno", "newreno"]
[[zip]]
"links.r->b.rate" = ["5Mbps", "10Mbps"]
"links.r->b.delay" = ["10ms", "20ms"]
[sobol]
n = 4
"links.a->r.delay" = { min = "1ms", max = "3ms" }
"flows.f1.tcp.mss" = { min = 500, max = 1400 }
''')
    p = Plan.from_file(f)
    pts = p.points()
    assert len(pts) == 2 * 2 * 4 and p.seeds == [3]
    assert {(x["links.r->b.rate"], x["links.r->b.delay"]) for x in pts} == {("5Mbps", "10ms"), ("10Mbps", "20ms")}
    assert {x["links.a->r.delay"] for x in pts} == {"0.001s", "0.002s", "0.0025s", "0.0015s"}
    assert all(isinstance(x["flows.f1.tcp.mss"], int) and 500 <= x["flows.f1.tcp.mss"] <= 1400 for x in pts)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[zip]]\n"a" = [1, 2]\n"b" = [1]\n')
    with pytest.raises(PlanError, match="one length"):
        Plan.from_file(bad)
    # The Sobol points are not scrambled: a seed could not change them, so it is refused.
    bad.write_text('[sobol]\nn = 3\nseed = 4\n"links.a->r.delay" = { min = "1ms", max = "3ms" }\n')
    with pytest.raises(PlanError, match=r"\[sobol\] seed: has no effect"):
        Plan.from_file(bad)


def test_seed_sources_find_the_random_components():
    s = tiny()
    assert seed_sources(s.to_dict()) == []
    s.set("flows.f1.start_jitter", "10ms")
    s.set("links.r->b.queue", {"kind": "rda_fp"})
    assert seed_sources(s.to_dict()) == ["flows.f1.start_jitter", "links.r->b.queue=rda_fp"]


def test_sweep_over_queue_tables_with_zip_typed_columns_and_a_stored_plan(tmp_path):
    db = tmp_path / "s.duckdb"
    queues = [{"kind": "droptail", "limit_pkts": 5}, {"kind": "droptail", "limit_pkts": 40}]
    s = tiny()
    s.metrics(series_interval="100ms")
    with pytest.warns(SeedWarning, match="no random component"):
        t = sweep(s, {"links.r->b.queue": queues}, zip={"links.r->b.rate": ["15Mbps", "5Mbps"],
                                                              "flows.f1.cc": ["reno", "newreno"]},
                  seeds=[1, 2], store=db, workers=2, keep=["series"])
    assert len(t) == 8
    assert list(t["links.r->b.rate_bps"].unique()) == [5e6, 15e6]  # numeric order, not text order
    assert t["links.r->b.queue.limit_pkts"].isin([5, 40]).all()
    assert json.loads(t["links.r->b.queue"].iloc[0])["kind"] == "droptail"
    assert (t["seeds_differ"] == False).all() and (t["seed_sources"] == "").all()  # noqa: E712
    fast = t[t["links.r->b.rate_bps"] == 15e6]["goodput_bps"].mean()
    slow = t[t["links.r->b.rate_bps"] == 5e6]["goodput_bps"].mean()
    assert fast > 1.5 * slow
    st = Store(db)
    plans = st.query("SELECT id, plan FROM plans")
    assert len(plans) == 1 and "links.r->b.queue" in plans["plan"][0]
    tags = st.query("SELECT tags FROM runs")["tags"]
    assert all(json.loads(x)["plan"] == plans["id"][0] for x in tags)
    # --keep series: every run's tables as Parquet beside the store.
    for key in t["run"]:
        r = pp.Results.read(st.series_dir / key)
        assert r.flow_series.num_rows > 0 and r.meta["run"] == key


def test_seeds_of_a_jittered_scenario_are_replications(tmp_path):
    s = tiny()
    s.set("flows.f1.start_jitter", "200ms")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedWarning)
        t = sweep(s, {}, seeds=[1, 2, 3], store=tmp_path / "j.duckdb", workers=1)
    assert len(t) == 3 and t["seeds_differ"].all()
    assert t["seed_sources"].iloc[0] == "flows.f1.start_jitter"


def test_a_sweep_with_an_unknown_parameter_says_which(tmp_path):
    with pytest.raises(ParameterError, match="flows.f2.cc"):
        sweep(tiny(), {"flows.f2.cc": ["reno"]}, store=tmp_path / "x.duckdb")


def test_the_builder_takes_every_flow_field_and_names_unknown_ones():
    s = tiny()
    s.flow("f2", "a", "b", start_jitter="50ms", transport="tcp")
    assert s.data["flows"][1]["start_jitter"] == "50ms"
    with pytest.raises(pp.ScenarioError, match=r"flows\[2\] \(g\): unknown field 'start_jiter'.*start_jitter"):
        s.flow("g", "a", "b", start_jiter="1s")
    with pytest.raises(pp.ScenarioError, match=r"links\[2\] \(a->b\): unknown field 'queu'"):
        s.link("a", "b", rate="1Mbps", delay="1ms", queu={})
    with pytest.raises(pp.ScenarioError, match=r"tcp: unknown field 'msss'"):
        s.flow("h", "a", "b", tcp={"msss": 500})


def test_builder_errors_name_the_field_path_not_a_position_in_internal_json():
    s = tiny()
    s.set("links.r->b.rate", "10 parsecs")
    with pytest.raises(pp.ScenarioError) as e:
        pp.run(s)
    assert "links[1].rate" in str(e.value) and "line 1" not in str(e.value) and "column" not in str(e.value)


def test_an_invalid_sweep_point_is_named_before_anything_runs(tmp_path):
    with pytest.raises(pp.ScenarioError, match=r"sweep point links.r->b.rate=10 parsecs: .*links\[1\].rate"):
        sweep(tiny(), {"links.r->b.rate": ["5Mbps", "10 parsecs"]}, store=tmp_path / "x.duckdb")
    assert not (tmp_path / "x.duckdb").exists() and not (tmp_path / "x.duckdb.spool").exists()


def arrivals_only(duration="1s"):
    s = pp.Scenario("arrivals-only", duration=duration)
    s.host("a").host("b").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("r", "b", rate="5Mbps", delay="10ms")
    s.arrivals("web", "a", "b", pp.poisson_arrivals(20.0, pp.size("fixed", pkts=10)))
    return s


def test_a_sweep_of_arrivals_alone_summarises_the_transfers_and_sees_that_the_seeds_differ(tmp_path):
    # The summary read the flows table only: a scenario without [[flows]] gave goodput 0, jain NaN
    # and seeds_differ False (with a warning of identical seeds) though the transfers differed.
    db = tmp_path / "a.duckdb"
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeedWarning)
        t = sweep(arrivals_only(), {}, seeds=[1, 2], store=db, workers=1)
    assert t["seeds_differ"].all()
    assert (t["transfers"] > 5).all() and (t["transfers_completed"] > 0).all() and (t["transfer_bytes"] > 0).all()
    assert (t["response_time_p50_s"] > 0).all()
    assert t["goodput_bps"].isna().all() and t["jain"].isna().all()  # no [[flows]]: not "carried nothing"
    r = pp.run(arrivals_only(), seed=2)
    row = t[t["seed"] == 2].iloc[0]
    assert row["transfers"] == len(r.transfers) and row["transfer_bytes"] == r.transfers["delivered_bytes"].sum()
    # Read back from the store (nothing runs again), the rows and the verdict are the same.
    again = sweep(arrivals_only(), {}, seeds=[1, 2], store=db, workers=1)
    assert again["wall_s"].isna().all()
    cols = ["run", "transfers", "transfers_completed", "transfer_bytes", "response_time_p50_s", "seeds_differ"]
    assert again[cols].equals(t[cols])


def test_seeds_of_a_deterministic_scenario_do_not_differ_when_one_was_stored_before(tmp_path):
    # The fingerprint of a run read back from the store equals that of the run itself.
    db = tmp_path / "d.duckdb"
    sweep(tiny("0.5s"), {}, seeds=[1], store=db, workers=1)
    with pytest.warns(SeedWarning):
        t = sweep(tiny("0.5s"), {}, seeds=[1, 2], store=db, workers=1)
    assert t["wall_s"].isna().tolist() == [True, False] and not t["seeds_differ"].any()


@pytest.mark.parametrize("grid, zip_, seeds, words", [
    ({"simulation.seed": [4, 5]}, None, None, ["simulation.seed", "--seeds"]),
    (None, {"simulation.seed": [4, 5]}, None, ["simulation.seed", "--seeds"]),
    (None, {"flows.f1.cc": []}, None, ["zip[0]", "flows.f1.cc", "no values"]),
    ({"flows.f1.cc": ["cubic", "cubic"]}, None, None, ["flows.f1.cc", '"cubic" appears twice']),
    (None, {"flows.f1.cc": ["reno", "reno"], "flows.f1.tcp.mss": [500, 500]}, None, ["zip[0]", "appears twice"]),
    ({"flows.f1.cc": ["reno"]}, {"flows.f1.cc": ["cubic"]}, None, ["'flows.f1.cc' appears twice"]),
    (None, None, [1, 1], ["seed 1 appears twice"]),
])
def test_sweeps_that_would_run_nothing_or_the_same_runs_twice_or_ignore_a_value_are_refused(tmp_path, grid, zip_,
                                                                                            seeds, words):
    with pytest.raises(PlanError) as e:
        sweep(tiny(), grid or {}, zip=zip_, seeds=seeds, store=tmp_path / "x.duckdb")
    for w in words:
        assert w in str(e.value), str(e.value)
    assert not (tmp_path / "x.duckdb").exists()


def test_a_zip_may_repeat_one_parameters_value_when_the_pairs_differ():
    p = Plan(zip=[{"flows.f1.cc": ["reno", "reno"], "flows.f1.tcp.mss": [500, 1000]}])
    p.check()
    assert len(p.points()) == 2


PLAN_ERRORS = {
    "seeds_text": ('seeds = "abc"\n', "seeds: expected a list of integers"),
    "seeds_number": ("seeds = 5\n", "seeds: expected a list of integers"),
    "seeds_fraction": ("seeds = [1.5]\n", "seeds[0]: expected an integer, got 1.5"),
    "seeds_twice": ("seeds = [3, 3]\n", "seed 3 appears twice"),
    "seed_param": ('[grid]\n"simulation.seed" = [1, 2]\n', "'simulation.seed'"),
    "grid_number": ("grid = 5\n", "grid: expected a table"),
    "zip_number": ("zip = 3\n", "zip: expected [[zip]] tables"),
    "zip_empty": ('[[zip]]\n"flows.f1.cc" = []\n"flows.f1.tcp.mss" = []\n', "zip[0]: parameter 'flows.f1.cc' has no values"),
    "grid_twice": ('[grid]\n"flows.f1.cc" = ["reno", "reno"]\n', "value \"reno\" appears twice"),
    "n_text": ('[random]\nn = "x"\n"flows.f1.tcp.mss" = { min = 500, max = 600 }\n', "[random] n: expected an integer"),
    "seed_text": ('[random]\nn = 2\nseed = "x"\n"flows.f1.tcp.mss" = { min = 500, max = 600 }\n',
                  "[random] seed: expected an integer"),
    "log_text": ('[random]\nn = 2\n"flows.f1.start_jitter" = { min = "1ms", max = "100ms", log = "false" }\n',
                 "[random] flows.f1.start_jitter: log: expected true or false, got 'false'"),
    "spec_number": ('[sobol]\nn = 2\n"flows.f1.start_jitter" = 7\n', "[sobol] flows.f1.start_jitter: expected { min"),
    "spec_units": ('[sobol]\nn = 2\n"flows.f1.start_jitter" = { min = "1ms", max = 5 }\n', "[sobol] flows.f1.start_jitter"),
    "spec_list": ('[sobol]\nn = 2\n"flows.f1.tcp.mss" = { min = [1], max = 5 }\n', "min and max must be numbers"),
    "choices_text": ('[sobol]\nn = 2\n"flows.f1.cc" = { choices = "reno" }\n', "choices: expected a list"),
    "sobol_table": ('sobol = 4\n', "sobol: expected a table"),
    "not_toml": ("[grid\n", "not valid TOML"),
}


@pytest.mark.parametrize("case", sorted(PLAN_ERRORS))
def test_plan_files_of_the_wrong_type_are_refused_naming_the_file_and_the_key(tmp_path, case):
    # They crashed with tracebacks (int("abc"), dict(3)), truncated 1.5 to 1, or read
    # log = "false" as true; draw errors did not name the file.
    text, words = PLAN_ERRORS[case]
    f = tmp_path / f"{case}.toml"
    f.write_text(text)
    with pytest.raises(PlanError) as e:
        Plan.from_file(f)
    assert str(e.value).startswith(f"{f}: ") and words in str(e.value), str(e.value)


def test_a_plan_path_that_is_a_directory_is_refused_naming_it(tmp_path):
    with pytest.raises(PlanError, match="got a directory"):
        Plan.from_file(tmp_path)


def test_log_true_is_still_log_uniform():
    p = Plan(draw="sobol", draw_n=2, draw_params={"x": {"min": 1.0, "max": 100.0, "log": True}})
    p.check()
    assert [pt["x"] for pt in p.points()] == [1.0, pytest.approx(10.0)]


def test_draws_that_repeat_a_point_are_dropped_with_a_warning(tmp_path):
    # Six draws of two choices ran each run key three times: duplicate rows counted as replications.
    from pinchpoint.plan import DrawWarning

    p = Plan.from_dict({"seeds": [1, 2], "grid": {"flows.f1.tcp.mss": [500, 1000]},
                        "random": {"n": 6, "seed": 3, "flows.f1.cc": {"choices": ["reno", "cubic"]}}})
    with pytest.warns(DrawWarning, match=r"\[random\] 6 draws gave 2 distinct points of flows.f1.cc; the 4 "):
        pts = p.points()
    # The first of each, in the order drawn, crossed with the grid.
    assert [(x["flows.f1.tcp.mss"], x["flows.f1.cc"]) for x in pts] == [
        (500, "reno"), (500, "cubic"), (1000, "reno"), (1000, "cubic")]
    s = Plan(draw="sobol", draw_n=8, draw_params={"flows.f1.tcp.mss": {"min": 500, "max": 501}})
    with pytest.warns(DrawWarning, match="8 draws gave 2 distinct points"):
        assert [x["flows.f1.tcp.mss"] for x in s.draws()] == [500, 501]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # distinct draws: no warning
        assert len(Plan(draw="sobol", draw_n=4, draw_params={"x": {"min": 0.0, "max": 1.0}}).draws()) == 4
    with pytest.warns(DrawWarning):
        table = sweep(tiny("0.2s").set("flows.f1.start_jitter", "10ms"), seeds=[1, 2], store=tmp_path / "s.duckdb", workers=1,
                      plan=Plan(draw="random", draw_n=5, draw_seed=3,
                                draw_params={"flows.f1.cc": {"choices": ["reno", "cubic"]}}))
    assert len(table) == 4 and not table.duplicated(["flows.f1.cc", "seed"]).any()
    assert table["run"].is_unique


def test_unset_removes_a_field_addressed_as_set_does():
    s = tiny()
    s.set("links.r->b.queue", {"kind": "rda_vp", "max_p": 0.1, "target_rtt": "48ms"})
    s.unset("links.r->b.queue.target_rtt").unset("links.r->b.queue.bw_pps")  # the second is absent
    assert s.data["links"][1]["queue"] == {"kind": "rda_vp", "max_p": 0.1}
    with pytest.raises(ParameterError, match="names a list element"):
        s.unset("flows.f1")
    assert [f["name"] for f in s.data["flows"]] == ["f1"]
