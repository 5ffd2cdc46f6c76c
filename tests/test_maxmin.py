"""The max-min optimum calculator reproduces the thesis's optimum tables (Toomey ch. 9 s9.4.1
and s9.5) from the topology and flows alone, and behaves like max-min on textbook cases."""

import math

import pytest

import pinchpoint as pp
from pinchpoint.reproduce import trump as rep
from pinchpoint.scenario import Scenario

S2 = rep.scenario_path("s2", "trump")
S2A = rep.scenario_path("s2a", "trump")

# (instant, active flows) for each row of the thesis tables; Off6/Off8 rows need the flows
# named explicitly since completion times come from a run.
ROWS = [
    (5.0, None),
    (15.0, None),
    (100.0, None),
    (150.0, None),
    (250.0, ["s5", "s7", "s8"]),
    (500.0, ["s5", "s7"]),
]


@pytest.mark.parametrize("sid,path", [("s2", S2), ("s2a", S2A)])
def test_the_calculator_reproduces_the_thesis_optimum_tables_to_the_printed_digit(sid, path):
    for (at, active), (_, want) in zip(ROWS, rep.OPTIMUM_TABLES[sid]):
        got = pp.maxmin(path, at=at, active=active).rates_bps
        assert set(got) == set(want), (sid, at)
        for f, r in want.items():
            assert round(got[f], 1) == r, (sid, at, f, got[f])


def test_the_acks_of_the_reverse_flow_fill_both_directions_of_the_bottleneck():
    res = pp.maxmin(S2, at=100.0)
    cap, data, ack = res.ports["r2->r3"]
    assert data + ack == pytest.approx(cap, rel=1e-12)
    cap, data, ack = res.ports["r3->r2"]
    assert data + ack == pytest.approx(cap, rel=1e-12)
    assert res.bottleneck["s8"] == "r3->r2"


def test_a_desired_rate_caps_the_flow_and_is_reported_as_its_limit():
    res = pp.maxmin(S2A, at=150.0)
    assert res.rates_bps["s6"] == pytest.approx(18000.0)
    assert res.bottleneck["s6"] == "desired rate"


def _parking_lot() -> Scenario:
    # Classic max-min example: A crosses two 1 Mbit/s links, B the first only, C the second only,
    # D the first only: first link shared by A, B, D -> 1/3 each; C gets the rest of link 2: 2/3.
    s = Scenario("parking", duration="1s")
    for h in ("a", "b", "c", "d", "x", "y", "z"):
        s.host(h)
    for r in ("r1", "r2", "r3"):
        s.router(r)
    s.link("r1", "r2", rate="1Mbps", delay="1ms").link("r2", "r3", rate="1Mbps", delay="1ms")
    for h, r in (("a", "r1"), ("b", "r1"), ("d", "r1"), ("c", "r2"), ("x", "r3"), ("y", "r2"), ("z", "r3")):
        s.link(h, r, rate="100Mbps", delay="1ms")
    for name, src, dst in (("A", "a", "x"), ("B", "b", "y"), ("D", "d", "y"), ("C", "c", "z")):
        s.flow(name, src, dst, workload=pp.cbr("10Mbps", 1000), transport="udp")
    return s


def test_textbook_parking_lot_without_acks_is_max_min_fair():
    r = pp.maxmin(_parking_lot()).rates_bps
    assert r["A"] == pytest.approx(1e6 / 3) and r["B"] == pytest.approx(1e6 / 3) and r["D"] == pytest.approx(1e6 / 3)
    assert r["C"] == pytest.approx(2e6 / 3)
    assert math.fsum(r[f] for f in ("A", "C")) == pytest.approx(1e6)


def test_the_route_in_force_at_the_instant_is_used():
    p = rep.scenario_path("s8", "trump")
    before = pp.maxmin(p, at=99.0).rates_bps
    after = pp.maxmin(p, at=101.0).rates_bps
    assert before["s5"] == pytest.approx(31168.83, abs=0.01)
    assert after["s5"] > 400_000  # the 512 kbit/s path (less the acks it does not carry)
    assert after["s7"] > 60_000  # alone on 2->3 except for the acks of s8


def test_unknown_active_flow_is_refused_by_name():
    with pytest.raises(ValueError, match="nosuch"):
        pp.maxmin(S2, at=10.0, active=["nosuch"])


def test_an_instant_after_the_end_of_the_run_is_refused(tmp_path):
    import subprocess
    import sys

    f = tmp_path / "two.toml"
    from pathlib import Path

    f.write_text((Path(__file__).parent.parent / "scenarios/examples/two_flows_newreno.toml").read_text())
    with pytest.raises(ValueError, match=r"at = 60.5 s: expected an instant no later than the end of the run \(simulation.duration = 60 s\)"):
        pp.maxmin(f, at=60.5)
    assert pp.maxmin(f, at=60.0).rates_bps  # the end itself: what is in force when the run ends
    p = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "maxmin", str(f), "--at", "99"], capture_output=True, text=True)
    assert p.returncode == 2 and "--at 99 s: expected an instant no later than the end" in p.stdout + p.stderr
    p = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "maxmin", str(f), "--active", "f9"], capture_output=True, text=True)
    assert p.returncode == 2 and "--active: unknown flows f9 (the scenario's flows: f1, f2)" in p.stdout + p.stderr


def test_option_errors_keep_a_file_name_that_looks_like_a_message(tmp_path):
    # The CLI names its options from the library's structured error, not by rewriting the text:
    # a file called "at = 1 active: x.toml" keeps its name.
    import os
    import subprocess
    import sys
    from pathlib import Path

    f = tmp_path / "at = 1 active: x.toml"
    f.write_text((Path(__file__).parent.parent / "scenarios/examples/two_flows_newreno.toml").read_text())
    for args, expected in ((["--at", "99"], f"{f}: --at 99 s: expected an instant no later than the end"),
                           (["--active", "f9"], f"{f}: --active: unknown flows f9")):
        p = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "maxmin", str(f), *args], capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "400"})
        assert p.returncode == 2 and expected in " ".join((p.stdout + p.stderr).split()), p.stdout + p.stderr
    from pinchpoint.optimum import ArgumentError

    with pytest.raises(ArgumentError) as e:
        pp.maxmin(f, active=["f9"])
    assert e.value.argument == "active" and str(e.value).startswith(f"{f}: active: unknown flows f9")


def test_a_shaper_caps_its_flow_at_its_rate_and_the_run_agrees():
    # Two TCP flows into one 10 Mbit/s port, one behind a 2 Mbit/s token bucket: max-min gives
    # the shaped flow its shaper's rate (the bucket counts on-wire bytes) and the other the rest.
    s = Scenario("shaped", duration="20s")
    s.host("a").host("b").host("c").router("r")
    s.link("a", "r", rate="100Mbps", delay="1ms").link("c", "r", rate="100Mbps", delay="1ms")
    s.link("r", "b", rate="10Mbps", delay="10ms")
    s.flow("shaped", "a", "b", shaper={"rate": "2Mbps", "bucket": "3KB"})
    s.flow("free", "c", "b")
    res = pp.maxmin(s)
    assert res.rates_bps == {"shaped": pytest.approx(2e6), "free": pytest.approx(8e6)}
    assert res.bottleneck == {"shaped": "shaper rate", "free": "r->b"}
    # The run: goodput counts payload, so on the wire each flow carried goodput x 1500 / 1448
    # (MSS 1448 plus 52 bytes of headers). The shaped flow is held to its rate exactly in the
    # long run; the other loses its first slow start's overshoot, hence the looser bound.
    flows = pp.run(s).flows.set_index("flow")
    wire = flows["goodput_bps"] * 1500 / 1448
    assert wire["shaped"] == pytest.approx(2e6, rel=0.01)
    assert wire["free"] == pytest.approx(8e6, rel=0.03)
