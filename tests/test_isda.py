"""Seed 001 (ISDA): the drop policies in the paper's mixed TCP/UDP experiment (s4.1, Figure 4).

Runs are shortened to 60 s (the paper's 400 s reproduction is the slow test at the bottom). The
claims the full report marks "agrees" are asserted with the report's own tolerances.
"""

from __future__ import annotations

import numpy as np
import pytest

import pinchpoint as pp
from pinchpoint.reproduce import isda as rep
from pinchpoint.reproduce.isda.scenarios import DROP_ALL, FAIR_SHARE_BPS

SHORT_S = 60.0
#: Claims of the full (400 s) report marked "agrees"; each is asserted here on 60 s runs.
AGREES = ("vp_udp_keeps", "vp_tcp_half", "isda_cuts_high", "isda_s10_a", "isda_fairer", "sda_isda_equal",
          "fig6_like5", "fig9_level", "fig10_level")


@pytest.fixture(scope="module")
def rows():
    need = [("mixed", p) for p in ("rda", "rda_vp", "sda", "isda")] + [(m, p) for m in ("tcp", "udp") for p in ("rda_vp", "isda")]
    out = {key: rep.summarise(rep.run(*key, SHORT_S)) for key in need}
    early = {"total": out[("tcp", "isda")]["drops_policy"],
             "by_10s": rep.run("tcp", "isda", 10.0)["port"]["drops_policy"]}
    return out, early


@pytest.mark.parametrize("key", AGREES)
def test_claim_the_report_marks_agrees_holds_on_a_short_run(rows, key):
    summary, early = rows
    claim = {c.key: c for c in rep.claims(summary, early)}[key]
    assert claim.agrees, (claim.claim, claim.ours, claim.tolerance)


def test_red_pd_cuts_the_udp_flows_to_about_the_fair_share(rows):
    summary, _ = rows
    isda = summary[("mixed", "isda")]
    for u in ("S10", "S11", "S12"):
        assert isda[f"{u}_bps"] == pytest.approx(FAIR_SHARE_BPS, rel=0.15), u


def test_drop_all_keeps_more_of_the_fastest_flow_than_red_pd(rows):
    summary, _ = rows
    drop_all = rep.summarise(rep.run("mixed", "isda", SHORT_S, overrides=DROP_ALL))
    assert drop_all["S12_bps"] > 1.2 * summary[("mixed", "isda")]["S12_bps"]


def test_queue_average_follows_the_red_rule_on_a_trace():
    # Arrivals finding 0, 1, 2 waiting at weight 0.5 (QueAvg 0, 0.5, 1.25); the queue empties and
    # the next arrival comes 2 packet times (1.6 ms at 10 Mbit/s, 1000 B) later: 1.25 * 0.5^2.
    trace = np.array([[0.0, 1], [0.001, 2], [0.002, 3], [0.003, 0], [0.0046, 1]], dtype=float)
    qa = rep.queue_average(trace, weight=0.5)
    assert qa[:, 1] == pytest.approx([0.0, 0.5, 1.25, 0.3125])


def test_settling_time_is_when_the_queue_stays_in_its_band():
    t = np.arange(0.0, 60.0, 0.5)
    q = np.where(t < 10.0, 30.0, 10.0)
    assert rep.settling_time_s(np.column_stack([t, q]), 60.0) == 10.0
    q = np.where(t < 10.0, 30.0, 10.0 + 0.2 * np.sin(t))  # small ripple stays in the band
    assert rep.settling_time_s(np.column_stack([t, q]), 60.0) == 10.0


def test_every_policy_runs_in_every_mix_briefly(root):
    for mix in rep.MIXES:
        for pol in rep.POLICIES:
            s = pp.Scenario.from_file(root / "scenarios/seeds/isda" / f"{mix}_{pol}.toml")
            s.set("simulation.duration", "5s")
            r = pp.run(s)
            p = r.port("node1->node2")
            assert p["arrivals_pkts"] == p["tx_pkts"] + p["drops"] + p["queue_pkts_now"]
            assert (r.flows["goodput_bps"] > 0).all(), (mix, pol)


def test_p0_readings_of_eq2():
    r = rep.p0_readings()
    vals = list(r.values())
    assert vals[0] == pytest.approx(1.225 / (0.048 * 1250**0.5))
    assert vals[1] == pytest.approx(1.225 / (0.048 * 1e7**0.5))
    assert vals[2] == 1.0
    assert vals[3] == pytest.approx((1.22 / (0.048 * 1250 / 12)) ** 2)


def test_quick_reproduction_writes_a_report(tmp_path):
    seen = []
    report = rep.reproduce(tmp_path, quick=True, progress=lambda label, frac: seen.append(frac))
    assert report == tmp_path / "report.md" and report.exists()
    text = report.read_text()
    assert "| claim (paper) | paper | ours | tolerance | verdict |" in text and "drop_all" in text
    assert "max-min share would spare" not in text
    for png in ("queue_node1.png", "queue_node1_mean.png", "throughput_mixed.png", "avg_throughput_mixed.png"):
        assert (tmp_path / png).stat().st_size > 1000
    assert seen and seen[-1] == 1.0


@pytest.mark.slow
def test_claims_marked_agrees_hold_at_full_length():
    need = [("mixed", p) for p in ("rda", "rda_vp", "sda", "isda")] + [(m, p) for m in ("tcp", "udp") for p in ("rda_vp", "isda")]
    summary = {key: rep.summarise(rep.run(*key, rep.FULL_S)) for key in need}
    early = {"total": summary[("tcp", "isda")]["drops_policy"], "by_10s": rep.run("tcp", "isda", 10.0)["port"]["drops_policy"]}
    verdicts = {c.key: c.agrees for c in rep.claims(summary, early)}
    assert all(verdicts[k] for k in AGREES), verdicts


@pytest.mark.slow
def test_full_reproduction(tmp_path):
    report = rep.reproduce(tmp_path, quick=False)
    assert "Runs of 400 s" in report.read_text()
