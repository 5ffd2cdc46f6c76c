"""Every bundled scenario runs, conserves packets, and respects its links."""

from pathlib import Path

import pytest

import pinchpoint as pp

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "scenarios" / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_and_conserves_packets(path):
    r = pp.run(path)
    f = r.flows
    # Conservation per flow is checked in Rust in detail; here: nothing appears from nowhere.
    assert (f["delivered_pkts"] + f["lost_pkts"] <= f["sent_pkts"]).all()
    ports = r.ports
    assert (ports["arrivals_pkts"] == ports["tx_pkts"] + ports["drops"] + ports["queue_pkts_now"]).all()
    assert (r.links["utilisation"] <= 1.0).all()
    assert (r.flows["goodput_bps"] > 0).all()


def test_route_change_moves_traffic_to_the_lower_path(root):
    r = pp.run(root / "scenarios/examples/route_change.toml")
    ps = r.port_series.to_pandas()
    down = ps[ps.port == "x->down"].set_index("t_s")["tx_bytes"]
    up = ps[ps.port == "x->up"].set_index("t_s")["tx_bytes"]
    assert down.loc[4.9] == 0 and down.loc[10.0] > 0
    assert up.loc[10.0] - up.loc[5.5] == 0
    assert r.port("x->down")["marks"] > 0


def test_file_transfer_completes_and_stops_the_run(root):
    r = pp.run(root / "scenarios/examples/file_with_poisson_cross_traffic.toml")
    row = r.flow("file")
    assert row["completed"] and row["delivered_bytes"] == 2_000_000
    assert r.meta["end_time_s"] == pytest.approx(row["fct_s"] + 0.0, abs=1e-9)
    assert r.packets.num_rows > 0


def test_rack_reordering_d_sacks_cut_rack_s_spurious_retransmissions(root):
    # The route moves every second between paths 15 ms apart; RACK's D-SACK-widened reordering
    # window (RFC 8985 s6.2 step 4) resends fewer segments that were only overtaken. Undo is
    # off on both runs, so that only the window differs.
    sc = pp.Scenario.from_file(root / "scenarios/examples/rack_reordering.toml")
    sc.data["flows"][1]["tcp"]["undo"] = False
    with_dsack = pp.run(sc).flow("f_rack")
    sc.data["flows"][1]["tcp"]["dsack"] = False
    without = pp.run(sc).flow("f_rack")
    assert with_dsack["dsacks_received"] > 0 and without["dsacks_received"] == 0
    # Retransmissions beyond the packets really lost were of segments that had arrived.
    spurious = lambda f: f["retx_pkts"] - f["lost_pkts"]
    assert spurious(with_dsack) < 0.6 * spurious(without), (spurious(with_dsack), spurious(without))


def test_rack_reordering_undo_gives_back_the_window_that_spurious_recoveries_cut(root):
    # With undo (the default with RACK-TLP, as Linux) the recoveries that D-SACKs or the
    # timestamp echo show were spurious give the window back, and f_rack sends faster than
    # with its reductions kept. f_sack (RFC 6675 recovery) never undoes.
    sc = pp.Scenario.from_file(root / "scenarios/examples/rack_reordering.toml")
    on = pp.run(sc)
    sc.data["flows"][1]["tcp"]["undo"] = False
    off = pp.run(sc)
    rack_on, rack_off = on.flow("f_rack"), off.flow("f_rack")
    assert rack_on["recoveries_undone"] > 0 and rack_off["recoveries_undone"] == 0
    assert on.flow("f_sack")["recoveries_undone"] == 0
    assert rack_on["recoveries_undone"] <= rack_on["fast_retx"]
    assert rack_on["goodput_bps"] > 1.1 * rack_off["goodput_bps"], (rack_on["goodput_bps"], rack_off["goodput_bps"])
