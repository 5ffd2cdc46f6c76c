"""ATN receiver-based congestion avoidance (WP/267): scenario files, behaviour, reproduction."""

import math
import tomllib

import numpy as np
import pytest

import pinchpoint as pp
from pinchpoint.reproduce import atn

SDIR = atn.Path(__file__).resolve().parent.parent / "scenarios" / "seeds" / "atn"


@pytest.fixture(scope="module")
def ex1_as_run():
    return pp.run(SDIR / "exercise1_as_run.toml")


def test_committed_scenarios_match_the_generator(tmp_path):
    written = atn.write_scenarios(tmp_path)
    assert len(written) == 14
    for p in written:
        committed = SDIR / p.name
        assert committed.exists(), p.name
        assert tomllib.loads(committed.read_text()) == tomllib.loads(p.read_text()), p.name


def test_identical_transfers_share_the_pinch_point_within_ten_percent(ex1_as_run):
    f = ex1_as_run.flows.set_index("flow")
    tput = np.array([64 * 1024 / f.loc[n, "fct_s"] for n in ("t2", "t3", "t4", "t5", "t6")])
    assert tput.max() / tput.min() < 1.10, tput


def test_pinch_point_stays_busy_during_cross_traffic(ex1_as_run):
    f = ex1_as_run.flows.set_index("flow")
    t0 = f.loc["t6", "start_s"]
    t1 = min(f.loc[n, "start_s"] + f.loc[n, "fct_s"] for n in ("t1", "t2", "t3", "t4", "t5", "t6"))
    ps = ex1_as_run.port_series.to_pandas()
    tx = ps[ps.port == "is1->is2"].set_index("t_s")["tx_bytes"]
    a = tx[tx.index >= t0].iloc[0]
    b = tx[tx.index <= t1].iloc[-1]
    span = tx[tx.index <= t1].index[-1] - tx[tx.index >= t0].index[0]
    util = (b - a) * 8 / (64_000 * span)
    assert util >= 0.85, util


def test_no_loss_and_no_retransmission_with_congestion_avoidance(ex1_as_run):
    f = ex1_as_run.flows
    assert (f["lost_pkts"] == 0).all() and (f["retx_pkts"] == 0).all()
    assert ex1_as_run.port("is1->is2")["marks"] > 0


def test_credit_window_follows_the_beta_delta_rule():
    # With a 1 s RTT every change of W is at least one RTT apart (WP/267 s5.3), so the 100 ms
    # series sees each one: W goes up by delta = 1 or down to max(1, floor(0.875 W)).
    r = pp.run(SDIR / "exercise1_specified.toml")
    fs = r.flow_series.to_pandas()
    changes = 0
    for _, g in fs.groupby("flow"):
        w = (g["rwnd_bytes"] // atn.MSS).to_numpy()
        for old, new in zip(w[:-1], w[1:]):
            if new != old:
                changes += 1
                assert new == old + 1 or new == max(1, math.floor(0.875 * old)), (old, new)
    assert changes > 20


def test_fixed_window_baseline_uses_seventeen_packets():
    r = pp.run(SDIR / "exercise3_as_run.toml")
    fs = r.flow_series.to_pandas()
    fixed = fs[fs.flow.str.startswith("fixed_")]
    assert (fixed["rwnd_bytes"] == 17 * atn.MSS).all()
    f = r.flows.set_index("flow")
    # A 128 KiB file at 64 kbit/s with 560-byte packets needs at least 262 x 70 ms.
    assert f.loc["fixed_131072", "fct_s"] >= 262 * 0.070


def test_quick_reproduction_writes_a_report(tmp_path):
    calls = []
    report = atn.reproduce(tmp_path, quick=True, progress=lambda label, frac: calls.append(frac))
    text = report.read_text()
    assert report.name == "report.md" and "Exercise 5" in text and "table 4-7" in text
    assert (tmp_path / "exercise1_as_run.png").stat().st_size > 1000
    assert calls and calls[-1] == 1.0


@pytest.mark.slow
def test_full_reproduction(tmp_path):
    report = atn.reproduce(tmp_path)
    assert "Variant: specified" in report.read_text()
