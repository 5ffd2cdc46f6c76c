"""The engine's loss-event tables (RFC 5348 s5.2, `metrics/loss_events.rs`) seen from Python.
The exact drop patterns are in the Rust unit tests; these check that the tables add up."""

import pytest

import pinchpoint as pp


@pytest.fixture(scope="module")
def run():
    return bottleneck_run()


def bottleneck_run(duration="10s"):
    s = pp.Scenario("loss-events", duration=duration)
    s.metrics(series_interval="500ms")
    s.host("a")
    s.host("b")
    s.router("r1")
    s.router("r2")
    s.link("a", "r1", rate="1Gbps", delay="1ms")
    s.link("r1", "r2", rate="5Mbps", delay="20ms", queue={"kind": "droptail", "limit_pkts": 20})
    s.link("r2", "b", rate="1Gbps", delay="1ms")
    s.flow("tcp", "a", "b")
    s.flow("tcp2", "a", "b", start="2s")
    # 3 Mbit/s of unresponsive datagrams: no RTT, so each of its losses is an event.
    s.flow("cbr", "a", "b", transport="udp", workload={"kind": "cbr", "rate": 3e6, "packet_size": 1000})
    return pp.run(s)


def test_interval_tables_add_up_to_the_flow_totals(run):
    r = run
    flows = r.flows.set_index("flow")
    le = r.loss_events.to_pandas()
    per_flow = le.groupby("flow")[["sent_pkts", "lost_pkts", "loss_events"]].sum()
    for name in ("tcp", "tcp2", "cbr"):
        assert per_flow.loc[name, "lost_pkts"] == flows.loc[name, "lost_pkts"]
        assert per_flow.loc[name, "loss_events"] == flows.loc[name, "loss_events"]
        assert per_flow.loc[name, "sent_pkts"] == flows.loc[name, "sent_pkts"]
    tot = r.loss_events_total.to_pandas().set_index("t_s")
    by_t = le.groupby("t_s")[["sent_pkts", "lost_pkts", "loss_events"]].sum()
    assert (tot.loc[by_t.index, ["sent_pkts", "lost_pkts", "loss_events"]] == by_t).all().all()
    assert tot["loss_events"].sum() == flows["loss_events"].sum()
    # Every sample has a total row, quiet or not: t = 0 (what was sent at the first instant),
    # 0.5, ..., 10 s.
    assert list(tot.index) == [k * 0.5 for k in range(21)]


def test_tcp_losses_group_into_fewer_events_and_datagram_losses_do_not(run):
    r = run
    flows = r.flows.set_index("flow")
    tcp = flows.loc["tcp"]
    assert 0 < tcp["loss_events"] < tcp["lost_pkts"]
    cbr = flows.loc["cbr"]
    assert cbr["lost_pkts"] > 0 and cbr["loss_events"] == cbr["lost_pkts"]
    le = r.loss_events.to_pandas()
    rate = le["loss_event_rate"]
    assert ((rate >= 0) & (rate <= 1)).all()
