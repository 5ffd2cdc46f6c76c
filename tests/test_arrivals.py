"""Arrival processes from Python: the builder, validation errors naming the field, the
transfers and groups tables, and the DuckDB store."""

import pytest

import pinchpoint as pp
from pinchpoint.store import Store


def dumbbell(duration="20s"):
    s = pp.Scenario("arrivals", duration=duration, seed=2)
    for h in ("s1", "s2", "d1", "d2"):
        s.host(h)
    s.router("r1").router("r2")
    for a, b in (("s1", "r1"), ("s2", "r1"), ("r2", "d1"), ("r2", "d2")):
        s.link(a, b, rate="100Mbps", delay="1ms")
    s.link("r1", "r2", rate="10Mbps", delay="10ms", queue={"kind": "droptail", "limit_pkts": 50})
    return s


def test_poisson_transfers_built_in_python_deliver_every_byte_and_fill_the_tables():
    s = dumbbell()
    s.flow("long", "s1", "d1", group="long-lived")
    s.arrivals("short", ["s1", "s2"], ["d1", "d2"], pp.poisson_arrivals(40.0, pp.size("fixed", pkts=10), count=300),
               group="short", cc="cubic", tcp={"mss": 1000})
    r = pp.run(s)
    t = r.transfers
    assert len(t) == 300
    assert (t["size_bytes"] == 10_000).all() and (t["delivered_bytes"] == t["size_bytes"]).all()
    assert t["completed"].all()
    assert ((t["response_time_s"] - (t["completed_s"] - t["start_s"])).abs() < 1e-9).all()
    assert set(t["src"]) == {"s1", "s2"} and set(t["dst"]) == {"d1", "d2"}
    assert list(r.flows["flow"]) == ["long"] and list(r.flows["group"]) == ["long-lived"]
    g = r.groups.set_index("group")
    assert g.loc["short", "transfers_completed"] == 300 and g.loc["long-lived", "flows"] == 1
    assert g.loc["short", "response_time_p50_s"] >= 0.022  # at least one round trip
    # One definition of a quantile everywhere (linear interpolation, as pandas and pyarrow):
    # the groups table once took the nearest order statistic.
    rt = t["response_time_s"]
    assert g.loc["short", "response_time_p50_s"] == pytest.approx(rt.median(), rel=1e-12)
    assert g.loc["short", "response_time_p95_s"] == pytest.approx(rt.quantile(0.95), rel=1e-12)
    assert r.meta["transfers_arrived"] == 300 and r.meta["transfer_slots"] < 40


@pytest.mark.parametrize("process, field", [
    (pp.poisson_arrivals(0.0, pp.size("fixed", pkts=10)), "arrivals[0].process.rate_per_s"),
    (pp.poisson_arrivals(5.0, pp.size("pareto", mean_pkts=10, shape=0.9)), "arrivals[0].process.size.shape"),
    (pp.flash_crowd(0, 100.0, "1s", pp.size("fixed", pkts=10)), "arrivals[0].process.count"),
    (pp.webtraf(3, 2, object_size=pp.size("exponential")), "arrivals[0].process.object_size.mean_bytes"),
])
def test_a_bad_arrival_setting_is_refused_with_its_field_path(process, field):
    s = dumbbell()
    s.arrivals("a", "s1", "d1", process)
    with pytest.raises(pp.ScenarioError, match=field.replace("[", r"\[").replace("]", r"\]")):
        pp.validate(s)


def test_settings_that_would_have_no_effect_are_refused():
    s = dumbbell()
    with pytest.raises(pp.ScenarioError, match="shaper"):
        s.arrivals("a", "s1", "d1", pp.flash_crowd(5, 10.0, "1s", pp.size("fixed", bytes=1)), shaper={"rate": "1Mbps"})
    s.arrivals("a", "s1", "d1", pp.flash_crowd(5, 10.0, "1s", pp.size("fixed", bytes=1)), transport="udp")
    with pytest.raises(pp.ScenarioError, match=r"arrivals\[0\].transport"):
        pp.validate(s)


def test_the_store_keeps_transfers_and_groups_and_a_seed_repeats_them(tmp_path):
    s = dumbbell("30s")
    s.arrivals("web", ["s1", "s2"], ["d1", "d2"], pp.webtraf(10, 3), tcp={"mss": 1000})
    a, b = pp.run(s), pp.run(s)
    assert a.transfers.equals(b.transfers)
    with Store(tmp_path / "s.duckdb") as st:
        st.put(a)
        n = st.query("SELECT count(*) AS n, sum(delivered_bytes) AS b FROM transfers")
        assert n["n"][0] == 30 and n["b"][0] == a.transfers["size_bytes"].sum()
        assert st.query("SELECT transfers FROM groups WHERE \"group\" = 'web'")["transfers"][0] == 30
