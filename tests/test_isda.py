"""Seed 001 (ISDA): the drop policies in the paper's mixed TCP/UDP experiment (s4.1, Figure 4).

Runs are shortened to 100 s (the paper's 400 s reproduction is the slow test at the bottom).
"""

from __future__ import annotations

import pytest

import pinchpoint as pp
from pinchpoint.reproduce import isda as rep

FAIR_SHARE_BPS = 10e6 / 12


def _mixed(policy: str, duration: str = "100s") -> pp.Results:
    s = pp.Scenario.from_file(rep.scenarios_dir() / "isda" / f"mixed_{policy}.toml")
    s.set("simulation.duration", duration)
    return pp.run(s)


@pytest.fixture(scope="module")
def vp_and_isda() -> tuple[pp.Results, pp.Results]:
    return _mixed("rda_vp"), _mixed("isda")


def test_isda_is_fairer_than_rda_vp_over_all_flows(vp_and_isda):
    vp, isda = vp_and_isda
    assert isda.jain() > vp.jain() + 0.1


def test_isda_starves_no_flow(vp_and_isda):
    _, isda = vp_and_isda
    g = isda.flows.set_index("flow")["goodput_bps"]
    assert len(g) == 12
    assert (g >= FAIR_SHARE_BPS / 4).all(), g.to_dict()


def test_under_rda_vp_udp_keeps_most_of_its_rate_and_tcp_gets_less_than_fair(vp_and_isda):
    vp, _ = vp_and_isda
    g = vp.flows.set_index("flow")["goodput_bps"]
    assert g["S12"] > 2.4e6 and g["S11"] > 1.6e6
    assert g[[f"S{i}" for i in range(1, 10)]].mean() < FAIR_SHARE_BPS


def test_isda_cuts_the_high_rate_udp_flows_by_policy(vp_and_isda):
    _, isda = vp_and_isda
    port = isda.port("node1->node2")
    assert port["drops_policy"] > 0
    g = isda.flows.set_index("flow")["goodput_bps"]
    assert g["S12"] < 2.0e6 and g["S11"] < 1.6e6
    # Conservation at the bottleneck.
    assert port["arrivals_pkts"] == port["tx_pkts"] + port["drops"] + port["queue_pkts_now"]


def test_every_policy_runs_in_every_mix_briefly(root):
    for mix in rep.MIXES:
        for pol in rep.POLICIES:
            s = pp.Scenario.from_file(root / "scenarios/seeds/isda" / f"{mix}_{pol}.toml")
            s.set("simulation.duration", "5s")
            r = pp.run(s)
            p = r.port("node1->node2")
            assert p["arrivals_pkts"] == p["tx_pkts"] + p["drops"] + p["queue_pkts_now"]
            assert (r.flows["goodput_bps"] > 0).all(), (mix, pol)


def test_quick_reproduction_writes_a_report(tmp_path):
    seen = []
    report = rep.reproduce(tmp_path, quick=True, progress=lambda label, frac: seen.append(frac))
    assert report == tmp_path / "report.md" and report.exists()
    text = report.read_text()
    assert "| claim (paper) | paper | ours | verdict |" in text
    for png in ("queue_node1.png", "queue_node1_mean.png", "throughput_mixed.png", "avg_throughput_mixed.png"):
        assert (tmp_path / png).stat().st_size > 1000
    assert seen and seen[-1] == 1.0


@pytest.mark.slow
def test_full_reproduction(tmp_path):
    report = rep.reproduce(tmp_path, quick=False)
    assert "Runs of 400 s" in report.read_text()
