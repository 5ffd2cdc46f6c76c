"""The one translator from a pinchpoint scenario to an ns-3 program (issue 9).

:func:`translate` turns a scenario (a dict in the scenario format) into a *plan*: plain JSON data that :mod:`.ns3_run` builds in ns-3
3.44 (nodes, point-to-point links, AQM queue discs, applications) together with the
``Config::SetDefault`` attributes that configure ns-3's TCP like pinchpoint's. Both ``pinchpoint crossval`` and
``pinchpoint bench --against ns3`` (the benchmark preset is an ordinary scenario) go through it.

Only settings with a faithful ns-3 counterpart are translated; anything else raises
:class:`CrossvalUnsupported` naming the file and the field, before ns-3 starts. Where the two
simulators run the same setting with a documented difference (``reno`` as NewReno, HyStart++ as
Linux HyStart), the plan carries a caveat that the front ends print. The mapping, setting by
setting, is in ``docs/crossval.md``.

Every pinchpoint default the plan needs comes from the engine, never from a number written here:
the scenario is first resolved by the native validator (which writes out every default it has),
and the few defaults the resolved form leaves out (a queue's buffer limit, RED's thresholds,
the loss recovery of a ``tcp`` table without ``sack``/``recovery``/``prr``) are asked of the
native module (``queue_in_effect``, ``tcp_in_effect``). So a changed Rust default moves both
sides of the cross-check at once. The numbers that remain are ns-3's side of the mapping.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from .. import _native
from ..units import parse as _parse_unit

#: ns-3 adds IP (20) + TCP (20) + timestamp option (12) bytes to every segment and ACK.
NS3_IP_TCP_HEADER_BYTES = 52
#: PointToPointNetDevice frames every packet with a 2-byte PPP header.
PPP_HEADER_BYTES = 2
IP_UDP_HEADER_BYTES = 28
#: ns-3's TcpSocketBase caps the retransmission timeout at 60 s whatever MaxRto says.
NS3_MAX_RTO_S = 60.0
SINK_PORT_BASE = 5000
#: BulkSend write size. It never changes the wire (TCP cuts SegmentSize pieces from its buffer) but
#: the ns-3 default of 512 B fills a 64 MiB send buffer with ~131k Packet objects per flow
#: (measured at N = 100, 10 s: 27.5 s wall and 5.4 GiB RSS against 5.8 s and 0.7 GiB at 64 KiB).
APP_SEND_SIZE = 65536
SOCKET_BUFFER_BYTES = 64 * 1024 * 1024

#: The device queue under an AQM queue disc. ns-3's NetDeviceQueue stops the queue disc once the device
#: queue could not take one more packet, so with 1p one packet waits in the device while another is
#: on the wire; 0p would drop everything. pinchpoint's port has no NIC queue (docs/crossval.md).
AQM_DEVICE_QUEUE = "1p"
QDISC_KINDS = {"red": "RedQueueDisc", "codel": "CoDelQueueDisc", "fq_codel": "FqCoDelQueueDisc",
               "pie": "PieQueueDisc"}
_LIMIT_KEYS = {"kind", "limit_pkts", "limit_bytes", "ecn"}
#: Fields of each AQM table that translate (everything else is refused, naming the field).
#: fq_codel's ``hash_seed`` is accepted: no ns-3 seed gives the same flow-to-queue assignment
#: anyway, which the fq_codel caveat says.
QDISC_KEYS = {
    "red": _LIMIT_KEYS | {"min_th_pkts", "max_th_pkts", "min_th_bytes", "max_th_bytes", "min_th_fraction",
                          "max_th_fraction", "w_q", "max_p", "gentle", "wait", "byte_mode", "mean_pkt_bytes"},
    "codel": _LIMIT_KEYS | {"target", "interval", "mtu_bytes"},
    "fq_codel": _LIMIT_KEYS | {"flows", "quantum_bytes", "target", "interval", "mtu_bytes", "hash_seed"},
    "pie": _LIMIT_KEYS | {"target", "t_update", "max_burst", "alpha", "beta", "mark_threshold", "derandomize",
                          "mean_pkt_bytes"},
}

#: cc -> (ns-3 congestion-control TypeId, {pinchpoint parameter: ns-3 attribute of that TypeId}).
CONTROLLERS: dict[str, tuple[str, dict[str, str]]] = {
    "newreno": ("ns3::TcpNewReno", {}),
    "reno": ("ns3::TcpNewReno", {}),
    "cubic": ("ns3::TcpCubic", {"beta": "Beta", "c": "C", "fast_convergence": "FastConvergence",
                                "reno_friendly": "TcpFriendliness", "hystart": "HyStart"}),
    "bbr": ("ns3::TcpBbr", {}),
    # Both count segments queued in the network (TcpVegas: "packets in network"); ns-3's defaults
    # are Linux's 2/4/1, ours the paper's 1/3/1, so all three are always pinned.
    "vegas": ("ns3::TcpVegas", {"alpha": "Alpha", "beta": "Beta", "gamma": "Gamma"}),
    # AIFactor: segments acknowledged per one-segment increase once cwnd exceeds it (ns-3: 50,
    # Linux 3.x's count; ours 100, current Linux). MDFactor is the fraction *removed* on a loss
    # (ssthresh = cwnd (1 - MDFactor)), our beta the fraction kept: see CC_VALUES.
    "scalable": ("ns3::TcpScalable", {"ai_count_pkts": "AIFactor", "beta": "MDFactor"}),
    # DctcpShiftG is the EWMA gain g itself (a fraction, default 1/16), not Linux's shift
    # dctcp_shift_g = 4; DctcpAlphaOnInit is alpha before the first window (both default 1).
    "dctcp": ("ns3::TcpDctcp", {"g": "DctcpShiftG", "initial_alpha": "DctcpAlphaOnInit"}),
}

#: (cc, parameter) -> the ns-3 attribute's value from ours, where the two are defined differently.
CC_VALUES: dict[tuple[str, str], Any] = {
    # TcpScalable::GetSsThresh: max(2, segments x (1 - MDFactor)); our beta is what is kept.
    ("scalable", "beta"): lambda beta: 1.0 - float(beta),
}

#: ns-3 attributes of a controller with no pinchpoint parameter, pinned so that an ns-3 default
#: cannot stand in for what pinchpoint does.
CC_PINNED: dict[str, dict[str, str]] = {
    # TcpDctcp::Init sets the ECT codepoint of every segment from UseEct0: ECT(0), as pinchpoint's
    # one ECT codepoint and RFC 8257 s3.1 (ECT(1) would be read as L4S by an L4S-aware AQM).
    "dctcp": {"UseEct0": "true"},
}

#: cc -> caveats (given the flow's field) for what ns-3 3.44's controller does differently from Linux
#: and the papers, read in its source (src/internet/model/tcp-{vegas,scalable,dctcp}.cc,
#: tcp-socket-base.cc). Differences pinchpoint itself documents against Linux are not repeated
#: here (docs/algorithms/{vegas,scalable,dctcp}.md).
CC_CAVEATS: dict[str, Any] = {
    "vegas": lambda fld: [
        # tcp-socket-base.cc ProcessAck passes m_tcb->m_srtt to PktsAcked (since ns-3.43, commit
        # 3be702f7, a BBR fix); with timestamps on, its RTT samples come from the TS echo in whole
        # milliseconds (TcpOptionTS::ElapsedTimeFromTsValue). Linux's tcp_vegas_pkts_acked takes
        # each ACK's own sample in microseconds.
        f"{fld}.cc: ns-3's TcpVegas sees the smoothed RTT (PktsAcked is handed m_srtt), built from "
        "timestamp samples in whole milliseconds, as both its BaseRTT and its round's RTT; Linux and pinchpoint "
        "use each ACK's own RTT sample. ns-3 also follows Linux where pinchpoint follows the paper and ns-2: the "
        "round's minimum RTT, Diff rounded up to whole segments, slow start every RTT, cwnd cut to the target + 1 "
        "segment when slow start ends"],
    "scalable": lambda fld: [
        # tcp-scalable.cc GetSsThresh(tcb, bytesInFlight): segCwnd = bytesInFlight / MSS; Linux's
        # tcp_scalable_ssthresh reads snd_cwnd.
        f"{fld}.cc: ns-3's TcpScalable computes ssthresh from the bytes in flight when recovery starts "
        "(Linux and pinchpoint: from cwnd) and rounds the kept part down (Linux: cwnd - (cwnd >> 3), the kept part "
        "rounded up)"],
    "dctcp": lambda fld: [
        # tcp-dctcp.cc GetSsThresh: (1 - alpha / 2) cwnd; Linux dctcp_ssthresh: max(..., 2U).
        f"{fld}.cc: ns-3's TcpDctcp reduces to cwnd (1 - alpha/2) with no floor (Linux and pinchpoint: at least 2 "
        "segments)"],
}

# Pinned for every run: ns-3 defaults that differ from pinchpoint's sender, or that are pinned so that
# a later ns-3 default cannot silently diverge. (attribute, value)
BASELINE: list[tuple[str, str]] = [
    ("ns3::TcpSocketBase::LimitedTransmit", "true"),      # RFC 3042, as pinchpoint's sender
    ("ns3::TcpSocketBase::UseEcn", "Off"),
    ("ns3::TcpSocketBase::Timestamp", "true"),            # 12 option bytes; RTT sampled on every ACK
    ("ns3::TcpSocketBase::WindowScaling", "true"),
    ("ns3::TcpSocketBase::MaxWindowSize", "65535"),
    ("ns3::TcpSocketBase::ClockGranularity", "1ms"),      # G of RFC 6298
    ("ns3::TcpSocket::TcpNoDelay", "true"),
    ("ns3::TcpSocket::InitialSlowStartThreshold", "4294967295"),
    ("ns3::TcpSocket::SndBufSize", str(SOCKET_BUFFER_BYTES)),  # never sender-buffer limited
    ("ns3::TcpL4Protocol::RttEstimatorType", "ns3::RttMeanDeviation"),  # RFC 6298, gains 1/8, 1/4
    ("ns3::RttMeanDeviation::Alpha", "0.125"),
    ("ns3::RttMeanDeviation::Beta", "0.25"),
    # Linux pacing (tcp_update_pacing_rate), as pinchpoint's `tcp.pacing`: 2x cwnd/srtt below
    # ssthresh/2, 1.2x above; the initial window leaves unpaced.
    ("ns3::TcpSocketState::PaceInitialWindow", "false"),
    ("ns3::TcpSocketState::PacingSsRatio", "200"),
    ("ns3::TcpSocketState::PacingCaRatio", "120"),
    ("ns3::Ipv4::StrongEndSystemModel", "true"),          # cheaper local delivery; no effect on results
]

_NODE_KEYS = {"name", "kind"}
_LINK_KEYS = {"a", "b", "rate", "delay", "rate_ba", "queue", "queue_ab", "queue_ba", "hooks", "hooks_ab", "hooks_ba",
              "loss"}
_FLOW_KEYS = {"name", "src", "dst", "transport", "start", "workload", "cc", "tcp", "shaper", "priority",
              "start_jitter", "group"}
_TCP_KEYS = {"mss", "header_bytes", "ack_bytes", "init_cwnd_pkts", "min_rto", "initial_rto", "max_rto",
             "delayed_ack", "delayed_ack_timeout", "max_window", "receiver", "ecn", "dupack_threshold", "sack",
             "packets_per_segment", "recovery", "prr", "dsack", "undo", "frto", "pacing", "handshake", "ect_on_syn", "syn_retries",
             "slow_start_after_idle"}


class CrossvalUnsupported(ValueError):
    """The scenario uses something outside the ns-3 cross-validation subset."""


def _quantity(value: Any, kind: str) -> float:
    """A number in base units from a bare number or a string with a unit of ``kind``."""
    if isinstance(value, bool):
        raise ValueError(f"expected a {kind}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    q = _parse_unit(value)
    if q is None or q[0] != kind:
        raise ValueError(f"expected a {kind}, got {value!r}")
    return q[1]


def parse_rate(value: Any) -> float:
    """Bits per second from ``"10000000bps"`` (canonical), ``"10Mbps"`` or a number."""
    return _quantity(value, "rate")


def parse_time(value: Any) -> float:
    """Seconds from ``"1000000000ps"`` (canonical), ``"10ms"`` or a number."""
    return _quantity(value, "duration")


def parse_size(value: Any) -> int:
    """Bytes from ``"1500B"`` (canonical), ``"64KB"``/``"64KiB"`` or a number."""
    return int(round(_quantity(value, "size")))


def _bool(v: Any) -> str:
    return "true" if v else "false"


def _seconds(s: float) -> str:
    """An ns-3 Time string, exact to the picosecond."""
    return f"{int(round(s * 1e12))}ps"


class _Translator:
    def __init__(self, scenario: dict, origin: str):
        self.sc, self.origin = scenario, origin
        self.caveats: list[str] = []
        #: Fields of the ce_threshold hooks translated (each becomes a step-marking RedQueueDisc).
        self.step_marking: list[str] = []

    def no(self, field: str, why: str) -> CrossvalUnsupported:
        return CrossvalUnsupported(f"{self.origin}: {field}: {why}")

    def only(self, table: dict, allowed: set, field: str) -> None:
        extra = sorted(set(table) - allowed)
        if extra:
            raise self.no(f"{field}.{extra[0]}", "has no ns-3 counterpart in the cross-validation subset")

    def limit(self, field: str, eff: dict) -> str:
        """ns-3 QueueSize ("Np" / "NB") of the limit a queue runs with (``eff``: the engine's
        :func:`_native.queue_in_effect` of its table, the discipline's default filled in)."""
        pk, by = eff["limit_pkts"], eff["limit_bytes"]
        if pk is not None and by is not None:
            raise self.no(field, "limit_pkts and limit_bytes together; an ns-3 queue has one limit")
        return f"{by}B" if by is not None else f"{pk}p"

    def queue(self, field: str, q: Any, rate_bps: float, delay_s: float) -> tuple[str, dict | None]:
        """(ns-3 device queue MaxSize, queue disc or None) for one queue table (None: default).

        Drop-tail stays what it always was: the device's DropTailQueue, no flow control, no queue
        disc. An AQM becomes a traffic-control queue disc above a one-packet device queue with flow
        control, so the packets wait in the queue disc, where pinchpoint's port keeps them too."""
        if q is None:
            # No queue given: the port's default discipline, with the limit the engine gives it.
            return self.limit(field, _native.queue_in_effect(None)), None
        # The resolved form writes a bare name ("red") as a table with kind.
        if isinstance(q, str):
            q = {"kind": q}
        kind = q["kind"]
        if kind == "droptail":
            self.only(q, {"kind", "limit_pkts", "limit_bytes"}, field)
            return self.limit(field, _native.queue_in_effect(json.dumps(q))), None
        build = getattr(self, f"qdisc_{kind}", None)
        if build is None:
            raise self.no(f"{field}.kind", f"{kind!r} has no ns-3 counterpart here (expected one of droptail, "
                          f"{', '.join(QDISC_KINDS)})")
        self.only(q, QDISC_KEYS[kind], field)
        qd = build(field, q, _native.queue_in_effect(json.dumps(q)), rate_bps, delay_s)
        self.caveats.append(
            f"{field}: ns-3 runs the {QDISC_KINDS[kind]} above a {AQM_DEVICE_QUEUE} device queue (flow control "
            "on), so one packet can wait in the device below the AQM, which neither counts it nor times it; "
            "pinchpoint's port has no such queue (the AQM holds every waiting packet)")
        return AQM_DEVICE_QUEUE, qd

    def qdisc_red(self, field: str, q: dict, eff: dict, rate_bps: float, delay_s: float) -> dict:
        """ns-3's RedQueueDisc. It averages, counts and scales in bytes exactly when its MaxSize is
        in bytes; pinchpoint averages bytes when the thresholds are in bytes and counts and scales
        bytes when ``byte_mode`` is on, so only the two consistent combinations translate."""
        size = self.limit(field, eff)
        in_bytes = size.endswith("B")
        # The engine's thresholds: its defaults, or the fractions of the limit, already applied.
        min_th, max_th, th_bytes = float(eff["min_th"]), float(eff["max_th"]), bool(eff["th_in_bytes"])
        if th_bytes != in_bytes:
            raise self.no(f"{field}.{'limit_bytes' if in_bytes else 'limit_pkts'}",
                          "ns-3's RedQueueDisc measures its average in the unit of its limit; give the thresholds "
                          "and the limit in the same unit (both packets or both bytes)")
        if bool(q["byte_mode"]) != in_bytes:
            raise self.no(f"{field}.byte_mode", "ns-3's RedQueueDisc counts and scales by bytes exactly when its "
                          "limit is in bytes; set byte_mode = true with byte thresholds and limit, false with "
                          "packet ones")
        self.caveats.append(f"{field}: ns-3's RedQueueDisc keeps its count after forced and overflow drops "
                            "(pinchpoint and ns-2 restart it); its idle time starts when the queue disc is found "
                            "empty, pinchpoint's when the last packet has left the wire")
        return {"type": "ns3::RedQueueDisc", "attrs": {
            "MaxSize": size, "MinTh": repr(min_th), "MaxTh": repr(max_th),
            "QW": repr(float(q["w_q"])), "LInterm": repr(1.0 / float(q["max_p"])),
            "Gentle": _bool(q["gentle"]), "Wait": _bool(q["wait"]),
            "MeanPktSize": str(int(q["mean_pkt_bytes"])),
            # The idle-time correction counts packets the link could have sent: ns-3 reads the rate from
            # LinkBandwidth, not from the device. LinkDelay only feeds ARED's automatic settings.
            "LinkBandwidth": f"{int(round(rate_bps))}bps", "LinkDelay": _seconds(delay_s),
            "UseEcn": _bool(q["ecn"]), "UseHardDrop": "true",
            "ARED": "false", "AdaptMaxP": "false", "FengAdaptive": "false", "NLRED": "false",
            "Ns1Compat": "false"}}

    def codel_times(self, q: dict) -> dict:
        return {"Target": _seconds(parse_time(q["target"])), "Interval": _seconds(parse_time(q["interval"]))}

    def qdisc_codel(self, field: str, q: dict, eff: dict, rate_bps: float, delay_s: float) -> dict:
        if q["ecn"]:
            self.caveats.append(f"{field}.ecn: in the dropping state ns-3's CoDelQueueDisc schedules the mark after "
                                "a mark from now, pinchpoint (as Linux) from the previous due time")
        return {"type": "ns3::CoDelQueueDisc", "attrs": {
            "MaxSize": self.limit(field, eff), **self.codel_times(q),
            "MinBytes": str(int(q["mtu_bytes"])), "UseEcn": _bool(q["ecn"]), "UseL4s": "false"}}

    def qdisc_fq_codel(self, field: str, q: dict, eff: dict, rate_bps: float, delay_s: float) -> dict:
        if q.get("limit_bytes") is not None:
            raise self.no(f"{field}.limit_bytes", "ns-3's FqCoDelQueueDisc takes a limit in packets only")
        self.caveats.append(
            f"{field}: ns-3's FqCoDelQueueDisc hashes the 5-tuple (Perturbation 0), pinchpoint the flow id "
            "(hash_seed), so flows may share a queue on one side only; each ns-3 flow queue's CoDel tests "
            "MinBytes against its own backlog, pinchpoint's against the whole queue's (as Linux)")
        # The per-flow CoDel children take MinBytes from the attribute default (FqCoDel sets only
        # Target, Interval, MaxSize, UseEcn on them), hence the ns3_defaults entry.
        return {"type": "ns3::FqCoDelQueueDisc", "quantum": int(q["quantum_bytes"]),
                "ns3_defaults": {"ns3::CoDelQueueDisc::MinBytes": str(int(q["mtu_bytes"]))},
                "attrs": {"MaxSize": self.limit(field, eff), **self.codel_times(q),
                          "Flows": str(int(q["flows"])), "DropBatchSize": "1", "Perturbation": "0",
                          "UseEcn": _bool(q["ecn"]), "EnableSetAssociativeHash": "false", "UseL4s": "false"}}

    def qdisc_pie(self, field: str, q: dict, eff: dict, rate_bps: float, delay_s: float) -> dict:
        size = self.limit(field, eff)
        self.caveats.append(
            f"{field}: ns-3's PieQueueDisc grants the burst allowance from its own burst state machine "
            "(once, then again after 1.5 s quiet), pinchpoint refills it whenever p = 0 and both delays are "
            "below target/2 (RFC 8033 s4.4); ns-3 never drops early with at most 2 "
            + ("x MeanPktSize bytes queued and scales p by size / MeanPktSize (byte limit)"
               if size.endswith("B") else "packets queued (pinchpoint: 2 x mean_pkt_bytes)"))
        attrs = {"MaxSize": size, "QueueDelayReference": _seconds(parse_time(q["target"])),
                 "Tupdate": _seconds(parse_time(q["t_update"])),
                 "MaxBurstAllowance": _seconds(parse_time(q["max_burst"])),
                 "A": repr(float(q["alpha"])), "B": repr(float(q["beta"])),
                 "UseEcn": _bool(q["ecn"]), "MarkEcnThreshold": repr(float(q["mark_threshold"])),
                 "UseDerandomization": _bool(q["derandomize"]),
                 "MeanPktSize": str(int(q["mean_pkt_bytes"])),
                 # Timestamps, as pinchpoint (RFC 8033 s4.3); the s5.5 cap; always active (no s5.3 switch).
                 "UseDequeueRateEstimator": "false", "UseCapDropAdjustment": "true", "UseL4s": "false"}
        return {"type": "ns3::PieQueueDisc", "attrs": attrs}

    def port_hook(self, fld: str, d: str, l: dict) -> tuple[str, dict] | None:
        """(field, table) of the one ce_threshold hook on direction ``d`` of link ``l``, or None.
        A port's hooks are ``hooks`` (both directions) followed by ``hooks_<d>``."""
        named = [(f"{fld}.{key}[{k}]", h) for key in ("hooks", f"hooks_{d}") for k, h in enumerate(l.get(key) or [])]
        for field, h in named:
            if h["kind"] != "ce_threshold":
                raise self.no(f"{field}.kind", f"{h['kind']!r} has no ns-3 counterpart (only ce_threshold, as a "
                              "step-marking RedQueueDisc)")
        if len(named) > 1:
            raise self.no(named[1][0], "more than one hook on a port")
        return named[0] if named else None

    def step_marker(self, field: str, hook_field: str, hook: dict, q: Any, rate_bps: float,
                    delay_s: float) -> tuple[str, dict]:
        """A drop-tail port with a ce_threshold hook as (device queue, ns-3 RedQueueDisc).

        The hook marks every arrival that finds at least K packets waiting, before the drop-tail
        decides (docs/algorithms/ce_threshold.md); ns-3's DCTCP examples use RED with QW = 1 for
        this (examples/tcp/dctcp-example.cc). With QW = 1, MinTh = MaxTh and Gentle off,
        RedQueueDisc::DoEnqueue takes the average as the queue disc's count before the arrival and
        marks every arrival with that count >= MaxTh and > 1 as a "forced mark" (UseHardDrop off),
        dropping only a Not-ECT one. Whenever the queue disc holds a packet, the 1p device queue
        below it holds one too (the queue disc is stopped only when the device queue is full), so
        pinchpoint's waiting count is the queue disc's + 1: MinTh = MaxTh = K - 1 and MaxSize =
        limit - 1 mark and drop at exactly the same arrivals."""
        if isinstance(q, str):
            q = {"kind": q}
        if q is not None and q["kind"] != "droptail":
            raise self.no(f"{field}.kind", "a ce_threshold hook translates on a drop-tail queue only")
        if q is not None:
            self.only(q, {"kind", "limit_pkts", "limit_bytes"}, field)
        eff = _native.queue_in_effect(json.dumps(q) if q is not None else None)
        size = self.limit(field, eff)
        if size.endswith("B"):
            raise self.no(f"{field}.limit_bytes", "with a ce_threshold hook the limit must be in packets (ns-3's "
                          "RedQueueDisc counts its threshold in the unit of its limit)")
        limit, k = int(eff["limit_pkts"]), int(hook["threshold_pkts"])
        if k < 3:
            raise self.no(f"{hook_field}.threshold_pkts", "must be at least 3: ns-3's RedQueueDisc acts only with "
                          "more than one packet in the queue disc, i.e. 3 waiting with the device queue's")
        if limit < 2:
            raise self.no(f"{field}.limit_pkts", "must be at least 2 with a ce_threshold hook (one of them is the "
                          "ns-3 device queue's)")
        self.step_marking.append(hook_field)
        self.caveats.append(
            f"{hook_field}: ns-3 marks with a RedQueueDisc (QW 1, MinTh = MaxTh = threshold - 1 above the 1p device "
            "queue, so the same arrivals); it drops a Not-ECT packet it would mark, where pinchpoint's hook forwards it "
            "(hence DCTCP only, whose segments and ACKs are all ECT in ns-3; pinchpoint's ACKs are Not-ECT)")
        return AQM_DEVICE_QUEUE, {"type": "ns3::RedQueueDisc", "attrs": {
            "MaxSize": f"{limit - 1}p", "MinTh": repr(float(k - 1)), "MaxTh": repr(float(k - 1)),
            "QW": "1.0", "Gentle": "false", "UseEcn": "true", "UseHardDrop": "false",
            # Below MinTh nothing is decided, above it every arrival is forced: LInterm, Wait and
            # MeanPktSize never act (the idle decay multiplies by (1 - QW)^m = 0). Pinned anyway.
            "LInterm": "1.0", "Wait": "false", "MeanPktSize": "1500",
            "LinkBandwidth": f"{int(round(rate_bps))}bps", "LinkDelay": _seconds(delay_s),
            "ARED": "false", "AdaptMaxP": "false", "FengAdaptive": "false", "NLRED": "false",
            "Ns1Compat": "false"}}

    def link(self, i: int, l: dict) -> dict:
        fld = f"links[{i}]"
        if l.get("loss"):
            raise self.no(f"{fld}.loss", "random link loss is not mapped to an ns-3 error model")
        self.only(l, _LINK_KEYS, fld)
        q = {d: l.get(f"queue_{d}", l.get("queue")) for d in ("ab", "ba")}
        names = {d: f"{fld}.queue_{d}" if f"queue_{d}" in l else f"{fld}.queue" for d in ("ab", "ba")}
        rate, delay = parse_rate(l["rate"]), parse_time(l["delay"])
        rate_ba = parse_rate(l["rate_ba"]) if l.get("rate_ba") is not None else rate
        out = {"a": l["a"], "b": l["b"], "rate_bps": rate, "delay_s": delay, "rate_ba_bps": rate_ba}
        for d, r in (("ab", rate), ("ba", rate_ba)):
            hook = self.port_hook(fld, d, l)
            if hook is not None:
                out[f"queue_{d}"], out[f"qdisc_{d}"] = self.step_marker(names[d], hook[0], hook[1], q[d], r, delay)
            else:
                out[f"queue_{d}"], out[f"qdisc_{d}"] = self.queue(names[d], q[d], r, delay)
        return out

    def controller(self, fld: str, cc: Any) -> tuple[str, dict]:
        params = dict(cc) if isinstance(cc, dict) else {"kind": cc}
        kind = params.pop("kind", None)
        if kind not in CONTROLLERS:
            raise self.no(f"{fld}.cc", f"{kind!r} has no ns-3 counterpart here (expected one of "
                          f"{', '.join(CONTROLLERS)})")
        if kind == "reno":
            self.caveats.append(f"{fld}.cc: 'reno' runs as ns3::TcpNewReno (ns-3 has no separate Reno; with "
                                "SACK on, recovery is SACK-based on both sides anyway)")
        type_id, names = CONTROLLERS[kind]
        attrs = {f"{type_id}::{name}": value for name, value in CC_PINNED.get(kind, {}).items()}
        # The resolved form lists every parameter of the controller with its value, the defaults
        # included, so each is pinned on the ns-3 side and no ns-3 default stands in for ours.
        for key, value in sorted(params.items()):
            if key not in names:
                raise self.no(f"{fld}.cc.{key}", f"{type_id} has no attribute for it")
            if key == "hystart":
                if value not in (False, True, "hystart++", "linux"):
                    raise self.no(f"{fld}.cc.hystart", f"expected false, 'hystart++' or 'linux', got {value!r}")
                if value == "linux":
                    # tcp-cubic.cc HystartUpdate: the train fires at now - roundStart > delayMin
                    # and the delay test adds HystartDelayThresh(delayMin) = clamp(delayMin, 4, 16 ms).
                    self.caveats.append(
                        f"{fld}.cc.hystart: ns-3's TcpCubic HyStart has Linux's structure with two thresholds of "
                        "its own: its ACK train fires after the full minimum RTT (Linux and pinchpoint: half of it) "
                        "and its delay test at clamp(minRTT, 4 ms, 16 ms) above the minimum (Linux and pinchpoint: "
                        "clamp(minRTT / 8, ...)), so it leaves slow start later")
                elif value is not False:
                    self.caveats.append(
                        f"{fld}.cc.hystart: pinchpoint runs HyStart++ (RFC 9406), ns-3's TcpCubic runs Linux "
                        "HyStart (ACK train + delay increase, from 16 segments, exit straight to congestion "
                        "avoidance); set hystart = \"linux\" for the nearest, or false to compare like with like")
                value = value is not False
            if (kind, key) in CC_VALUES:
                value = CC_VALUES[(kind, key)](value)
            # ns-3 parses an Uinteger attribute from digits only ("1.0" is refused).
            attrs[f"{type_id}::{names[key]}"] = (str(value).lower() if isinstance(value, bool)
                                                 else str(value) if isinstance(value, int) else repr(float(value)))
        self.caveats.extend(CC_CAVEATS.get(kind, lambda f: [])(fld))
        return type_id, attrs

    def tcp_settings(self, fld: str, kind: str, t: dict) -> dict[str, str]:
        """``Config::SetDefault`` attributes for one flow's ``tcp`` table (plus the controller's)."""
        self.only(t, _TCP_KEYS, f"{fld}.tcp")
        for key, why in (("receiver", "receiver window policies are not supported (only the default: advertise "
                          "max_window)"), ("handshake", "ns-3 always opens with a "
                          "SYN exchange; the subset runs pinchpoint without one (data at the start time)"),
                         ("ect_on_syn", "needs handshake and ecn"),
                         ("slow_start_after_idle", "ns-3's TcpSocketBase has no window restart after idle (RFC 5681 "
                          "s4.1, Linux tcp_cwnd_restart): it keeps the window an idle flow had")):
            if t.get(key):
                raise self.no(f"{fld}.tcp.{key}", why)
        if t.get("syn_retries") is not None:
            raise self.no(f"{fld}.tcp.syn_retries", "needs handshake")
        if t.get("recovery") == "reno":
            raise self.no(f"{fld}.tcp.recovery", "'reno' (RFC 5681 fast recovery) has no ns-3 counterpart")
        if t.get("recovery") == "rack_tlp":
            # ns-3 3.44 has no RACK-TLP: its recovery algorithms are TcpClassicRecovery and
            # TcpPrrRecovery (tcp-recovery-ops.h, tcp-prr-recovery.h), both on the dupthresh rule.
            raise self.no(f"{fld}.tcp.recovery", "'rack_tlp' (RFC 8985 RACK-TLP) has no ns-3 3.44 counterpart: "
                          "ns-3 detects losses by the duplicate-acknowledgement threshold only (TcpClassicRecovery, "
                          "TcpPrrRecovery) and sends no tail loss probe")
        if int(t["packets_per_segment"]) != 1:
            raise self.no(f"{fld}.tcp.packets_per_segment", "must be 1 (ns-3 sends one packet per segment)")
        # sack, recovery and prr stay unset in the resolved form when not given; the engine's rules
        # decide them (sack on unless recovery is reno/newreno; PRR only in SACK recovery).
        rec = _native.tcp_in_effect(json.dumps(t))
        # BBR paces whatever tcp.pacing says, in pinchpoint (docs/algorithms/bbr.md) and in ns-3 (InitPacingRate).
        pacing = bool(t["pacing"]) or kind == "bbr"
        if abs(parse_time(t["max_rto"]) - NS3_MAX_RTO_S) > 1e-9:
            self.caveats.append(f"{fld}.tcp.max_rto: ns-3 caps the RTO at 60 s regardless")
        for k in ("header_bytes", "ack_bytes"):
            v = int(t[k])
            if v not in (NS3_IP_TCP_HEADER_BYTES, NS3_IP_TCP_HEADER_BYTES + PPP_HEADER_BYTES):
                self.caveats.append(f"{fld}.tcp.{k} = {v}: ns-3's is fixed at {NS3_IP_TCP_HEADER_BYTES} B "
                                    f"(IP+TCP+timestamps) + {PPP_HEADER_BYTES} B PPP framing")
        if kind == "newreno" and not rec["sack"]:
            # ns-3 3.44 tcp-socket-base.cc, ProcessAck: a new recovery when the ack reaches
            # m_recover (>=), and m_recover is forgotten once an ack reaches it; RFC 6582 s3.2
            # step 2 wants an ack above it. Seen with sack = false after a timeout: duplicates of
            # go-back-N's resends start recoveries of segments that were never lost.
            self.caveats.append(f"{fld}.tcp.sack = false: ns-3 starts a fast recovery on duplicate acks that "
                                "only reach `recover` (RFC 6582 s3.2 wants them above it), so after a timeout "
                                "duplicates of go-back-N's resends can cut its window again; pinchpoint follows the RFC")
        if kind == "newreno" and t.get("delayed_ack"):
            # ns-3 3.44 tcp-congestion-ops.cc, TcpNewReno::CongestionAvoidance: MSS^2 / cwnd per ack
            # whatever the ack covers.
            self.caveats.append(f"{fld}.tcp.delayed_ack: ns-3's NewReno grows by MSS^2/cwnd per ack whatever the ack "
                                "covers (about half a segment per RTT with an ack every second segment); pinchpoint "
                                "counts acknowledged bytes (RFC 3465, Linux): one segment per RTT")
        rto0 = _seconds(parse_time(t["initial_rto"]))
        return {
            "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpPrrRecovery" if rec["prr"] else "ns3::TcpClassicRecovery",
            "ns3::TcpSocket::SegmentSize": str(int(t["mss"])),
            "ns3::TcpSocket::InitialCwnd": str(int(t["init_cwnd_pkts"])),
            "ns3::TcpSocketBase::MinRto": _seconds(parse_time(t["min_rto"])),
            "ns3::RttEstimator::InitialEstimation": rto0,
            "ns3::TcpSocket::ConnTimeout": rto0,
            "ns3::TcpSocket::DelAckCount": "2" if t["delayed_ack"] else "1",
            "ns3::TcpSocket::DelAckTimeout": _seconds(parse_time(t["delayed_ack_timeout"])),
            "ns3::TcpSocketBase::Sack": _bool(rec["sack"]),
            "ns3::TcpSocketBase::ReTxThreshold": str(int(t["dupack_threshold"])),
            "ns3::TcpSocket::RcvBufSize": str(parse_size(t["max_window"]) if t.get("max_window") is not None
                                              else SOCKET_BUFFER_BYTES),
            "ns3::TcpSocketState::EnablePacing": "true" if pacing else "false",
            # RFC 3168 ECN (TcpSocketState's ClassicEcn mode, the only one NewReno/CUBIC use),
            # negotiated on ns-3's SYN exchange; pinchpoint's subset has no handshake and starts
            # ECN-capable.
            "ns3::TcpSocketBase::UseEcn": "On" if t["ecn"] else "Off",
        }

    def flow(self, i: int, f: dict, names: set) -> dict:
        fld = f"flows[{i}]"
        if f.get("shaper"):
            raise self.no(f"{fld}.shaper", "per-flow shapers are not supported")
        if int(f["priority"]) != 0:
            raise self.no(f"{fld}.priority", "priority classes are not supported")
        if f.get("start_jitter") is not None and parse_time(f["start_jitter"]) > 0:
            raise self.no(f"{fld}.start_jitter", "random start offsets are not supported")
        self.only(f, _FLOW_KEYS, fld)
        for end in ("src", "dst"):
            if f[end] not in names:
                raise self.no(f"{fld}.{end}", f"unknown node {f[end]!r}")
        transport = f["transport"]
        wl = f["workload"]
        kind, start = wl["kind"], parse_time(f["start"])
        out = {"name": f["name"], "src": f["src"], "dst": f["dst"], "transport": transport, "start_s": start,
               "workload": kind, "port": SINK_PORT_BASE + i}
        if transport == "tcp":
            if kind not in ("bulk", "file"):
                raise self.no(f"{fld}.workload.kind", f"{kind!r} over TCP is not supported (bulk, file)")
            out["max_bytes"] = parse_size(wl["size"]) if kind == "file" else 0
            # An absent cc stays absent in the resolved form: the engine names the controller it runs.
            cc = f["cc"] if f.get("cc") is not None else json.loads(_native.default_cc())
            out["cc"], cc_attrs = self.controller(fld, cc)
            out["ns3_defaults"] = {"ns3::TcpL4Protocol::SocketType": out["cc"], **cc_attrs,
                                   **self.tcp_settings(fld, out["cc"].removeprefix("ns3::Tcp").lower(),
                                                       dict(f["tcp"]))}
        elif transport == "udp":
            if kind not in ("cbr", "poisson"):
                raise self.no(f"{fld}.workload.kind", f"{kind!r} over UDP is not supported (cbr, poisson)")
            size = parse_size(wl["packet_size"])
            if size < IP_UDP_HEADER_BYTES + 12:
                raise self.no(f"{fld}.workload.packet_size", f"must be at least {IP_UDP_HEADER_BYTES + 12} B "
                              "(IP + UDP + UdpClient's 12-byte sequence header)")
            rate = parse_rate(wl["rate"])
            out.update(packet_size=size, rate_bps=rate, interval_s=size * 8.0 / rate,
                       stop_s=(start + parse_time(wl["duration"])) if wl.get("duration") is not None else None)
        else:
            raise self.no(f"{fld}.transport", f"expected tcp or udp, got {transport!r}")
        return out

    def plan(self) -> dict:
        sc = self.sc
        sim = sc["simulation"]
        if sim["routing"] != "hops":
            raise self.no("simulation.routing", "only 'hops' (ns-3 global routing by hop count)")
        for key, why in (("routes", "explicit or timed routes are not supported"),
                         ("arrivals", "flow arrival processes are not supported")):
            if sc.get(key):
                raise self.no(key, why)
        nodes = []
        for i, n in enumerate(sc.get("nodes", [])):
            self.only(n, _NODE_KEYS, f"nodes[{i}]")
            if n["kind"] not in ("host", "router"):
                raise self.no(f"nodes[{i}].kind", f"expected host or router, got {n['kind']!r}")
            nodes.append({"name": n["name"]})
        names = {n["name"] for n in nodes}
        links = [self.link(i, l) for i, l in enumerate(sc.get("links", []))]
        flows = [self.flow(i, f, names) for i, f in enumerate(sc.get("flows", []))]
        # Config::SetDefault applies to every socket at once: the TCP flows must agree.
        tcp = [(i, f) for i, f in enumerate(flows) if f["transport"] == "tcp"]
        defaults: dict[str, str] = dict(BASELINE)
        cc_types = {t for t, _ in CONTROLLERS.values()} | {"ns3::TcpL4Protocol"}
        for i, f in tcp:
            if f["ns3_defaults"] != tcp[0][1]["ns3_defaults"]:
                diff = sorted(k for k in set(f["ns3_defaults"]) | set(tcp[0][1]["ns3_defaults"])
                              if f["ns3_defaults"].get(k) != tcp[0][1]["ns3_defaults"].get(k))
                table = "cc" if any(k.rsplit("::", 1)[0] in cc_types and "Recovery" not in k for k in diff) else "tcp"
                raise self.no(f"flows[{i}].{table}", f"differs from flows[{tcp[0][0]}] ({', '.join(diff)}); the ns-3 "
                              "side sets TCP attributes for every socket at once (Config::SetDefault)")
        if tcp:
            defaults.update(tcp[0][1]["ns3_defaults"])
        if self.step_marking:
            # The step-marking RedQueueDisc drops a Not-ECT packet it would mark; pinchpoint's hook
            # forwards it. Only DCTCP sends nothing Not-ECT in ns-3 (ECN_RESTRICTION_MAP in
            # tcp-socket-base.cc: data, retransmissions and pure ACKs ECT in DctcpEcn mode).
            for i, f in enumerate(flows):
                if f["transport"] != "tcp" or f["cc"] != "ns3::TcpDctcp":
                    raise self.no(f"flows[{i}].{'cc' if f['transport'] == 'tcp' else 'transport'}",
                                  f"{self.step_marking[0]} needs every flow to be DCTCP: ns-3's step marker drops "
                                  "the Not-ECT packets (classic ECN retransmissions and ACKs, UDP) that pinchpoint's "
                                  "hook forwards")
        for i, l in enumerate(links):
            for d in ("ab", "ba"):
                qd = l[f"qdisc_{d}"]
                for k, v in (qd or {}).pop("ns3_defaults", {}).items():
                    if defaults.setdefault(k, v) != v:
                        raise self.no(f"links[{i}].queue", f"needs {k} = {v}, another queue {defaults[k]} (one "
                                      "attribute default for every queue of that type)")
        for _, f in tcp:
            del f["ns3_defaults"]
        stop = bool(sim["stop_when_done"]) and any(f.get("max_bytes", 0) > 0 for f in flows)
        return {"origin": self.origin, "duration_s": parse_time(sim["duration"]), "stop_when_done": stop,
                "nodes": nodes, "links": links, "flows": flows, "ns3_defaults": defaults,
                "caveats": list(dict.fromkeys(self.caveats)), "flow_monitor": True, "sample_s": 0.01}


def resolve(scenario: dict, origin: str = "scenario") -> dict:
    """``scenario`` as the engine resolves it: validated, units canonical, every default the
    resolved form carries written out. Raises ``ScenarioError`` for a scenario pinchpoint
    itself refuses (there is nothing to cross-check)."""
    from .. import api
    from ..scenario import Scenario

    return tomllib.loads(api.validate(Scenario.from_dict(scenario, origin=origin)))


def translate(scenario: dict, origin: str = "scenario") -> dict:
    """Check a scenario dict against the ns-3 subset and return the plan the ns-3 worker builds.
    The translator reads the scenario :func:`resolve` gives, so pinchpoint's defaults are the
    engine's own. Raises :class:`CrossvalUnsupported` ("ORIGIN: FIELD: why") for anything
    outside the subset, ``ScenarioError`` for an invalid scenario."""
    return _Translator(resolve(scenario, origin), origin).plan()


def translate_file(path: str | Path) -> dict:
    """Validate ``path`` with pinchpoint (defaults resolved) and translate it."""
    from .. import api

    return _Translator(tomllib.loads(api.validate(path)), Path(path).name).plan()
