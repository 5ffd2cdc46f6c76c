"""TRUMP over RBCC on the thesis's scenarios (Toomey ch. 9): the rates RBCC hands out match the
max-min optimum in every steady phase, and TRUMP loses nothing in scenario 2."""

from functools import lru_cache

import pytest

import pinchpoint as pp
from pinchpoint.reproduce import trump as rep


@lru_cache(maxsize=None)
def _run(sid: str, variant: str = "trump"):
    return pp.run(rep.scenario_path(sid, variant))


@pytest.mark.parametrize("sid", ["s2", "s2a"])
def test_rbcc_rates_are_within_one_percent_of_the_optimum_in_every_steady_phase(sid):
    res = _run(sid)
    errs = rep.rate_errors(res, rep.scenario_path(sid, "trump"), settle_s=rep.SETTLE_S)
    assert len({(e["from_s"], e["to_s"]) for e in errs}) >= 5, errs
    # The allocated rate of every phase (the median of the returned rates) is within 1 %; single
    # returns scaled by 0.75 while the bottleneck queue is above the threshold are allowed, as
    # long as 90 % of the samples are within 1 %.
    bad = [e for e in errs if e["median_rel_err"] > 0.01 or e["share_within_1pct"] < 0.9]
    assert not bad, bad


def test_trump_loses_no_packet_in_scenario_2_and_every_file_completes():
    f = _run("s2").flows
    assert list(f["lost_pkts"]) == [0, 0, 0, 0]
    assert list(f["ack_lost_pkts"]) == [0, 0, 0, 0]
    assert all(f["completed"])
    assert list(f["delivered_bytes"]) == [1_500_000, 1_500_000, 1_500_000, 150_000]


def test_desired_rates_are_never_exceeded():
    fs = _run("s2a").flow_series.to_pandas()
    assert fs[fs.flow == "s6"].rate_bps.max() <= 18_000.0
    assert fs[fs.flow == "s7"].rate_bps.max() <= 32_000.0


def test_a_route_change_is_followed_by_the_new_optimum_within_the_detection_delay():
    # Thesis s9.11: router 1 moves flow 5->10 to the 512 kbit/s path at 100 s; router 2 drops
    # flow 5 from its table 5 s later (flow time-out) and source 7 gets its new rate one round
    # trip after that (107.6 s in the thesis).
    path = rep.scenario_path("s8", "trump")
    res = _run("s8")
    fs = res.flow_series.to_pandas()
    opt = pp.maxmin(path, at=120.0, active=["s5", "s7", "s8"]).rates_bps
    s5 = fs[(fs.flow == "s5") & (fs.t_s >= 103.0) & (fs.t_s < 110.0)].rate_bps
    assert (abs(s5 - opt["s5"]) / opt["s5"]).max() < 0.01, (s5.describe(), opt)
    s7 = fs[(fs.flow == "s7") & (fs.t_s >= 100.0 + 5.0 + 2 * 2.4) & (fs.t_s < 115.0)].rate_bps
    assert (abs(s7 - opt["s7"]) / opt["s7"]).max() < 0.01, (s7.describe(), opt)


def test_runs_are_deterministic():
    a = pp.run(rep.scenario_path("s2", "trump")).flows
    b = _run("s2").flows
    assert list(a["goodput_bps"]) == list(b["goodput_bps"])
    assert list(a["delay_mean_s"]) == list(b["delay_mean_s"])


def _random_gaps(seeds):
    from pinchpoint.randomnet import compare_with_optimum

    return [r["rel_gap"] for s in seeds for r in compare_with_optimum(s)]


def test_rbcc_reaches_the_calculators_optimum_on_random_topologies():
    gaps = sorted(_random_gaps(range(1, 6)))
    assert gaps[len(gaps) // 2] < 0.02
    assert max(gaps) < 0.05, gaps


@pytest.mark.slow
def test_median_gap_to_the_optimum_on_100_random_scenarios_is_under_two_percent():
    gaps = sorted(_random_gaps(range(1, 101)))
    assert gaps[len(gaps) // 2] < 0.02


def _first_cut_after(sid: str, t0: float) -> float:
    fs = _run(sid).flow_series.to_pandas()
    s6 = fs[fs.flow == "s6"].set_index("t_s").rate_bps
    before = float(s6[s6.index <= t0].iloc[-1])
    return float(s6[(s6.index > t0) & (s6 < before)].index[0])


def test_rate_quench_brings_the_new_rate_to_the_source_without_waiting_for_the_acks():
    # Thesis s9.12: with 16-packet selective acks the cut reaches source 6 only after the
    # acks return (19 s in the thesis); with Rate Quenches it arrives at once (12 s).
    slow = _first_cut_after("s9k16", 10.0)
    quick = _first_cut_after("s9k16q", 10.0)
    assert quick < 12.5 < slow


def test_round_trips_have_no_deviation_on_an_idle_path_and_some_under_reno_queueing():
    # Thesis s9.3.3: every TRUMP round trip in scenario 1 is the same (0.016 s); Reno's oscillates
    # with router 2's queue. The deviation is the population std of every RTT sample (Welford).
    t = _run("s1").flows
    r = _run("s1", "reno").flows
    assert float(t["rtt_std_s"][0]) < 1e-3 * float(t["rtt_mean_s"][0])
    assert float(t["rtt_max_s"][0]) - float(t["rtt_min_s"][0]) < 1e-3
    rs, rmin, rmax, rmean = (float(r[c][0]) for c in ("rtt_std_s", "rtt_min_s", "rtt_max_s", "rtt_mean_s"))
    assert rs > 0.005
    assert rmin <= rmean - rs and rmean + rs <= rmax  # one std from the mean stays within the range


def test_one_way_delay_columns_are_the_moments_of_the_delivered_packets():
    import numpy as np

    res = _run("s5")
    pk = res.packets.to_pandas()
    f = res.flows
    for i, name in enumerate(f["flow"]):
        d = pk[pk.flow == name].delay_s.to_numpy()
        assert float(f["delay_mean_s"][i]) == pytest.approx(d.mean(), rel=1e-9)
        assert float(f["delay_std_s"][i]) == pytest.approx(d.std(), rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("sid", ["s3", "s5"])
def test_the_reconstructed_scenarios_3_and_5_run_every_flow_to_completion(sid):
    f = _run(sid).flows
    assert all(f["completed"])


def test_trump_loses_no_packet_in_scenario_5():
    assert sum(_run("s5").flows["lost_pkts"]) == 0


@pytest.mark.slow
def test_trump_loses_no_packet_in_scenario_4():
    assert sum(_run("s4").flows["lost_pkts"]) == 0


def test_without_rate_quenches_scenario_9_loses_packets_where_and_when_the_thesis_says():
    # Thesis s9.12 (k = 1, no quenches): router 1's queue passes the threshold at 13.6 s and "two
    # packets for source 6 are lost around time 16 seconds", before source 6's lower rate arrives
    # (16.8-17 s). Our drops: router 1's port toward 2 only, from about 15 s until the cut arrives.
    res = _run("s9")
    drops = rep.drop_trace(res)
    assert [d["port"] for d in drops] == ["r1->r2"]
    assert 14.0 <= drops[0]["first_s"] and drops[0]["last_s"] <= rep.first_cut_after(res, 10.0)
    lost = dict(zip(res.flows["flow"], res.flows["lost_pkts"]))
    assert lost["s6"] > 0
    # With Rate Quenches the cut reaches source 6 before the queue fills: nothing is lost.
    assert sum(_run("s9k16q").flows["lost_pkts"]) == 0


def test_the_quick_report_has_our_tables_beside_the_thesis_and_a_verdict_per_claim(tmp_path):
    report = rep.reproduce(tmp_path, quick=True).read_text()
    assert "| s5 thesis | 396.6 | 30597 | 1.28 | 0.07 | 2.32 | 0.07 | 0 | 6 |" in report
    claims = report.split("## Claims")[1]
    assert "| s2: the calculator reproduces the optimum table | table s9.4.1 / s9.5 | every entry to the printed digit | holds |" in claims
    assert "s2a: RBCC's rates within 1 % of the optimum in every steady phase" in claims
    assert "does not hold" not in claims
