"""Seed 004 (slowly-responsive congestion control): TFRC from Python and the reproduction."""

import math

import numpy as np
import pytest

import pinchpoint as pp
from pinchpoint.reproduce import slowcc


def test_tfrc_flow_runs_from_the_builder_and_refuses_cc():
    s = pp.Scenario("tfrc", duration="5s")
    s.host("a")
    s.host("b")
    s.link("a", "b", rate="10Mbps", delay="10ms")
    s.flow("f", "a", "b", transport="tfrc", tfrc={"loss_intervals": 16})
    r = pp.run(s)
    assert r.flows.set_index("flow").loc["f", "delivered_bytes"] > 1_000_000
    s.data["flows"][0]["cc"] = "newreno"
    with pytest.raises(pp.ScenarioError, match=r"flows\[0\]\.cc"):
        pp.run(s)


def test_equation_in_python_matches_the_rfc_value():
    # s = 1000 B, R = 0.1 s, p = 0.01: 112 332 B/s (the Rust unit test's number).
    assert slowcc.equation_bps(0.01, 0.1) / 8 == pytest.approx(112_332.3, abs=0.5)


def test_aimd_rule_gives_the_seed_pairs():
    assert slowcc.aimd_a(0.5) == pytest.approx(1.0)
    assert slowcc.aimd_a(1 / 8) == pytest.approx(0.3125)
    assert slowcc.aimd_a(1 / 256) == pytest.approx(0.0104, abs=1e-4)


def test_the_flash_crowd_transfers_all_arrive_and_their_bytes_are_all_counted():
    r = slowcc.run_flash(slowcc.TCP_STD, n_short=200, duration_s=30.0)
    assert r["short_done"] == 200
    # The spread-out transfer rate carries exactly the bytes the 200 transfers delivered.
    assert float(r["short_bps"].sum()) / 8.0 == pytest.approx(200 * 10 * slowcc.PAYLOAD_BYTES, rel=1e-9)
    # Nothing arrives before the crowd starts at 20 s.
    assert float(r["short_bps"][r["short_bps"].index <= 20.0].sum()) == 0.0


def test_variants_missing_from_the_build_are_reported_as_skipped():
    for name, v in slowcc.VARIANTS.items():
        if v.transport == "tfrc" or v.cc is None:
            assert slowcc.available(v), name
        else:
            assert slowcc.available(v) == (slowcc._kind_properties(v.cc["kind"]) is not None)


def test_tfrc_rate_is_smoother_than_tcp_on_the_shared_bottleneck():
    # 4 TCP + 4 TFRC(8), 15 Mbit/s, 100 s (under a second of wall time).
    r = slowcc.run_compat(slowcc.VARIANTS["TFRC(8)"], 15e6, 100.0)
    assert r["alt_cov100ms"] < r["tcp_cov100ms"], r
    # Both groups see losses, and TFRC's throughput is near its equation at the loss it sees.
    assert r["alt_loss"] > 0 and r["tcp_loss"] > 0
    assert 0.5 < r["alt_norm"] < 2.0, r


def test_tfrc_within_25_percent_of_tcp_on_a_red_bottleneck():
    # "The same loss" needs random drops: RED. Without the `red` kind in this build the Rust test
    # tests/tfrc.rs::tfrc_shares_a_red_bottleneck_with_tcp_within_25_percent_and_is_smoother
    # checks the property on the RED-like rda_vp queue.
    if not slowcc.red_available():
        pytest.skip("the `red` queue kind is not in this build")
    r = slowcc.run_compat(slowcc.VARIANTS["TFRC(8)"], 15e6, 100.0)
    assert 0.75 <= r["ratio"] <= 1.25, r
    assert r["alt_cov100ms"] < r["tcp_cov100ms"], r


@pytest.mark.slow
def test_tfrc_within_25_percent_of_tcp_from_7_5_mbit_s_and_closer_to_tcp_as_the_link_grows():
    # Mean TFRC/TCP ratio over four seeds per link rate (one seed is within the seed-to-seed
    # spread of the 25% bound at 3 Mbit/s). At 3 Mbit/s the claim falls short: over seeds 1-8 the
    # ratio is 0.70-0.78, mean 0.740 (model revision 2; revision 1 gave mean 0.735 over the same
    # seeds, seed 1 alone 0.772), with windows of 2-4 segments where timeouts dominate TCP and
    # TFRC alike (docs/seeds/004.md). So the test asserts the claim where it holds and the trend.
    if not slowcc.red_available():
        pytest.skip("the `red` queue kind is not in this build")
    means = []
    for link in (3e6, 7.5e6, 15e6, 30e6):
        rs = [slowcc.run_compat(slowcc.VARIANTS["TFRC(8)"], link, 100.0, seed=s) for s in (1, 2, 3, 4)]
        means.append(sum(r["ratio"] for r in rs) / len(rs))
        for r in rs:
            assert r["alt_cov100ms"] < r["tcp_cov100ms"], r
        if link >= 7.5e6:
            assert 0.75 <= means[-1] <= 1.25, (link, means)
    assert means == sorted(means), means


def test_quick_cbr_run_shows_loss_only_while_the_cbr_is_on():
    res = slowcc.run_cbr(slowcc.VARIANTS["TFRC(8)"], scale=0.2)
    loss = res["loss"]
    off = loss[(loss.index > 20) & (loss.index <= 26)].mean()
    on = loss[loss.index > 32].mean()
    assert on > off
    assert not math.isnan(res["halving_s"])


def test_quick_reproduction_writes_a_report_with_verdicts(tmp_path):
    seen = []
    report = slowcc.reproduce(tmp_path, quick=True, progress=lambda label, frac: seen.append(frac))
    text = report.read_text()
    assert "| claim | ours | verdict |" in text
    assert text.count("agrees") + text.count("differs") >= 5
    for v in slowcc.VARIANTS.values():
        if not slowcc.available(v):
            assert v.label in text.split("Skipped variants")[1].split("\n")[0]
    assert (tmp_path / "fig17_19_square_wave.png").exists()
    assert seen[-1] == 1.0


@pytest.mark.slow
def test_full_reproduction_writes_the_report(tmp_path):
    report = slowcc.reproduce(tmp_path, quick=False)
    text = report.read_text()
    assert "Claims" in text and (tmp_path / "fig06_loss_rate.png").exists()


def test_halving_time_is_per_flow_from_the_cbr_return_to_half_the_earlier_mean():
    # Two flows sampled every 0.5 s; rate = cwnd / srtt. Flow a: 8000 B / 0.1 s = 640 kbit/s
    # before t = 10 s, 400 kbit/s at 10.5, 320 kbit/s (half) at 11.0: 1.0 s. Flow b never halves.
    import pandas as pd

    t = [8.0, 8.5, 9.0, 9.5, 10.0, 10.5, 11.0, 11.5]
    cwnd_a = [8000] * 5 + [5000, 4000, 1000]
    cwnd_b = [8000] * 8
    fs = pd.DataFrame({"t_s": t * 2, "flow": ["long_a"] * 8 + ["long_b"] * 8,
                       "cwnd_bytes": cwnd_a + cwnd_b, "srtt_s": [0.1] * 16})
    h = slowcc.halving_times(fs, "long", t_on=10.0, before_s=2.0).set_index("flow")
    assert h.loc["long_a", "before_bps"] == pytest.approx(640_000)
    assert h.loc["long_a", "halving_s"] == pytest.approx(1.0)
    assert math.isnan(h.loc["long_b", "halving_s"])


@pytest.mark.slow
def test_slowly_decreasing_variants_without_self_clocking_halve_later_than_tcp():
    # Issue 12 must-hold (report check): TCP(1/256) and TFRC(8) take longer than TCP(1/2) to
    # halve after the CBR returns, per flow, averaged. (SQRT(1/256) and TFRC with self-clocking
    # do not: see the report's notes.)
    tcp = slowcc.run_cbr(slowcc.VARIANTS["TCP(1/2)"])["halving_s"]
    for name in ("TCP(1/256)", "TFRC(8)"):
        assert slowcc.run_cbr(slowcc.VARIANTS[name])["halving_s"] > tcp, name
