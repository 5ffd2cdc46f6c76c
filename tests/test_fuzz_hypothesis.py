"""Random valid scenarios through `pinchpoint.run`, checked against the invariants of issue 14 from
the result tables: per-flow and per-port conservation (shaper-held packets included), link
throughput at most the rate, queue at most its limit, determinism, and the resolved scenario
re-validating and rerunning identically.

Default: a few examples (seconds). Long campaign: ``HYPOTHESIS_PROFILE=campaign`` (``make fuzz``).
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import pinchpoint
from pinchpoint import api
from pinchpoint.registry import kinds

settings.register_profile("default_fuzz", max_examples=8, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("campaign", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = settings.get_profile("campaign" if os.environ.get("HYPOTHESIS_PROFILE") == "campaign" else "default_fuzz")

# Every registered controller (a new one is fuzzed without editing this file), "none" included.
# A "none" sender is limited only by the receiver's window, so its flows draw a receiver buffer
# (tcp.max_window) from realistic sizes: 4 KiB to 6 MiB (Linux's default tcp_rmem maximum; ns-3's
# default 128 KiB lies inside). One in four keeps the default window, the largest TCP can
# advertise (2^30 bytes), with an MSS of at least 1,000 bytes: such a sender emits up to
# 2^30 / MSS segments at its start and after every timeout (about 1.3 s of wall time per run at
# 1,000 bytes, 17 s at 100). Same ranges as crates/pinchpoint-core/tests/fuzz_scenarios.rs;
# docs/fuzzing.md says why.
CCS = list(kinds()["cc"])
RCV_BUF_BYTES = (4096, 6_291_456)
MIN_MSS_UNLIMITED_NONE = 1000
QUEUES = ["droptail", "priority", "rda", "rda_fp", "rda_vp", "sda", "isda", "red", "codel", "fq_codel", "pie"]


def sack_setting(sack: str) -> str:
    """The `tcp` keys for a drawn loss recovery."""
    if sack == "rack_tlp_no_dsack":
        return 'sack = true, recovery = "rack_tlp", dsack = false'
    if sack == "rack_tlp_no_undo":
        return 'sack = true, recovery = "rack_tlp", undo = false'
    if sack == "rack_tlp_no_frto":
        return 'sack = true, recovery = "rack_tlp", frto = false'
    return 'sack = true, recovery = "rack_tlp"' if sack == "rack_tlp" else f"sack = {sack}"


@st.composite
def link_queue(draw) -> tuple[list[str], int]:
    """One link's rate, delay and queue (endpoints added by the caller), and its packet limit."""
    limit = draw(st.integers(2, 200))
    # A CE-marking hook on every port (kept by `scenarios` only if a DCTCP flow reads it: a
    # marking hook that no flow reads is refused): a DCTCP flow (ecn = true) needs one on its path
    # (ECN with nothing to pair with is refused), and it touches no other packet.
    return [f'rate = "{draw(st.integers(100, 100_000))}kbps"', f'delay = "{draw(st.integers(0, 20_000))}us"',
            f'queue = {{ kind = "{draw(st.sampled_from(QUEUES))}", limit_pkts = {limit} }}',
            f'hooks = [{{ kind = "ce_threshold", threshold_pkts = {limit // 2} }}]'], limit


@st.composite
def flow(draw, duration_ms: int) -> list[str]:
    """One flow's lines after its name: endpoints, start, transport and workload, maybe a shaper.
    Every value is drawn whether or not this flow uses it, so a flow is always the same number
    of choices (see docs/fuzzing.md, "Hypothesis's invalid cases")."""
    reverse = draw(st.integers(0, 3)) == 0
    # A start at or after the end of the run is refused (the flow would never start): the
    # drawn start is taken modulo the duration, so the number of choices stays the same.
    start = draw(st.integers(0, 300)) % duration_ms
    transport = draw(st.sampled_from(["tcp", "tcp", "udp", "tfrc"]))
    cc, bulk, size_kb = draw(st.sampled_from(CCS)), draw(st.booleans()), draw(st.integers(1, 400))
    # Loss recovery: no SACK (NewReno), SACK (RFC 6675) or RACK-TLP (RFC 8985) on SACK, with
    # D-SACK, undo and F-RTO (its defaults) or without one of them.
    mss, sack = draw(st.integers(100, 1500)), draw(st.sampled_from(["false", "true", "rack_tlp", "rack_tlp_no_dsack", "rack_tlp_no_undo", "rack_tlp_no_frto"]))
    default_window, rcv_buf = draw(st.integers(0, 3)) == 0, draw(st.integers(*RCV_BUF_BYTES))
    udp_kind, udp_rate_kbps, udp_size = draw(st.sampled_from(["cbr", "poisson"])), draw(st.integers(10, 20_000)), draw(st.integers(40, 1500))
    shaped, shaper_kbps, bucket = draw(st.integers(0, 9)) < 3, draw(st.integers(50, 20_000)), draw(st.integers(1500, 20_000))
    src, dst = ("b", "a") if reverse else ("a", "b")
    lines = [f'src = "{src}"', f'dst = "{dst}"', f'start = "{start}ms"']
    if transport == "tcp":
        workload = '{ kind = "bulk" }' if bulk else f'{{ kind = "file", size = "{size_kb}KB" }}'
        buf = ""
        if cc == "none":
            if default_window:
                mss = max(mss, MIN_MSS_UNLIMITED_NONE)
            else:
                buf = f', max_window = "{rcv_buf}B"'
        lines += ['transport = "tcp"', f'cc = "{cc}"', f"workload = {workload}",
                  f'tcp = {{ mss = {mss}, {sack_setting(sack)}, ecn = {str(cc == "dctcp").lower()}{buf} }}']
    elif transport == "udp":
        lines += ['transport = "udp"', f'workload = {{ kind = "{udp_kind}", rate = "{udp_rate_kbps}kbps", packet_size = "{udp_size}B" }}']
    else:
        lines += ['transport = "tfrc"', 'workload = { kind = "bulk" }']
    if shaped:
        lines.append(f'shaper = {{ rate = "{shaper_kbps}kbps", bucket = "{bucket}B" }}')
    return lines


@st.composite
def scenarios(draw) -> tuple[str, list[int]]:
    routers = draw(st.integers(1, 3))
    names = ["a"] + [f"r{i}" for i in range(1, routers + 1)] + ["b"]
    duration_ms = draw(st.integers(200, 2000))
    lines = ['name = "hyp"', "[simulation]", f'duration = "{duration_ms}ms"',
             f"seed = {draw(st.integers(0, 2**40))}"]
    for n in names:
        lines += ["[[nodes]]", f'name = "{n}"', f'kind = "{"router" if n.startswith("r") else "host"}"']
    limits, links = [], []
    for i, (link, limit) in enumerate(draw(link_queue()) for _ in range(routers + 1)):
        limits.append(limit)
        links.append(["[[links]]", f'a = "{names[i]}"', f'b = "{names[i + 1]}"', *link])
    flows = [draw(flow(duration_ms)) for _ in range(draw(st.integers(1, 6)))]
    # Every flow crosses every link of the chain, so one DCTCP flow reads every link's hook.
    reads_marks = any('cc = "dctcp"' in line for f in flows for line in f)
    for link in links:
        lines += [line for line in link if reads_marks or not line.startswith("hooks = ")]
    for i, f in enumerate(flows):
        lines += ["[[flows]]", f'name = "f{i}"', *f]
    return "\n".join(lines) + "\n", limits


def run_text(text: str, tmp_path, name: str):
    p = tmp_path / f"{name}.toml"
    p.write_text(text)
    try:
        return pinchpoint.run(p), None
    except pinchpoint.ResourceLimitError as e:  # a resource bound is a valid, named outcome
        assert "simulation.max_" in str(e), str(e)
        return None, str(e)


def check_invariants(res, limits: list[int]) -> None:
    f = res.flows
    out = f.sent_pkts + f.ack_pkts
    accounted = f.delivered_pkts + f.lost_pkts + f.ack_lost_pkts + f.in_network_pkts + f.shaper_held_pkts
    # What is left over is exactly the acknowledgements (and feedback) delivered, which the flows
    # table does not list: at least 0, at most the acknowledgements sent.
    gap = out.astype("int64") - accounted.astype("int64")
    assert ((gap >= 0) & (gap <= f.ack_pkts.astype("int64"))).all(), f[["flow", "sent_pkts", "ack_pkts"]].assign(gap=gap)
    assert (gap[f.ack_pkts == 0] == 0).all()
    p = res.ports
    assert (p.arrivals_pkts == p.tx_pkts + p.drops + p.queue_pkts_now).all(), p
    for i, qmax in enumerate(p.queue_pkts_max):
        assert qmax <= limits[i // 2], (p.port[i], qmax, limits[i // 2])
    l = res.links
    assert (l.throughput_bps <= l.rate_bps * (1 + 1e-9)).all(), l
    assert ((l.utilisation >= 0) & (l.utilisation <= 1 + 1e-9)).all(), l


def same(a, b) -> bool:
    # pandas equality treats NaN in the same place as equal (Arrow equality does not).
    return all(a.tables[k].to_pandas().equals(b.tables[k].to_pandas()) for k in a.tables)


@settings(PROFILE)
@given(scenarios())
def test_random_valid_scenarios_conserve_packets_respect_limits_and_repeat(tmp_path_factory, case):
    text, limits = case
    tmp = tmp_path_factory.mktemp("hyp")
    res, stopped = run_text(text, tmp, "s")
    again, stopped_again = run_text(text, tmp, "s2")
    assert stopped == stopped_again
    if res is None:
        return
    check_invariants(res, limits)
    assert same(res, again), "two runs differ"
    resolved = api.validate(tmp / "s.toml")
    assert res.scenario_toml == resolved
    rerun, _ = run_text(resolved, tmp, "resolved")
    assert rerun is not None and same(res, rerun), "the resolved scenario reruns differently"


def test_a_run_stopped_at_a_resource_bound_raises_the_error_the_package_exports(tmp_path):
    # Campaign finding (2026-11-23, the first run with cc = "none" back in the strategy): a run
    # that stops at simulation.max_shaper_pkts raised pinchpoint.ResourceLimitError, which the
    # package did not export, so the harness itself crashed.
    p = tmp_path / "s.toml"
    p.write_text('[simulation]\nduration = "1s"\n[[nodes]]\nname = "a"\n[[nodes]]\nname = "r1"\nkind = "router"\n'
                 '[[nodes]]\nname = "b"\n[[links]]\na = "a"\nb = "r1"\nrate = "481kbps"\ndelay = "6ms"\n'
                 '[[links]]\na = "r1"\nb = "b"\nrate = "84Mbps"\ndelay = "14ms"\n[[flows]]\nname = "f0"\nsrc = "b"\n'
                 'dst = "a"\ncc = "none"\nworkload = { kind = "bulk" }\nshaper = { rate = "18090kbps", bucket = "13332B" }\n')
    with pytest.raises(pinchpoint.ResourceLimitError, match="simulation.max_shaper_pkts"):
        pinchpoint.run(p)
    assert issubclass(pinchpoint.ResourceLimitError, pinchpoint.ScenarioError)
