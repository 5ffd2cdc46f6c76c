"""ATN receiver-based congestion avoidance (WP/267): derived inputs, scenario files, behaviour,
and the paper's claims that the report marks "agrees" (with the report's tolerances)."""

import math
import tomllib

import numpy as np
import pytest

import pinchpoint as pp
from pinchpoint.reproduce import atn
from pinchpoint.reproduce.atn import report as rep
from pinchpoint.reproduce.atn import scenarios as sc
from pinchpoint.reproduce.atn.analysis import Run, perturbed

SDIR = atn.Path(__file__).resolve().parent.parent / "scenarios" / "seeds" / "atn"


@pytest.fixture(scope="module")
def as_run():
    """The as_run runs the claims table needs (a few seconds of wall time in all)."""
    stems = ["exercise1_as_run", "exercise2_as_run", "exercise3_as_run", "exercise6_as_run"]
    return {s: Run(SDIR / f"{s}.toml") for s in stems}


def test_committed_scenarios_match_the_generator(tmp_path):
    written = atn.write_scenarios(tmp_path)
    assert len(written) == 14
    for p in written:
        committed = SDIR / p.name
        assert committed.exists(), p.name
        assert tomllib.loads(committed.read_text()) == tomllib.loads(p.read_text()), p.name


def test_npdu_sizes_are_read_off_the_buffer_maxima():
    # Every maximum of tables 4-6, 4-10, 4-13 is a whole number of DT NPDUs...
    for bits in sc.BUFFER_MAXIMA_BITS.values():
        assert bits % sc.DT_NPDU_BITS == 0, bits
    assert (sc.DT_NPDU_BYTES, sc.HEADER_BYTES) == (542, 42)
    # ... and the others leave 312 bit (one 39-byte AK NPDU) per extra packet.
    for total, n_dt, n_ak in sc.AK_REMAINDERS_BITS.values():
        assert (total - n_dt * sc.DT_NPDU_BITS) == n_ak * sc.ACK_BYTES * 8


def test_as_run_delay_reproduces_both_algorithm_independent_numbers_within_one_and_a_half_ms():
    d = sc.derivation()
    assert abs(d["min_delay_pred_s"] - sc.PAPER_MIN_DELAY_S) < 0.0015
    assert abs(d["one_tpdu_pred_s"] - sc.PAPER_ONE_TPDU_S) < 0.0015
    for stem in ("exercise1_as_run", "exercise6_as_run"):
        pinch = tomllib.loads((SDIR / f"{stem}.toml").read_text())["links"][0]
        assert pinch["delay"] == f"{d['d_s'] * 1000:.3f}ms" and pinch["rate"] == "64kbps"
    specified = tomllib.loads((SDIR / "exercise1_specified.toml").read_text())["links"][0]
    assert specified["delay"] == "500ms"


def test_one_tpdu_transfer_takes_the_predicted_round_trip_in_the_simulator():
    s = tomllib.loads((SDIR / "exercise3_as_run.toml").read_text())
    s["flows"] = [f for f in s["flows"] if f["name"] == "ca_500"]
    s["simulation"]["duration"] = "10s"
    f = pp.run(pp.Scenario.from_dict(s)).flows.set_index("flow")
    assert f.loc["ca_500", "fct_s"] == pytest.approx(sc.derivation()["one_tpdu_pred_s"], abs=1e-4)


def test_table_4_7_columns_read_as_fixed_window_and_growing_window():
    r = sc.table_4_7_reading()
    # 'CA' column: the same cost per KB from 8 KB on (never window-limited).
    per_kb = r["ca_s_per_kb"][3:]
    assert max(per_kb) / min(per_kb) < 1.01
    # 'No CA' column: one round trip per doubling for the first two doublings.
    assert r["noca_step_rtts"][0] == pytest.approx(1.0, abs=0.03)
    assert r["noca_step_rtts"][1] == pytest.approx(1.0, abs=0.03)


def test_utilisation_counts_payload_and_wire_separately(as_run):
    r = as_run["exercise1_as_run"]
    u = r.utilisation(["t1", "t2", "t3", "t4", "t5", "t6"], 10.0, 40.0, sc.PINCH)
    # The port counts a packet when it starts sending it: at most one NPDU more than capacity.
    one_packet = sc.DT_NPDU_BYTES / (sc.PINCH_RATE_BPS / 8 * 30.0)
    assert 0 < u["payload"] < u["wire"] <= 1.0 + one_packet


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


def test_fixed_window_baseline_uses_seventeen_packets(as_run):
    r = as_run["exercise3_as_run"]
    fixed = r.fs[r.fs.flow.str.startswith("fixed_")]
    assert (fixed["rwnd_bytes"] == 17 * atn.MSS).all()
    # 128 KB = 256 DT NPDUs of 4336 bit at 64 kbit/s: at least 256 x 67.75 ms.
    assert r.fct(f"fixed_{128 * atn.KB}") >= 256 * 4336 / 64_000


def test_exercise6_cross_traffic_is_transfers_that_retransmit(as_run):
    r = as_run["exercise6_as_run"]
    cross = r.flows.loc[[f"t{k}" for k in range(2, 7)]]
    assert (cross["sent_pkts"] > 0).all() and cross["retx_pkts"].sum() > 0
    assert "udp" not in (SDIR / "exercise6_as_run.toml").read_text()


def test_perturbations_are_sub_millisecond_and_seeded():
    s = sc.exercise5("as_run", False)
    a, b = perturbed(s, 3), perturbed(s, 3)
    assert a == b and a != perturbed(s, 4)
    for link in a["links"]:
        if link["a"] in ("snd1", "snd2"):
            extra = float(link["delay"].removesuffix("ms")) - sc.ACCESS_DELAY_MS
            assert 0.0 <= extra < 1.0


# The claims the full report marks "agrees", asserted with the report's own tolerances.

def test_claim_no_retransmissions_with_congestion_avoidance(as_run):
    assert rep.claim_no_retransmissions(as_run["exercise1_as_run"])
    assert rep.claim_no_retransmissions(as_run["exercise2_as_run"])


def test_claim_cross_transfers_proceed_at_the_same_rate(as_run):
    assert rep.claim_even_cross(as_run["exercise1_as_run"])[0]
    assert rep.claim_even_cross(as_run["exercise2_as_run"])[0]


def test_claim_transfer_times_of_exercises_1_and_2(as_run):
    for ex in (1, 2):
        r = as_run[f"exercise{ex}_as_run"]
        assert rep.claim_time(r.fct("t1"), sc.PAPER_FTT[ex]["t1"])
        cross = np.mean([r.fct(f"t{k}") for k in range(2, 7)])
        assert rep.claim_time(cross, np.mean([sc.PAPER_FTT[ex][f"t{k}"] for k in range(2, 7)]))


def test_claim_utilisation_of_exercise_1(as_run):
    r = as_run["exercise1_as_run"]
    tput = np.mean([64 * atn.KB / atn.KB / r.fct(f"t{k}") for k in range(2, 7)])
    assert abs(6 * tput / 8 - sc.PAPER_UTIL_EX1) <= rep.TOL_UTIL_POINTS


def test_claim_fixed_window_128_kb_transfer_time(as_run):
    assert rep.claim_time(as_run["exercise3_as_run"].fct(f"fixed_{128 * atn.KB}"), sc.PAPER_EX3[128][0])


def test_claim_non_compliant_traffic_retransmits_and_loads_the_buffer(as_run):
    r6, r2 = as_run["exercise6_as_run"], as_run["exercise2_as_run"]
    assert r6.flows["retx_pkts"].sum() > 0
    assert r6.buffer(sc.PINCH, 0, r6.end_s)["mean"] >= 2 * r2.buffer(sc.PINCH, 0, r2.finish("t1"))["mean"]


def test_quick_reproduction_writes_a_report(tmp_path):
    calls = []
    report = atn.reproduce(tmp_path, quick=True, progress=lambda label, frac: calls.append(frac))
    text = report.read_text()
    assert report.name == "report.md" and "Exercise 5" in text and "table 4-7" in text
    assert "141.601 ms" in text and "agree)" in text
    assert (tmp_path / "exercise1_as_run.png").stat().st_size > 1000
    assert calls and calls[-1] == 1.0


@pytest.mark.slow
def test_full_reproduction(tmp_path):
    report = atn.reproduce(tmp_path)
    text = report.read_text()
    assert "Variant: specified" in text and "40 runs" in text
