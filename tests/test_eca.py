"""Seed 003 (ECA, MSR-TR-2001-100) on the parking lot: the must-holds of issue 11 at a few grid
points with shortened runs (the full 7x7 grid of 100 s runs is `pinchpoint reproduce eca`)."""

from __future__ import annotations

import pytest

from pinchpoint.reproduce.eca import parking_lot as pl
from pinchpoint.scenario import Scenario


@pytest.mark.parametrize("rate_mbps,delay_ms", [(10.0, 10.0), (2.154, 46.416)])
def test_eca_shares_follow_the_weights_and_the_links_run_near_the_target(rate_mbps, delay_ms):
    _, m = pl.run_point("eca", rate_mbps, delay_ms, duration_s=40.0)
    # Every set (horizontal, and vertical at each hop) shares in proportion to weights 1..5.
    assert pl.weight_error(m["h_shares"]) < 0.15, m["h_shares"]
    for n, v in enumerate(m["v_by_hop"]):
        assert pl.weight_error(v) < 0.15, (n, v)
    # Horizontal and vertical sets get similar totals (s4.B.1: "similar total proportions").
    assert abs(m["h_total"] - m["v_total"]) / m["v_total"] < 0.15, (m["h_total"], m["v_total"])
    # Router links run near the 0.9 target (wire bytes over the link rate).
    assert 0.8 <= m["utilisation"] <= 0.95, m["utilisation"]


def test_the_80_percent_target_gives_lower_utilisation_than_90():
    _, m80 = pl.run_point("eca80", 10.0, 10.0, duration_s=30.0)
    assert 0.7 <= m80["utilisation"] <= 0.85, m80["utilisation"]


def test_parking_lot_files_match_the_generator():
    for v in pl.VARIANTS:
        path = pl.scenarios_path() / f"parking_lot_{v}.toml"
        assert Scenario.from_file(path).to_dict() == Scenario.from_dict(pl.scenario(v)).to_dict(), (
            f"{path} is stale: python -m pinchpoint.reproduce.eca.parking_lot")


def test_every_flow_has_the_same_propagation_delay():
    d = pl.scenario("tcp", 10.0, 9.0)
    delay = {(lk["a"], lk["b"]): float(lk["delay"].removesuffix("ms")) for lk in d["links"]}
    horizontal = delay[("src", "r0")] + sum(delay[(f"r{i}", f"r{i + 1}")] for i in range(7)) + delay[("r7", "dst")]
    assert horizontal == pytest.approx(9.0)
    for n in range(7):
        vertical = delay[(f"s{n}", f"r{n}")] + delay[(f"r{n}", f"r{n + 1}")] + delay[(f"r{n + 1}", f"d{n + 1}")]
        assert vertical == pytest.approx(9.0)



@pytest.mark.slow
def test_quick_reproduction_writes_a_report_with_verdicts_and_figures(tmp_path):
    from pinchpoint.reproduce import eca

    seen = []
    report = eca.reproduce(tmp_path, quick=True, progress=lambda label, frac: seen.append(frac))
    text = report.read_text()
    assert "| claim (section) | our number | verdict |" in text
    assert text.count("agrees") + text.count("differs") >= 10
    for name in ("fig5_eca.png", "fig6_utilisation.png", "fig6_cov.png", "fig7_delay.png"):
        assert (tmp_path / name).exists()
    assert seen[-1] == 1.0


def test_on_the_shared_lan_every_packet_crosses_the_medium_once():
    from pinchpoint.reproduce.eca import lan

    res, _ = lan.run_experiment("b2", duration_s=40.0)
    ports = res.ports.set_index("port")
    host_up = [p for p in ports.index if p.endswith("->tx") and p != "rx->tx"]
    assert len(host_up) == 6
    # Every packet any machine put on its link to the medium (data, acks and ECA reports) arrives
    # at the medium's port, and nothing else does.
    assert int(ports.loc["tx->rx", "arrivals_pkts"]) == int(ports.loc[host_up, "tx_pkts"].sum())
    # Nothing goes back out of tx towards a host: the explicit routes send everything to rx.
    assert int(ports.loc[[p for p in ports.index if p.startswith("tx->") and p != "tx->rx"], "tx_pkts"].sum()) == 0


def test_on_the_shared_lan_eca_protects_unmanaged_flows_and_shares_the_rest_by_weight():
    from pinchpoint.reproduce.eca import lan

    _, b = lan.run_experiment("b2")
    assert b["cbr_loss_steady"] == 0.0
    assert b["cbr_rate"] == pytest.approx(5.0, rel=0.01)
    assert b["be_on"][1] / b["be_on"][0] == pytest.approx(2.0, rel=0.15)
    assert b["be_off"][1] / b["be_off"][0] == pytest.approx(2.0, rel=0.15)
    # The estimator rises 5% per loaded interval and falls 1% per unloaded one.
    assert b["rise_response_s"] < b["fall_response_s"]
    _, a = lan.run_experiment("a")
    assert a["cbr_loss_steady"] > 0.01
    _, cn = lan.run_experiment("c_noeca")
    _, ce = lan.run_experiment("c_eca")
    assert ce["video_loss_steady"] == 0.0 and cn["video_loss_steady"] > 0.01


def test_http_requests_under_eca_respond_sooner_and_ect_on_syn_removes_syn_drops():
    from pinchpoint.reproduce.eca import http

    res_tcp, tcp = http.run_variant("tcp", 30.0)
    _, ecn = http.run_variant("ecn", 30.0)
    _, ect = http.run_variant("ecn_ect_syn", 30.0)
    _, eca = http.run_variant("eca", 30.0)
    # Every request is a transfer with its response time; the same arrivals in every variant.
    assert tcp["n"] == ecn["n"] == ect["n"] == eca["n"] > 1000
    # Drop-tail queues lose SYNs: responses of 6 s and more (the 6 s initial RTO).
    assert tcp["bands"][1] > 0
    # With ECT on SYN, RED marks SYNs instead of dropping them: fewer outliers than with Not-ECT SYNs.
    assert ect["outliers"] < ecn["outliers"]
    # ECA keeps the queues short: short requests finish sooner than under drop-tail TCP.
    assert eca["small_median_s"] < 0.5 * tcp["small_median_s"]
