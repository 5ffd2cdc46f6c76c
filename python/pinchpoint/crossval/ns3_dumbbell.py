"""ns-3 reference side of the "dumbbell-N" cross-validation benchmark.

Scenario (identical on both simulators)::

    S_1 --1G,1ms--+                          +--1G,1ms-- R_1
    S_2 --1G,1ms--+                          +--1G,1ms-- R_2
     ...          A ===100M,10ms, 100p DT=== B           ...
    S_N --1G,1ms--+                          +--1G,1ms-- R_N

One TCP NewReno bulk flow S_i -> R_i per sender, all starting at t=0,
running for ``sim_s`` simulated seconds.  The bottleneck is A's device
toward B (100 Mbit/s, 10 ms, 100-packet drop-tail queue).  Minimum RTT is
2 * (1 + 10 + 1) ms = 24 ms plus serialisation.

This module uses the ns-3 3.44 Python bindings (PyPI package ``ns3``,
cppyy based).  Importing them takes ~10 s and loads a whole C++
interpreter, and ns-3 keeps global state (node list, attribute defaults,
simulator singleton), so :func:`run_dumbbell` always runs the simulation in
a fresh subprocess::

    python -m pinchpoint.crossval.ns3_dumbbell --n-flows N --sim-s S --json

Measurement rules (chosen so that ns-3 is timed as an expert would run it):

* Only ``Simulator.Run()`` is timed (``time.perf_counter``); building the
  topology, routing tables and the post-run bookkeeping are excluded.
* No FlowMonitor, no pcap/ascii tracing, no Python trace callbacks during
  the timed run.  Everything is read from counters that ns-3 maintains
  anyway (PacketSink byte counter, device queue counters).
* ``packet_hops`` = number of link transmissions started on any
  point-to-point device (data and ACKs, both directions, every link).  It is
  derived after the run from each device's transmit-queue counters:
  every packet a ``PointToPointNetDevice`` transmits goes through its queue
  (even when the line is idle it is enqueued and dequeued immediately), so
  ``dequeued = TotalReceived - NPackets(still queued) - DroppedAfterDequeue``
  equals the number of ``PhyTxBegin`` events.  A packet that is still being
  serialised (at most one per device) or still propagating when the
  simulation stops is counted, because its transmission has started.
  ``--check-hops`` re-runs with C++ (not Python) trace counters to confirm
  the equality; see :func:`_install_check_counters`.

The TCP configuration is in :data:`NS3_TCP_SETTINGS`, which is both the
documentation for the pinchpoint side (so it can mirror it) and the single
source the ns-3 run is configured from (every entry with an
``ns3_attribute`` is applied with ``Config::SetDefault``).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

# ---------------------------------------------------------------------------
# Scenario constants
# ---------------------------------------------------------------------------

ACCESS_RATE = "1Gbps"          # host <-> router links
ACCESS_DELAY = "1ms"
BOTTLENECK_RATE = "100Mbps"    # A -> B (and B -> A, which only carries ACKs)
BOTTLENECK_DELAY = "10ms"
QUEUE_LIMIT = "100p"           # every device queue, see NS3_TCP_SETTINGS
SINK_PORT = 5000

SEGMENT_SIZE = 1448                    # TCP payload bytes per full segment
SOCKET_BUFFER_BYTES = 64 * 1024 * 1024  # SndBufSize / RcvBufSize (64 MiB)

# Size of one application write of BulkSendApplication.  It only affects
# how the (virtual, zero-filled) payload is handed to TCP, never what goes
# on the wire: TCP cuts segments of SegmentSize from its send buffer.  The
# send buffer is 64 MiB and BulkSend keeps it full, so with the ns-3 default
# of 512 bytes it would hold ~131k Packet objects per flow, created inside
# the timed Run().  Measured at N=100, 10 simulated s (identical packet
# counts and drops in all cases): SendSize 512 -> 27.5 s wall, 5.4 GiB RSS;
# 1448 -> 9.6 s, 2.3 GiB; 65536 -> 5.8 s, 0.7 GiB.  A 64 KiB write keeps it
# at ~1k objects per flow; TcpTxBuffer then takes 1448-byte fragments off
# the front of the large packet, which is cheap for zero-filled payload.
APP_SEND_SIZE = 65536

# ---------------------------------------------------------------------------
# On-wire packet sizes used by ns-3 3.44 for this configuration
# (verified with --check-hops, which histograms the sizes seen at PhyTxBegin)
# ---------------------------------------------------------------------------

PPP_HEADER_BYTES = 2     # PointToPointNetDevice adds a 2-byte PPP header
IPV4_HEADER_BYTES = 20   # no IP options
# TCP header: 20 bytes + timestamp option (10 bytes) padded to a 4-byte
# boundary -> 32 bytes on every segment after the handshake (no SACK).
TCP_HEADER_BYTES = 32
DATA_PACKET_IP_BYTES = IPV4_HEADER_BYTES + TCP_HEADER_BYTES + SEGMENT_SIZE  # 1500
DATA_PACKET_WIRE_BYTES = DATA_PACKET_IP_BYTES + PPP_HEADER_BYTES            # 1502
ACK_PACKET_IP_BYTES = IPV4_HEADER_BYTES + TCP_HEADER_BYTES                  # 52
ACK_PACKET_WIRE_BYTES = ACK_PACKET_IP_BYTES + PPP_HEADER_BYTES              # 54
# SYN and SYN-ACK carry timestamp (10) + window scale (3) = 13 option bytes,
# padded to 16: 20 + 36 + 2 = 58 bytes on the wire.  ns-3 sends no MSS option.
SYN_PACKET_WIRE_BYTES = IPV4_HEADER_BYTES + 20 + 16 + PPP_HEADER_BYTES      # 58
# Serialisation time uses the full on-wire size (PPP header included):
# 1502 B at 100 Mbit/s = 120.16 us, 54 B = 4.32 us; no inter-frame gap.

# ---------------------------------------------------------------------------
# TCP / stack settings.  ``ns3_attribute`` + ``ns3_value`` are applied with
# Config::SetDefault (string form, parsed by the attribute's checker);
# ``value`` is the same setting in plain units for the pinchpoint side.
# Entries marked "(ns-3 default, set explicitly)" do not change ns-3's
# behaviour but are pinned so that a future default change cannot silently
# diverge from pinchpoint.
# ---------------------------------------------------------------------------

NS3_TCP_SETTINGS: dict[str, dict[str, Any]] = {
    # --- congestion control -------------------------------------------------
    "congestion_control": {
        "ns3_attribute": "ns3::TcpL4Protocol::SocketType",
        "ns3_value": "ns3::TcpNewReno",
        "value": "newreno",
        "description": (
            "TCP NewReno congestion control (ns-3 3.44 defaults to CUBIC, so "
            "it is set explicitly). ns-3 TcpNewReno: slow start cwnd += 1 MSS "
            "per ACK that acknowledges new data (not per byte; a cumulative "
            "ACK still adds only 1 MSS) while cwnd < ssthresh; congestion "
            "avoidance cwnd += max(1, MSS*MSS/cwnd) bytes (integer-truncated) "
            "per new ACK. Loss response: see 'recovery'."
        ),
    },
    "recovery": {
        "ns3_attribute": "ns3::TcpL4Protocol::RecoveryType",
        "ns3_value": "ns3::TcpClassicRecovery",
        "value": "classic_newreno_fast_recovery",
        "description": (
            "Classic NewReno fast recovery, not PRR (the 3.44 default). What "
            "ns-3 3.44 actually does without SACK (tcp-socket-base.cc): on the "
            "3rd dupACK ssthresh = max(2*MSS, (FlightSize + MSS)/2) (the lost "
            "head is counted as in flight), cwnd = ssthresh, the head is "
            "retransmitted, recover = highest sent seq. Window inflation is "
            "done by 'Reno SACK' emulation: every dupACK (the first 3 too) "
            "marks one more segment as having left the network, lowering the "
            "in-flight estimate by 1 MSS; new data goes out while in-flight < "
            "cwnd (= classic inflation by 1 MSS per dupACK). A partial ACK "
            "retransmits the next unacked segment and stays in recovery; only "
            "the FIRST partial ACK re-arms the RTO timer ('impatient' "
            "variant). An ACK >= recover exits with cwnd = ssthresh. RTO: "
            "ssthresh = max(2*MSS, FlightSize/2), cwnd = 1 MSS, everything "
            "outstanding marked lost (go-back-N via slow start), RTO doubled "
            "(cap 60 s), dupACKs ignored until recover is acked."
        ),
    },
    "dupack_threshold": {
        "ns3_attribute": "ns3::TcpSocketBase::ReTxThreshold",
        "ns3_value": "3",
        "value": 3,
        "description": "Fast retransmit after 3 duplicate ACKs (ns-3 default, set explicitly).",
    },
    "limited_transmit": {
        "ns3_attribute": "ns3::TcpSocketBase::LimitedTransmit",
        "ns3_value": "true",
        "value": True,
        "description": (
            "RFC 3042 limited transmit: the first two dupACKs may each release "
            "one new segment (ns-3 default, set explicitly)."
        ),
    },
    "ecn": {
        "ns3_attribute": "ns3::TcpSocketBase::UseEcn",
        "ns3_value": "Off",
        "value": False,
        "description": "No ECN (ns-3 default, set explicitly); drop-tail queues never mark anyway.",
    },
    "pacing": {
        "ns3_attribute": "ns3::TcpSocketState::EnablePacing",
        "ns3_value": "false",
        "value": False,
        "description": "No pacing: segments leave back-to-back as the window allows (ns-3 default).",
    },
    # --- segment size and windows -------------------------------------------
    "segment_size": {
        "ns3_attribute": "ns3::TcpSocket::SegmentSize",
        "ns3_value": str(SEGMENT_SIZE),
        "value": SEGMENT_SIZE,
        "description": (
            "MSS = 1448 payload bytes. In ns-3 SegmentSize is the payload per "
            "segment; options come on top, so a full data packet is 1500 B of "
            "IP (20 IP + 32 TCP incl. timestamps + 1448)."
        ),
    },
    "initial_cwnd": {
        "ns3_attribute": "ns3::TcpSocket::InitialCwnd",
        "ns3_value": "10",
        "value": 10,
        "description": "Initial congestion window: 10 segments (RFC 6928).",
    },
    "initial_ssthresh": {
        "ns3_attribute": "ns3::TcpSocket::InitialSlowStartThreshold",
        "ns3_value": "4294967295",
        "value": 4294967295,
        "description": "Initial ssthresh effectively infinite (2^32-1 bytes, ns-3 default, set explicitly).",
    },
    "snd_buf_bytes": {
        "ns3_attribute": "ns3::TcpSocket::SndBufSize",
        "ns3_value": str(SOCKET_BUFFER_BYTES),
        "value": SOCKET_BUFFER_BYTES,
        "description": (
            "Send buffer 64 MiB: far above BDP + queue (~450 kB), so the "
            "sender is never buffer limited (the 128 KiB default would cap cwnd)."
        ),
    },
    "rcv_buf_bytes": {
        "ns3_attribute": "ns3::TcpSocket::RcvBufSize",
        "ns3_value": str(SOCKET_BUFFER_BYTES),
        "value": SOCKET_BUFFER_BYTES,
        "description": (
            "Receive buffer 64 MiB, so the advertised window never limits "
            "(PacketSink consumes data immediately). With window scaling ns-3 "
            "advertises it with shift 11."
        ),
    },
    "window_scaling": {
        "ns3_attribute": "ns3::TcpSocketBase::WindowScaling",
        "ns3_value": "true",
        "value": True,
        "description": "RFC 7323 window scaling on (needed for windows > 64 KiB).",
    },
    "max_window_field": {
        "ns3_attribute": "ns3::TcpSocketBase::MaxWindowSize",
        "ns3_value": "65535",
        "value": 65535,
        "description": "Largest unscaled 16-bit window field (ns-3 default, set explicitly).",
    },
    # --- options -------------------------------------------------------------
    "sack": {
        "ns3_attribute": "ns3::TcpSocketBase::Sack",
        "ns3_value": "true",
        "value": True,
        "description": (
            "SACK on (the ns-3 and Linux default), so loss recovery is SACK-based (RFC 6675) on "
            "both simulators. With SACK off, ns-3 3.44's NewReno falls into repeated timeouts "
            "and spurious fast retransmits after a slow-start overshoot (stale 'Reno SACK' "
            "dupACK marks are cleared only on a timeout, so its in-flight estimate collapses): "
            "one flow on this dumbbell gets 20.7 Mbit/s with 4611 drops, against 91.2 Mbit/s "
            "with 255 drops with SACK on. Comparing against that would copy an ns-3 flaw."
        ),
    },
    "timestamps": {
        "ns3_attribute": "ns3::TcpSocketBase::Timestamp",
        "ns3_value": "true",
        "value": True,
        "description": (
            "RFC 7323 timestamps on (ns-3 default): 12 option bytes (10 + "
            "padding) on every segment and ACK; RTT is sampled from the echoed "
            "timestamp on every ACK."
        ),
    },
    "tcp_no_delay": {
        "ns3_attribute": "ns3::TcpSocket::TcpNoDelay",
        "ns3_value": "true",
        "value": True,
        "description": "Nagle off (ns-3 default); irrelevant for a bulk sender, pinned anyway.",
    },
    # --- ACK policy -----------------------------------------------------------
    "del_ack_count": {
        "ns3_attribute": "ns3::TcpSocket::DelAckCount",
        "ns3_value": "1",
        "value": 1,
        "description": (
            "Receiver ACKs every segment immediately (ns-3 default is 2). "
            "Delayed ACKs are thus effectively off; out-of-order segments are "
            "always ACKed at once (dupACKs) in any case."
        ),
    },
    "del_ack_timeout": {
        "ns3_attribute": "ns3::TcpSocket::DelAckTimeout",
        "ns3_value": "200ms",
        "value": 0.2,
        "description": "Delayed-ACK timer (ns-3 default); never used with DelAckCount=1.",
    },
    # --- timers ----------------------------------------------------------------
    "min_rto": {
        "ns3_attribute": "ns3::TcpSocketBase::MinRto",
        "ns3_value": "200ms",
        "value": 0.2,
        "description": (
            "Minimum RTO 200 ms (Linux value; ns-3 default is 1 s). "
            "RTO = max(MinRto, SRTT + max(ClockGranularity, 4*RTTVAR)), doubled "
            "on each timeout (capped at 60 s)."
        ),
    },
    "clock_granularity": {
        "ns3_attribute": "ns3::TcpSocketBase::ClockGranularity",
        "ns3_value": "1ms",
        "value": 0.001,
        "description": "Clock granularity G = 1 ms in the RFC 6298 RTO formula (ns-3 default, set explicitly).",
    },
    "rtt_estimator": {
        "ns3_attribute": "ns3::TcpL4Protocol::RttEstimatorType",
        "ns3_value": "ns3::RttMeanDeviation",
        "value": "rfc6298",
        "description": "RFC 6298 SRTT/RTTVAR estimator (ns-3 default, set explicitly).",
    },
    "rtt_alpha": {
        "ns3_attribute": "ns3::RttMeanDeviation::Alpha",
        "ns3_value": "0.125",
        "value": 0.125,
        "description": "SRTT gain 1/8 (ns-3 default, set explicitly).",
    },
    "rtt_beta": {
        "ns3_attribute": "ns3::RttMeanDeviation::Beta",
        "ns3_value": "0.25",
        "value": 0.25,
        "description": "RTTVAR gain 1/4 (ns-3 default, set explicitly).",
    },
    "initial_rtt_estimate": {
        "ns3_attribute": "ns3::RttEstimator::InitialEstimation",
        "ns3_value": "1s",
        "value": 1.0,
        "description": "RTT estimate before the first sample (ns-3 default, set explicitly).",
    },
    "syn_timeout": {
        "ns3_attribute": "ns3::TcpSocket::ConnTimeout",
        "ns3_value": "3s",
        "value": 3.0,
        "description": "SYN retransmission timeout (ns-3 default); never fires here (no SYN loss expected).",
    },
    # --- IP layer -------------------------------------------------------------
    "strong_end_system_model": {
        # Exists in ns-3 3.44 on ns3::Ipv4 (inherited by Ipv4L3Protocol);
        # the older "WeakEsModel" is deprecated since 3.41.  Only applied if
        # the attribute exists (checked by introspection at run time).
        "ns3_attribute": "ns3::Ipv4::StrongEndSystemModel",
        "ns3_value": "true",
        "value": True,
        "description": (
            "RFC 1122 strong end-system model: a packet is accepted locally "
            "only for an address of the interface it arrived on (cheaper "
            "local-delivery check; no behavioural effect in this topology)."
        ),
    },
    # --- link layer / queues -------------------------------------------------
    "device_queue": {
        "ns3_attribute": "ns3::DropTailQueue<Packet>::MaxSize",
        "ns3_value": QUEUE_LIMIT,
        "value": 100,
        "description": (
            "Every PointToPointNetDevice (hosts, both routers, both directions) "
            "has a 100-packet drop-tail FIFO; the one on A toward B is the "
            "bottleneck. The limit counts queued packets only: the packet "
            "being serialised has left the queue, so up to 101 packets can be "
            "held at a device (100 waiting + 1 on the wire)."
        ),
    },
    "queue_disc": {
        "ns3_attribute": None,
        "ns3_value": None,
        "value": None,
        "description": (
            "No traffic-control queue disc anywhere and no device flow control: "
            "PointToPointHelper::DisableFlowControl() means no "
            "NetDeviceQueueInterface is aggregated, so Ipv4AddressHelper does "
            "not install the default FqCoDel and the TC layer hands packets "
            "straight to the device queue (verified after setup)."
        ),
    },
    "app_send_size": {
        "ns3_attribute": "ns3::BulkSendApplication::SendSize",
        "ns3_value": str(APP_SEND_SIZE),
        "value": APP_SEND_SIZE,
        "description": (
            "BulkSend write size (bytes); only affects simulator bookkeeping, "
            "not the wire (TCP segments at SegmentSize). MaxBytes=0 (unlimited)."
        ),
    },
    "wire_sizes": {
        "ns3_attribute": None,
        "ns3_value": None,
        "value": {
            "data_packet_wire_bytes": DATA_PACKET_WIRE_BYTES,
            "data_packet_ip_bytes": DATA_PACKET_IP_BYTES,
            "ack_packet_wire_bytes": ACK_PACKET_WIRE_BYTES,
            "ack_packet_ip_bytes": ACK_PACKET_IP_BYTES,
            "syn_packet_wire_bytes": SYN_PACKET_WIRE_BYTES,
            "ppp_header_bytes": PPP_HEADER_BYTES,
            "tcp_header_bytes": TCP_HEADER_BYTES,
        },
        "description": (
            "On-wire sizes (bytes, PPP header included, used for serialisation "
            "time): full data segment 1502 (IP 1500), pure ACK 54 (IP 52), "
            "SYN/SYN-ACK 58."
        ),
    },
}


# ---------------------------------------------------------------------------
# Subprocess front end (what the rest of pinchpoint calls)
# ---------------------------------------------------------------------------

def _package_parent_dir() -> str:
    """Directory that contains the ``pinchpoint`` package (for PYTHONPATH)."""
    here = os.path.dirname(os.path.abspath(__file__))       # .../pinchpoint/crossval
    return os.path.dirname(os.path.dirname(here))          # parent of pinchpoint


def _subprocess_env() -> dict[str, str]:
    env = dict(os.environ)
    parent = _package_parent_dir()
    old = env.get("PYTHONPATH", "")
    parts = [p for p in old.split(os.pathsep) if p]
    if parent not in parts:
        parts.insert(0, parent)
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """True if the ns-3 Python bindings (``from ns import ns``) import.

    Checked in a subprocess: importing ns loads cppyy/cling (~10 s, a few
    hundred MB) and we do not want that in the caller's process.  The result
    is cached.
    """
    import importlib.util

    if importlib.util.find_spec("ns") is None:
        return False
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "from ns import ns; ns.Simulator.Now()"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


_RESULT_KEYS = (
    "simulator", "n_flows", "sim_s", "wall_s", "packet_hops_per_s",
    "goodput_bps", "jain", "drops", "packet_hops", "per_flow_goodput_bps",
    "drops_other",
)


def run_dumbbell(n_flows: int, sim_s: float = 30.0) -> dict:
    """Run dumbbell-``n_flows`` in ns-3 (fresh subprocess) and return metrics.

    Keys: simulator ("ns3"), n_flows, sim_s, wall_s (seconds spent in
    Simulator::Run only), packet_hops_per_s, goodput_bps (aggregate payload
    bits/s over all receivers), jain (Jain's fairness of per-flow goodput),
    drops (packets dropped by the bottleneck queue), plus packet_hops,
    per_flow_goodput_bps (list, flow i = sender i -> receiver i) and
    drops_other (drops at any other device queue; expected 0).
    """
    if n_flows < 1:
        raise ValueError("n_flows must be >= 1")
    cmd = [
        sys.executable, "-m", "pinchpoint.crossval.ns3_dumbbell",
        "--n-flows", str(int(n_flows)), "--sim-s", repr(float(sim_s)), "--json",
    ]
    proc = subprocess.run(cmd, env=_subprocess_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(
            f"ns-3 dumbbell subprocess failed (rc={proc.returncode}):\n"
            f"{proc.stderr[-4000:]}"
        )
    # cppyy may print diagnostics; the result is the last JSON line.
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"no JSON result from ns-3 subprocess:\n{proc.stdout[-4000:]}")
    full = json.loads(lines[-1])
    return {k: full[k] for k in _RESULT_KEYS}


# ---------------------------------------------------------------------------
# In-process simulation (runs inside the subprocess)
# ---------------------------------------------------------------------------

def _has_attribute(ns: Any, full_name: str) -> bool:
    """Does ``ns3::Type::Attribute`` exist?  (Introspects the TypeId tree.)"""
    type_name, _, attr = full_name.rpartition("::")
    try:
        tid = ns.TypeId.LookupByName(type_name)
    except Exception:
        return False
    while True:
        for i in range(tid.GetAttributeN()):
            if tid.GetAttribute(i).name == attr:
                return True
        parent = tid.GetParent()
        if parent == tid:
            return False
        tid = parent


def _apply_settings(ns: Any) -> list[str]:
    """Config::SetDefault every setting; returns names skipped as absent."""
    skipped = []
    for entry in NS3_TCP_SETTINGS.values():
        name = entry["ns3_attribute"]
        if not name:
            continue
        if not _has_attribute(ns, name):
            skipped.append(name)
            continue
        # A StringValue is parsed by the attribute's own checker, so one code
        # path handles TypeId, Time, Uinteger, Boolean, Enum and QueueSize.
        ns.Config.SetDefault(name, ns.StringValue(entry["ns3_value"]))
    return skipped


def _install_check_counters(ns: Any) -> None:
    """Verification-only trace counters (C++, connected via Config paths).

    Used by ``--check-hops`` on small runs to validate the queue-counter
    definition of packet_hops, the on-wire sizes and the absence of drops
    outside device queues.  Never enabled by run_dumbbell().
    """
    ns.cppyy.cppdef(r"""
    #include <map>
    #include <sstream>
    namespace pinchpoint_check {
    using namespace ns3;
    uint64_t txBegin = 0, txEnd = 0, rxEnd = 0, macTxDrop = 0, phyTxDrop = 0,
             phyRxDrop = 0, ipDrop = 0, tcDrop = 0;
    std::map<uint32_t, uint64_t> txSizes;
    void TxBegin(Ptr<const Packet> p) { ++txBegin; ++txSizes[p->GetSize()]; }
    void TxEnd(Ptr<const Packet>) { ++txEnd; }
    void RxEnd(Ptr<const Packet>) { ++rxEnd; }
    void MacTxDrop(Ptr<const Packet>) { ++macTxDrop; }
    void PhyTxDrop(Ptr<const Packet>) { ++phyTxDrop; }
    void PhyRxDrop(Ptr<const Packet>) { ++phyRxDrop; }
    void TcDrop(Ptr<const Packet>) { ++tcDrop; }
    void IpDrop(const Ipv4Header&, Ptr<const Packet>, Ipv4L3Protocol::DropReason,
                Ptr<Ipv4>, uint32_t) { ++ipDrop; }
    void Connect() {
        const std::string dev = "/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/";
        Config::ConnectWithoutContext(dev + "PhyTxBegin", MakeCallback(&TxBegin));
        Config::ConnectWithoutContext(dev + "PhyTxEnd", MakeCallback(&TxEnd));
        Config::ConnectWithoutContext(dev + "PhyRxEnd", MakeCallback(&RxEnd));
        Config::ConnectWithoutContext(dev + "MacTxDrop", MakeCallback(&MacTxDrop));
        Config::ConnectWithoutContext(dev + "PhyTxDrop", MakeCallback(&PhyTxDrop));
        Config::ConnectWithoutContext(dev + "PhyRxDrop", MakeCallback(&PhyRxDrop));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::TrafficControlLayer/TcDrop",
                                      MakeCallback(&TcDrop));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Drop",
                                      MakeCallback(&IpDrop));
    }
    std::string Sizes() {
        std::ostringstream os;
        for (auto& kv : txSizes) os << kv.first << ":" << kv.second << " ";
        return os.str();
    }
    }  // namespace pinchpoint_check
    """)
    ns.cppyy.gbl.pinchpoint_check.Connect()


def _read_check_counters(ns: Any) -> dict:
    c = ns.cppyy.gbl.pinchpoint_check
    sizes = {}
    for tok in str(c.Sizes()).split():
        k, v = tok.split(":")
        sizes[int(k)] = int(v)
    return {
        "trace_phy_tx_begin": int(c.txBegin),
        "trace_phy_tx_end": int(c.txEnd),
        "trace_phy_rx_end": int(c.rxEnd),
        "trace_mac_tx_drop": int(c.macTxDrop),
        "trace_phy_tx_drop": int(c.phyTxDrop),
        "trace_phy_rx_drop": int(c.phyRxDrop),
        "trace_ipv4_drop": int(c.ipDrop),
        "trace_tc_drop": int(c.tcDrop),
        "tx_size_histogram_wire_bytes": sizes,
    }


def _verify_sockets(ns: Any, bulk_app: Any, sink_app: Any) -> None:
    """Check that the TCP sockets really carry the configured attributes.

    Compares each TcpSocket/TcpSocketBase attribute of the first flow's
    sender and (accepted) receiver socket with the configured default, and
    the congestion-control / recovery classes.  Cheap, done after the run.
    """
    sockets = [bulk_app.GetSocket()]
    sockets.extend(list(sink_app.GetAcceptedSockets()))
    for sock in sockets:
        for entry in NS3_TCP_SETTINGS.values():
            name = entry["ns3_attribute"] or ""
            type_name, _, attr = name.rpartition("::")
            if type_name not in ("ns3::TcpSocket", "ns3::TcpSocketBase"):
                continue
            # Expected value: the (SetDefault-modified) initial value,
            # serialised by the same checker as the socket's current value.
            tid = ns.TypeId.LookupByName(type_name)
            info = None
            for i in range(tid.GetAttributeN()):
                if tid.GetAttribute(i).name == attr:
                    info = tid.GetAttribute(i)
                    break
            if info is None or not info.accessor.HasGetter():
                continue  # e.g. UseEcn is set-only in 3.44
            want = info.initialValue.SerializeToString(info.checker)
            got = ns.StringValue()
            sock.GetAttribute(attr, got)
            if got.Get() != want:
                raise RuntimeError(f"socket attribute {name}: got {got.Get()}, want {want}")
        for attr, want in (("CongestionOps", "ns3::TcpNewReno"),
                           ("RecoveryOps", "ns3::TcpClassicRecovery")):
            pv = ns.PointerValue()
            sock.GetAttribute(attr, pv)
            got = str(pv.GetObject().GetInstanceTypeId().GetName())
            if got != want:
                raise RuntimeError(f"socket {attr}: got {got}, want {want}")


def _simulate(n_flows: int, sim_s: float, check_hops: bool = False) -> dict:
    """Build dumbbell-N, run it, return the metrics (in this process)."""
    t_setup0 = time.perf_counter()
    from ns import ns  # noqa: PLC0415  (slow import; only in the worker)

    skipped = _apply_settings(ns)

    # ---- nodes -------------------------------------------------------------
    senders = ns.NodeContainer()
    senders.Create(n_flows)
    receivers = ns.NodeContainer()
    receivers.Create(n_flows)
    routers = ns.NodeContainer()
    routers.Create(2)
    router_a, router_b = routers.Get(0), routers.Get(1)

    # ---- links ---------------------------------------------------------------
    def p2p_helper(rate: str, delay: str) -> Any:
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        h.SetChannelAttribute("Delay", ns.StringValue(delay))
        # Explicit 100-packet drop-tail device queue (also the SetDefault above).
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(QUEUE_LIMIT))
        # No NetDeviceQueueInterface => no flow control between IP and the
        # device, and Ipv4AddressHelper::Assign will not install the default
        # FqCoDel queue disc.  Packets go straight into the device queue and
        # overflow there (counted by the queue's drop counter).
        h.DisableFlowControl()
        return h

    access = p2p_helper(ACCESS_RATE, ACCESS_DELAY)
    bottleneck = p2p_helper(BOTTLENECK_RATE, BOTTLENECK_DELAY)

    # Device containers: index 0 is the first node passed to Install.
    bn_devs = bottleneck.Install(router_a, router_b)       # Get(0) = A -> B
    left_devs = [access.Install(senders.Get(i), router_a) for i in range(n_flows)]
    right_devs = [access.Install(router_b, receivers.Get(i)) for i in range(n_flows)]

    # ---- IP ------------------------------------------------------------------
    stack = ns.InternetStackHelper()
    stack.Install(senders)
    stack.Install(receivers)
    stack.Install(routers)

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))  # /30 per link
    addr.Assign(bn_devs)
    addr.NewNetwork()
    for d in left_devs:
        addr.Assign(d)
        addr.NewNetwork()
    recv_addrs = []
    for d in right_devs:
        ifc = addr.Assign(d)
        recv_addrs.append(ifc.GetAddress(1))                # receiver side
        addr.NewNetwork()

    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # Collect every point-to-point device once; verify no queue disc anywhere.
    all_containers = [bn_devs] + left_devs + right_devs
    p2p_devices = []
    for c in all_containers:
        for j in range(c.GetN()):
            dev = c.Get(j)
            tc = dev.GetNode().GetObject[ns.TrafficControlLayer]()
            if tc and tc.GetRootQueueDiscOnDevice(dev):
                # Should not happen with DisableFlowControl; remove to be safe.
                ns.TrafficControlHelper().Uninstall(dev)
            if tc and tc.GetRootQueueDiscOnDevice(dev):
                raise RuntimeError("queue disc still installed on a device")
            p2p_devices.append(ns.DynamicCast[ns.PointToPointNetDevice](dev))
    bottleneck_dev = p2p_devices[0]
    for dev in p2p_devices:
        if str(dev.GetQueue().GetMaxSize().GetValue()) != "100":
            raise RuntimeError("device queue is not 100 packets")

    # ---- applications ----------------------------------------------------------
    sink_helper = ns.PacketSinkHelper(
        "ns3::TcpSocketFactory",
        ns.InetSocketAddress(ns.Ipv4Address.GetAny(), SINK_PORT).ConvertTo(),
    )
    sink_apps = sink_helper.Install(receivers)
    sink_apps.Start(ns.Seconds(0.0))

    bulk_apps = ns.ApplicationContainer()
    for i in range(n_flows):
        bulk = ns.BulkSendHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(recv_addrs[i], SINK_PORT).ConvertTo(),
        )
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))          # unlimited
        bulk.SetAttribute("SendSize", ns.UintegerValue(APP_SEND_SIZE))
        bulk_apps.Add(bulk.Install(senders.Get(i)))
    bulk_apps.Start(ns.Seconds(0.0))

    if check_hops:
        _install_check_counters(ns)

    # ---- run (the only timed part) ---------------------------------------------
    ns.Simulator.Stop(ns.Seconds(sim_s))
    setup_s = time.perf_counter() - t_setup0
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0

    # ---- metrics -----------------------------------------------------------------
    per_flow = []
    for i in range(n_flows):
        sink = ns.DynamicCast[ns.PacketSink](sink_apps.Get(i))
        per_flow.append(int(sink.GetTotalRx()) * 8.0 / sim_s)
    total = sum(per_flow)
    sq = sum(x * x for x in per_flow)
    jain = (total * total) / (n_flows * sq) if sq > 0 else 0.0

    packet_hops = 0
    drops_bottleneck = 0
    drops_other = 0
    for k, dev in enumerate(p2p_devices):
        q = dev.GetQueue()
        # Every transmitted packet was enqueued and dequeued; what is still
        # queued or was dropped after dequeue never started transmission.
        packet_hops += (int(q.GetTotalReceivedPackets()) - int(q.GetNPackets())
                        - int(q.GetTotalDroppedPacketsAfterDequeue()))
        if k == 0:
            drops_bottleneck = int(q.GetTotalDroppedPackets())
        else:
            drops_other += int(q.GetTotalDroppedPackets())

    _verify_sockets(ns, ns.DynamicCast[ns.BulkSendApplication](bulk_apps.Get(0)),
                    ns.DynamicCast[ns.PacketSink](sink_apps.Get(0)))

    result = {
        "simulator": "ns3",
        "n_flows": n_flows,
        "sim_s": sim_s,
        "wall_s": wall,
        "packet_hops_per_s": packet_hops / wall if wall > 0 else 0.0,
        "goodput_bps": total,
        "jain": jain,
        "drops": drops_bottleneck,
        "packet_hops": packet_hops,
        "per_flow_goodput_bps": per_flow,
        "drops_other": drops_other,
        # Diagnostics, dropped by run_dumbbell().
        "diag": {
            "setup_s": setup_s,
            "max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
            "bottleneck_queue_len_at_end": int(bottleneck_dev.GetQueue().GetNPackets()),
            "skipped_absent_attributes": skipped,
            "scheduler": _global_value(ns, "SchedulerType"),
        },
    }
    if check_hops:
        result["diag"].update(_read_check_counters(ns))
    ns.Simulator.Destroy()
    return result


def _global_value(ns: Any, name: str) -> str:
    v = ns.StringValue()
    try:
        ns.GlobalValue.GetValueByName(name, v)
        return str(v.Get())
    except Exception:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ns-3 dumbbell-N benchmark (one run).")
    ap.add_argument("--n-flows", type=int, required=True)
    ap.add_argument("--sim-s", type=float, default=30.0)
    ap.add_argument("--json", action="store_true",
                    help="print exactly one JSON line (default: indented JSON)")
    ap.add_argument("--check-hops", action="store_true",
                    help="verification only: add C++ trace counters (slower; do not time)")
    args = ap.parse_args(argv)
    res = _simulate(args.n_flows, args.sim_s, check_hops=args.check_hops)
    text = json.dumps(res) if args.json else json.dumps(res, indent=2)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    # Skip interpreter teardown of cppyy/ns-3 (slow, and not needed).
    os._exit(0)


if __name__ == "__main__":
    main()
