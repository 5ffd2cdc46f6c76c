"""Run a pinchpoint scenario file in ns-3 too, and put the two results side by side.

``pinchpoint crossval FILE.toml`` is the front end.  Only a subset of the scenario format
has a faithful ns-3 counterpart; :func:`translate` checks a file against that subset and
raises :class:`CrossvalUnsupported` ("FILE: FIELD: why") for anything outside it.

Supported subset and its ns-3 mapping (ns-3 3.44, PyPI ``ns3``)
-------------------------------------------------------------

* ``nodes`` (host or router): one ``Node`` each, Internet stack on every node.
* ``links``: full-duplex ``PointToPointHelper`` links, ``rate`` -> DataRate, ``delay`` ->
  channel Delay, ``rate_ba`` -> DataRate of the b-side device.  Each link is its own /30.
  No traffic-control queue disc and no device flow control (``DisableFlowControl``), so
  packets overflow in the device queue as in pinchpoint's output port.
* ``queue`` / ``queue_ab`` / ``queue_ba``: ``droptail`` with ``limit_pkts`` (device queue
  MaxSize "Np") or ``limit_bytes`` ("NB"), not both; default 100 packets.
* ``simulation.routing = "hops"``: ``Ipv4GlobalRoutingHelper`` (shortest paths by hops; tie
  breaking between equal-length paths may differ from pinchpoint).
* TCP flows: ``cc = "newreno"`` -> ``TcpNewReno`` + ``TcpClassicRecovery`` (see
  ``ns3_dumbbell.NS3_TCP_SETTINGS``).  ``cc = "reno"`` is run as ``TcpNewReno`` too (ns-3
  has no separate Reno) and reported as a caveat.  Workload ``bulk`` -> ``BulkSend``
  MaxBytes 0; ``file`` -> MaxBytes = size.  ``start`` -> application start time.
* TCP settings (ns-3 sets them with ``Config::SetDefault``, i.e. for every socket, so every
  TCP flow of the file must use the same ``tcp`` table): ``mss`` -> SegmentSize,
  ``init_cwnd_pkts`` -> InitialCwnd, ``min_rto`` -> MinRto, ``initial_rto`` ->
  RttEstimator InitialEstimation and ConnTimeout (SYN timeout), ``delayed_ack`` ->
  DelAckCount 2 (else 1) with ``delayed_ack_timeout`` -> DelAckTimeout, ``sack`` -> Sack,
  ``max_window`` -> RcvBufSize (none: 64 MiB), ``dupack_threshold`` -> ReTxThreshold.
  ``max_rto``: ns-3 hard-codes 60 s; other values give a caveat.
* Header sizes: ns-3's are fixed: 52 B of IP + TCP (with timestamps) per data segment and
  per ACK, plus 2 B of PPP framing on the wire.  ``header_bytes`` / ``ack_bytes`` other than
  52 or 54 give a caveat.
* UDP flows: ``cbr`` -> ``UdpClient`` sending one datagram every packet_size*8/rate seconds,
  whose IP packet is ``packet_size`` bytes (UDP payload = packet_size - 28), stopped after
  ``duration``; received by a ``UdpServer``.  ``poisson`` -> a small C++ source (defined with
  cppyy, so still no Python per packet) sending the same datagrams with exponential gaps of
  mean packet_size*8/rate, received by a UDP ``PacketSink``.  Its random stream is ns-3's,
  not pinchpoint's, so the two runs see different (equally distributed) arrivals.

Refused: ``routes``, ``routing = "delay"``, hooks, queue kinds other than droptail, both
limits at once, ``receiver`` policies (only the default fixed window), ``shaper``,
``priority`` != 0, ``start_jitter``, ``ecn``, ``packets_per_segment`` != 1, ``cc = "none"``
or cc parameters, other workloads, TCP flows with different ``tcp`` tables.

Metrics on the ns-3 side (no Python code runs per packet)
---------------------------------------------------------

* ``goodput_bps``: TCP: ``PacketSink::GetTotalRx`` bytes; UDP: ``UdpServer::GetReceived``
  datagrams x packet_size (pinchpoint counts datagram bytes); over the flow's active time:
  start to completion for a completed file, else start to the end of the run.
* ``fct_s`` / completion (file flows): a file is complete when the sink has received
  ``size`` bytes; its completion time is FlowMonitor's ``timeLastRxPacket`` of the data
  direction, i.e. when the last data byte *arrived* (pinchpoint's fct runs to the ACK of the
  last byte, about half an RTT later).
* ``lost_pkts``: FlowMonitor's per-flow drop count (data direction).
* Port ``drops``: each device queue's ``GetTotalDroppedPackets``; port "a->b" is the device
  on ``a`` of the a-b link.
* ``wall_s``: ``Simulator::Run`` only.  FlowMonitor (C++ probes on every node) is installed,
  so ns-3's wall time is somewhat higher than a bare run.
* ``stop_when_done`` (with at least one file flow, as in pinchpoint): a C++ event polls the
  file sinks every 10 ms and stops the simulator once all have their bytes, so ns-3's run
  ends up to 10 ms after the last arrival (pinchpoint's at the ACK of the last byte).
  Otherwise ns-3 runs ``simulation.duration`` (or ``sim_s``).  ``seed`` is not mapped (the
  subset has no random element).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from . import ns3_dumbbell as _d

NS3_IP_TCP_HEADER_BYTES = _d.IPV4_HEADER_BYTES + _d.TCP_HEADER_BYTES   # 52
IP_UDP_HEADER_BYTES = 28
DEFAULT_QUEUE_PKTS = 100
SINK_PORT_BASE = 5000


class CrossvalUnsupported(ValueError):
    """The scenario uses something outside the ns-3 cross-validation subset."""


# ---------------------------------------------------------------------------
# Units of the resolved TOML ("10000000bps", "1000000000ps", "1500B"); bare numbers too.
# ---------------------------------------------------------------------------

_UNIT_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*$")
_RATE = {"bps": 1.0, "": 1.0, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
_TIME = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "": 1.0}
_SIZE = {"B": 1, "": 1, "KB": 1000, "MB": 10**6, "GB": 10**9, "KiB": 1024, "MiB": 1024**2,
         "GiB": 1024**3}


def _parse(value: Any, table: dict, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"expected a {what}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    m = _UNIT_RE.match(str(value))
    if not m or m.group(2) not in table:
        raise ValueError(f"expected a {what}, got {value!r}")
    return float(m.group(1)) * table[m.group(2)]


def parse_rate(value: Any) -> float:
    """Bits per second from ``"10000000bps"`` (canonical) or ``"10Mbps"`` or a number."""
    return _parse(value, _RATE, "rate")


def parse_time(value: Any) -> float:
    """Seconds from ``"1000000000ps"`` (canonical) or ``"10ms"`` or a number."""
    return _parse(value, _TIME, "duration")


def parse_size(value: Any) -> int:
    """Bytes from ``"1500B"`` (canonical) or ``"64KB"``/``"64KiB"`` or a number."""
    return int(round(_parse(value, _SIZE, "size")))


# ---------------------------------------------------------------------------
# Subset check and translation (pure Python; no ns-3 needed)
# ---------------------------------------------------------------------------

_TCP_KEYS = {"mss", "header_bytes", "ack_bytes", "init_cwnd_pkts", "min_rto", "initial_rto",
             "max_rto", "delayed_ack", "delayed_ack_timeout", "max_window", "receiver", "ecn",
             "dupack_threshold", "sack", "packets_per_segment", "recovery", "prr", "pacing"}


def _queue_limit(origin: str, field: str, q: Any) -> str:
    """ns-3 device queue MaxSize ("Np" / "NB") for one queue table (None: default)."""
    if q is None:
        return f"{DEFAULT_QUEUE_PKTS}p"
    if not isinstance(q, dict) or q.get("kind", "droptail") != "droptail":
        kind = q.get("kind") if isinstance(q, dict) else q
        raise CrossvalUnsupported(f"{origin}: {field}.kind: only 'droptail' maps to an ns-3 "
                                  f"device queue, got {kind!r}")
    extra = set(q) - {"kind", "limit_pkts", "limit_bytes"}
    if extra:
        raise CrossvalUnsupported(f"{origin}: {field}.{sorted(extra)[0]}: not supported")
    pk, by = q.get("limit_pkts"), q.get("limit_bytes")
    if pk is not None and by is not None:
        raise CrossvalUnsupported(f"{origin}: {field}: limit_pkts and limit_bytes together; an "
                                  "ns-3 DropTailQueue has one limit")
    if by is not None:
        return f"{parse_size(by)}B"
    return f"{int(pk) if pk is not None else DEFAULT_QUEUE_PKTS}p"


def translate(scenario: dict, origin: str = "scenario") -> dict:
    """Check a *resolved* scenario dict (defaults filled in) against the subset and return the
    plan the ns-3 worker builds: plain JSON-able data.  Raises :class:`CrossvalUnsupported`.

    ``scenario`` is ``tomllib.loads(pinchpoint.validate(path))``; a dict without defaults
    works too (missing fields take pinchpoint's defaults).
    """
    def no(field: str, why: str) -> CrossvalUnsupported:
        return CrossvalUnsupported(f"{origin}: {field}: {why}")

    caveats: list[str] = []
    sim = scenario.get("simulation", {})
    if sim.get("routing", "hops") != "hops":
        raise no("simulation.routing", "only 'hops' (ns-3 global routing by hop count)")
    if scenario.get("routes"):
        raise no("routes", "explicit or timed routes are not supported")
    duration = parse_time(sim.get("duration", 0))

    nodes = []
    names = set()
    for i, n in enumerate(scenario.get("nodes", [])):
        kind = n.get("kind", "host")
        if kind not in ("host", "router"):
            raise no(f"nodes[{i}].kind", f"expected host or router, got {kind!r}")
        nodes.append({"name": n["name"], "kind": kind})
        names.add(n["name"])

    links = []
    for i, l in enumerate(scenario.get("links", [])):
        for h in ("hooks", "hooks_ab", "hooks_ba"):
            if l.get(h):
                raise no(f"links[{i}].{h}", "port hooks (CE marking) are not supported")
        extra = set(l) - {"a", "b", "rate", "delay", "rate_ba", "queue", "queue_ab", "queue_ba",
                          "hooks", "hooks_ab", "hooks_ba"}
        if extra:
            raise no(f"links[{i}].{sorted(extra)[0]}", "not supported")
        base = l.get("queue")
        q_ab = _queue_limit(origin, f"links[{i}].queue_ab" if "queue_ab" in l else f"links[{i}].queue",
                            l.get("queue_ab", base))
        q_ba = _queue_limit(origin, f"links[{i}].queue_ba" if "queue_ba" in l else f"links[{i}].queue",
                            l.get("queue_ba", base))
        rate = parse_rate(l["rate"])
        links.append({
            "a": l["a"], "b": l["b"],
            "rate_bps": rate,
            "rate_ba_bps": parse_rate(l["rate_ba"]) if l.get("rate_ba") is not None else rate,
            "delay_s": parse_time(l["delay"]),
            "queue_ab": q_ab, "queue_ba": q_ba,
        })

    flows = []
    tcp_ref: tuple[int, dict] | None = None
    for i, f in enumerate(scenario.get("flows", [])):
        fld = f"flows[{i}]"
        if f.get("shaper"):
            raise no(f"{fld}.shaper", "per-flow shapers are not supported")
        if int(f.get("priority", 0)) != 0:
            raise no(f"{fld}.priority", "priority classes are not supported")
        if f.get("start_jitter") is not None and parse_time(f["start_jitter"]) > 0:
            raise no(f"{fld}.start_jitter", "random start offsets are not supported")
        transport = f.get("transport", "tcp")
        wl = f.get("workload", {"kind": "bulk"})
        if isinstance(wl, str):
            wl = {"kind": wl}
        kind = wl.get("kind")
        start = parse_time(f.get("start", 0))
        flow = {"name": f["name"], "src": f["src"], "dst": f["dst"], "transport": transport,
                "start_s": start, "workload": kind, "port": SINK_PORT_BASE + i}
        if transport == "tcp":
            if kind == "bulk":
                flow["max_bytes"] = 0
            elif kind == "file":
                flow["max_bytes"] = parse_size(wl["size"])
            else:
                raise no(f"{fld}.workload.kind", f"{kind!r} over TCP is not supported (bulk, file)")
            cc = f.get("cc", "newreno")
            if isinstance(cc, dict):
                if set(cc) - {"kind"}:
                    raise no(f"{fld}.cc.{sorted(set(cc) - {'kind'})[0]}", "cc parameters are not supported")
                cc = cc.get("kind")
            if cc == "reno":
                caveats.append(f"{fld}.cc: 'reno' runs as ns3::TcpNewReno (ns-3 has no separate "
                               "Reno; with SACK on, recovery is SACK-based on both sides anyway)")
            elif cc != "newreno":
                raise no(f"{fld}.cc", f"only newreno (and reno, run as NewReno) map to ns-3, got {cc!r}")
            tcp = dict(f.get("tcp", {}))
            extra = set(tcp) - _TCP_KEYS
            if extra:
                raise no(f"{fld}.tcp.{sorted(extra)[0]}", "not supported")
            if tcp.get("receiver") is not None:
                raise no(f"{fld}.tcp.receiver", "receiver window policies are not supported "
                         "(only the default: advertise max_window)")
            if tcp.get("ecn", False):
                raise no(f"{fld}.tcp.ecn", "ECN is not supported")
            if tcp.get("pacing", False):
                raise no(f"{fld}.tcp.pacing", "pacing is not mapped to ns-3")
            if tcp.get("recovery") == "reno":
                raise no(f"{fld}.tcp.recovery", "'reno' (RFC 5681 fast recovery) has no ns-3 counterpart")
            sack_on = tcp.get("sack", tcp.get("recovery") not in ("reno", "newreno"))
            if sack_on and tcp.get("prr", True):
                caveats.append(f"{fld}.tcp.prr: pinchpoint runs SACK recovery with PRR (the default); the "
                               "ns-3 side runs TcpClassicRecovery (set prr = false to compare like with like)")
            if int(tcp.get("packets_per_segment", 1)) != 1:
                raise no(f"{fld}.tcp.packets_per_segment", "must be 1 (ns-3 sends one packet per segment)")
            if tcp_ref is None:
                tcp_ref = (i, tcp)
            elif tcp != tcp_ref[1]:
                raise no(f"{fld}.tcp", f"differs from flows[{tcp_ref[0]}].tcp; the ns-3 side sets TCP "
                         "attributes for every socket at once (Config::SetDefault)")
        elif transport == "udp":
            if kind not in ("cbr", "poisson"):
                raise no(f"{fld}.workload.kind", f"{kind!r} over UDP is not supported (cbr, poisson)")
            size = parse_size(wl["packet_size"])
            if size < IP_UDP_HEADER_BYTES + 12:
                raise no(f"{fld}.workload.packet_size", f"must be at least {IP_UDP_HEADER_BYTES + 12} B "
                         "(IP + UDP + UdpClient's 12-byte sequence header)")
            rate = parse_rate(wl["rate"])
            flow["packet_size"] = size
            flow["interval_s"] = size * 8.0 / rate
            flow["rate_bps"] = rate
            flow["stop_s"] = (start + parse_time(wl["duration"])) if wl.get("duration") is not None else None
        else:
            raise no(f"{fld}.transport", f"expected tcp or udp, got {transport!r}")
        for end in ("src", "dst"):
            if flow[end] not in names:
                raise no(f"{fld}.{end}", f"unknown node {flow[end]!r}")
        flows.append(flow)

    settings: dict[str, str] = {}
    if tcp_ref is not None:
        t = tcp_ref[1]
        g = lambda k, d: t.get(k, d)  # noqa: E731
        mss = int(g("mss", 1448))
        settings = {
            "ns3::TcpSocket::SegmentSize": str(mss),
            "ns3::TcpSocket::InitialCwnd": str(int(g("init_cwnd_pkts", 10))),
            "ns3::TcpSocketBase::MinRto": f"{parse_time(g('min_rto', 0.2))}s",
            "ns3::RttEstimator::InitialEstimation": f"{parse_time(g('initial_rto', 1.0))}s",
            "ns3::TcpSocket::ConnTimeout": f"{parse_time(g('initial_rto', 1.0))}s",
            "ns3::TcpSocket::DelAckCount": "2" if g("delayed_ack", False) else "1",
            "ns3::TcpSocket::DelAckTimeout": f"{parse_time(g('delayed_ack_timeout', 0.04))}s",
            "ns3::TcpSocketBase::Sack": "true" if g("sack", True) else "false",
            "ns3::TcpSocketBase::ReTxThreshold": str(int(g("dupack_threshold", 3))),
        }
        if g("max_window", None) is not None:
            settings["ns3::TcpSocket::RcvBufSize"] = str(parse_size(t["max_window"]))
        if abs(parse_time(g("max_rto", 60.0)) - 60.0) > 1e-9:
            caveats.append(f"flows[{tcp_ref[0]}].tcp.max_rto: ns-3 caps the RTO at 60 s regardless")
        for k in ("header_bytes", "ack_bytes"):
            v = int(g(k, 52))
            if v not in (NS3_IP_TCP_HEADER_BYTES, NS3_IP_TCP_HEADER_BYTES + _d.PPP_HEADER_BYTES):
                caveats.append(f"flows[{tcp_ref[0]}].tcp.{k} = {v}: ns-3's is fixed at "
                               f"{NS3_IP_TCP_HEADER_BYTES} B (IP+TCP+timestamps) + 2 B PPP framing")
    stop = bool(sim.get("stop_when_done", True)) and any(
        f["transport"] == "tcp" and f["max_bytes"] > 0 for f in flows)
    return {"origin": origin, "duration_s": duration, "stop_when_done": stop, "nodes": nodes,
            "links": links, "flows": flows, "tcp_settings": settings, "caveats": caveats}


def translate_file(path: str | Path) -> dict:
    """Validate ``path`` with pinchpoint, resolve defaults, and :func:`translate` it."""
    from .. import api

    resolved = tomllib.loads(api.validate(path))
    return translate(resolved, origin=Path(path).name)


# ---------------------------------------------------------------------------
# Subprocess front end
# ---------------------------------------------------------------------------

def run_ns3(path: str | Path, sim_s: float | None = None) -> dict:
    """Run the scenario file in ns-3 (fresh subprocess); returns flows, ports, wall_s, ...

    Raises :class:`CrossvalUnsupported` (before starting ns-3) if the file is outside the
    subset.
    """
    plan = translate_file(path)
    if sim_s is not None:
        plan["duration_s"] = float(sim_s)
    cmd = [sys.executable, "-m", "pinchpoint.crossval.ns3_scenario", "--json"]
    proc = subprocess.run(cmd, input=json.dumps(plan), env=_d._subprocess_env(),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-3 scenario subprocess failed (rc={proc.returncode}):\n"
                           f"{proc.stderr[-4000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"no JSON result from ns-3 subprocess:\n{proc.stdout[-4000:]}")
    res = json.loads(lines[-1])
    res["caveats"] = plan["caveats"]
    return res


def _jain(xs: list[float]) -> float:
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if xs and sq > 0 else float("nan")


def _nan(x: Any) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def compare(path: str | Path, sim_s: float | None = None) -> dict:
    """Run ``path`` on both simulators; returns per-flow and per-port rows of both sides,
    Jain's index (over TCP flows' goodputs), aggregate goodput (all delivered bytes over the
    run) and the wall-time ratio.  Only ports with drops on either side are listed."""
    from .. import api

    plan = translate_file(path)          # refuse early, before either run
    res = api.run(path)
    ns3 = run_ns3(path, sim_s=sim_s)
    pp_flows = {r["flow"]: r for r in res.flows.to_dict("records")}
    flows = []
    for f in plan["flows"]:
        p, n = pp_flows[f["name"]], ns3["flows"][f["name"]]
        flows.append({
            "flow": f["name"], "transport": f["transport"], "workload": f["workload"],
            "pinchpoint": {"goodput_bps": float(p["goodput_bps"]), "fct_s": _nan(p["fct_s"]),
                           "lost_pkts": int(p["lost_pkts"]), "completed": bool(p["completed"]),
                           "delivered_bytes": int(p["delivered_bytes"])},
            "ns3": n,
        })
    pp_ports = {r["port"]: int(r["drops"]) for r in res.ports.to_dict("records")}
    ports = []
    for name, d in ns3["ports"].items():
        pd_ = pp_ports.get(name, 0)
        if d or pd_:
            ports.append({"port": name, "pinchpoint": {"drops": pd_}, "ns3": {"drops": d}})
    tcp = [f for f in flows if f["transport"] == "tcp"]
    summary = {}
    ends = {"pinchpoint": float(res.meta["end_time_s"]), "ns3": float(ns3["sim_s"])}
    for side in ("pinchpoint", "ns3"):
        summary[side] = {
            # All bytes delivered to receivers over the whole run (not the sum of per-flow
            # goodputs, whose active times differ).
            "aggregate_goodput_bps": sum(f[side]["delivered_bytes"] for f in flows) * 8.0 / ends[side],
            "jain_tcp": _jain([f[side]["goodput_bps"] for f in tcp]),
            "drops": sum(p[side]["drops"] for p in ports),
        }
    summary["pinchpoint"]["wall_s"] = float(res.meta["wall_s"])
    summary["pinchpoint"]["sim_end_s"] = ends["pinchpoint"]
    summary["ns3"]["wall_s"] = float(ns3["wall_s"])
    summary["ns3"]["sim_end_s"] = ends["ns3"]
    pw = summary["pinchpoint"]["wall_s"]
    return {
        "scenario": str(path), "flows": flows, "ports": ports, "summary": summary,
        "wall_ratio_ns3_over_pinchpoint": (summary["ns3"]["wall_s"] / pw) if pw > 0 else None,
        "caveats": plan["caveats"],
    }


# ---------------------------------------------------------------------------
# In-process simulation (runs inside the subprocess)
# ---------------------------------------------------------------------------

def _time_str(s: float) -> str:
    return f"{int(round(s * 1e12))}ps"


STOP_POLL_S = 0.01


def _install_stop_poller(ns: Any, files: list) -> None:
    """stop_when_done: a C++ event (no Python per event) checks every STOP_POLL_S whether every
    file sink has received its size and then stops the simulator.  So ns-3 stops up to 10 ms
    after the last file completes (pinchpoint stops at the ACK of the last byte); completion
    times themselves come from FlowMonitor and are exact."""
    ns.cppyy.cppdef(r"""
    #include <vector>
    namespace pinchpoint_xval {
    using namespace ns3;
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<uint64_t> sizes;
    double period = 0.01;
    void Poll() {
        for (size_t i = 0; i < sinks.size(); ++i) {
            if (sinks[i]->GetTotalRx() < sizes[i]) {
                Simulator::Schedule(Seconds(period), &Poll);
                return;
            }
        }
        Simulator::Stop();
    }
    void Add(Ptr<PacketSink> s, uint64_t size) { sinks.push_back(s); sizes.push_back(size); }
    void Start(double p) { period = p; Simulator::Schedule(Seconds(p), &Poll); }
    }  // namespace pinchpoint_xval
    """)
    g = ns.cppyy.gbl.pinchpoint_xval
    for sink, size in files:
        g.Add(sink, int(size))
    g.Start(STOP_POLL_S)


_POISSON_DEFINED = False


def _poisson_source(ns: Any, node: Any, dst: Any, f: dict) -> None:
    """A Poisson datagram source written in C++ (cppyy), so no Python runs per packet: a UDP
    socket sends a packet of packet_size - 28 payload bytes, then schedules the next after an
    exponential gap of mean packet_size*8/rate (its own RNG stream), until ``stop_s``."""
    global _POISSON_DEFINED
    if not _POISSON_DEFINED:
        ns.cppyy.cppdef(r"""
        #include <vector>
        namespace pinchpoint_poisson {
        using namespace ns3;
        struct Src { Ptr<Socket> sock; Ptr<ExponentialRandomVariable> gap; uint32_t payload; double stop; };
        std::vector<Src> srcs;
        void Send(size_t i) {
            Src& s = srcs[i];
            if (s.stop >= 0 && Simulator::Now().GetSeconds() >= s.stop) return;
            s.sock->Send(Create<Packet>(s.payload));
            Simulator::Schedule(Seconds(s.gap->GetValue()), &Send, i);
        }
        void Add(Ptr<Node> node, Ipv4Address dst, uint16_t port, uint32_t payload, double mean_gap,
                 double start, double stop, int64_t stream) {
            Ptr<Socket> sock = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
            sock->Bind();
            sock->Connect(InetSocketAddress(dst, port));
            Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
            gap->SetAttribute("Mean", DoubleValue(mean_gap));
            gap->SetStream(stream);
            srcs.push_back(Src{sock, gap, payload, stop});
            Simulator::Schedule(Seconds(start), &Send, srcs.size() - 1);
        }
        }  // namespace pinchpoint_poisson
        """)
        _POISSON_DEFINED = True
    stop = -1.0 if f["stop_s"] is None else float(f["stop_s"])
    ns.cppyy.gbl.pinchpoint_poisson.Add(node, dst, int(f["port"]), int(f["packet_size"] - IP_UDP_HEADER_BYTES),
                                        float(f["interval_s"]), float(f["start_s"]), stop, int(f["port"]))


def _simulate(plan: dict) -> dict:
    from ns import ns  # noqa: PLC0415  (slow import; only in the worker)

    _d._apply_settings(ns)               # dumbbell baseline: NewReno, classic recovery, ...
    for name, value in plan["tcp_settings"].items():
        ns.Config.SetDefault(name, ns.StringValue(value))

    all_nodes = ns.NodeContainer()
    all_nodes.Create(len(plan["nodes"]))
    node_of = {n["name"]: all_nodes.Get(i) for i, n in enumerate(plan["nodes"])}
    stack = ns.InternetStackHelper()
    stack.SetIpv6StackInstall(False)     # IPv4 only, as in pinchpoint (no IPv6 chatter)
    stack.Install(all_nodes)

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))
    devices = {}                         # "a->b" -> PointToPointNetDevice on a
    first_addr = {}                      # node name -> an address of it
    keep = []
    for l in plan["links"]:
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(round(l['rate_bps']))}bps"))
        h.SetChannelAttribute("Delay", ns.StringValue(_time_str(l["delay_s"])))
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(l["queue_ab"]))
        h.DisableFlowControl()
        devs = h.Install(node_of[l["a"]], node_of[l["b"]])
        keep.append(devs)
        dev_a = ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(0))
        dev_b = ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(1))
        dev_b.SetAttribute("DataRate", ns.StringValue(f"{int(round(l['rate_ba_bps']))}bps"))
        dev_b.GetQueue().SetAttribute("MaxSize", ns.StringValue(l["queue_ba"]))
        ifc = addr.Assign(devs)
        addr.NewNetwork()
        first_addr.setdefault(l["a"], ifc.GetAddress(0))
        first_addr.setdefault(l["b"], ifc.GetAddress(1))
        devices[f"{l['a']}->{l['b']}"] = dev_a
        devices[f"{l['b']}->{l['a']}"] = dev_b
    for dev in devices.values():
        tc = dev.GetNode().GetObject[ns.TrafficControlLayer]()
        if tc and tc.GetRootQueueDiscOnDevice(dev):
            ns.TrafficControlHelper().Uninstall(dev)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sinks = {}
    first_tcp = None
    for f in plan["flows"]:
        dst_addr = first_addr[f["dst"]]
        start = ns.Seconds(f["start_s"])
        if f["transport"] == "udp" and f["workload"] == "poisson":
            sh = ns.PacketSinkHelper("ns3::UdpSocketFactory",
                                     ns.InetSocketAddress(ns.Ipv4Address.GetAny(), f["port"]).ConvertTo())
            sink = sh.Install(node_of[f["dst"]])
            sink.Start(ns.Seconds(0.0))
            keep.append(sink)
            _poisson_source(ns, node_of[f["src"]], dst_addr, f)
            sinks[f["name"]] = ns.DynamicCast[ns.PacketSink](sink.Get(0))
            continue
        if f["transport"] == "tcp":
            sh = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                                     ns.InetSocketAddress(ns.Ipv4Address.GetAny(), f["port"]).ConvertTo())
            sink = sh.Install(node_of[f["dst"]])
            sink.Start(ns.Seconds(0.0))
            bulk = ns.BulkSendHelper("ns3::TcpSocketFactory",
                                     ns.InetSocketAddress(dst_addr, f["port"]).ConvertTo())
            bulk.SetAttribute("MaxBytes", ns.UintegerValue(int(f["max_bytes"])))
            bulk.SetAttribute("SendSize", ns.UintegerValue(_d.APP_SEND_SIZE))
            app = bulk.Install(node_of[f["src"]])
            app.Start(start)
            sinks[f["name"]] = ns.DynamicCast[ns.PacketSink](sink.Get(0))
            if first_tcp is None:
                first_tcp = (ns.DynamicCast[ns.BulkSendApplication](app.Get(0)), sinks[f["name"]])
        else:
            srv = ns.UdpServerHelper(f["port"]).Install(node_of[f["dst"]])
            srv.Start(ns.Seconds(0.0))
            ch = ns.UdpClientHelper(dst_addr.ConvertTo() if hasattr(dst_addr, "ConvertTo") else dst_addr,
                                    f["port"])
            ch.SetAttribute("MaxPackets", ns.UintegerValue(0xFFFFFFFF))
            ch.SetAttribute("Interval", ns.StringValue(_time_str(f["interval_s"])))
            ch.SetAttribute("PacketSize", ns.UintegerValue(f["packet_size"] - IP_UDP_HEADER_BYTES))
            app = ch.Install(node_of[f["src"]])
            app.Start(start)
            if f["stop_s"] is not None:
                app.Stop(ns.Seconds(f["stop_s"]))
            sinks[f["name"]] = ns.DynamicCast[ns.UdpServer](srv.Get(0))
        keep.append(app)

    use_fm = plan.get("flow_monitor", True)
    if use_fm:
        fmh = ns.FlowMonitorHelper()
        monitor = fmh.InstallAll()

    if plan.get("stop_when_done"):
        _install_stop_poller(ns, [(sinks[f["name"]], f["max_bytes"]) for f in plan["flows"]
                                  if f["transport"] == "tcp" and f["max_bytes"] > 0])
    ns.Simulator.Stop(ns.Seconds(float(plan["duration_s"])))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    sim_s = ns.Simulator.Now().GetSeconds()

    # FlowMonitor: data direction of each flow = (dst address, sink port).
    fm = {}
    if use_fm:
        monitor.CheckForLostPackets()
        classifier = ns.DynamicCast[ns.Ipv4FlowClassifier](fmh.GetClassifier())
    for item in (monitor.GetFlowStats() if use_fm else ()):
        t = classifier.FindFlow(item.first)
        st = item.second
        dropped = sum(int(x) for x in st.packetsDropped)
        fm[(str(t.destinationAddress), int(t.destinationPort))] = {
            "last_rx_s": st.timeLastRxPacket.GetSeconds(), "dropped": dropped,
            "tx_pkts": int(st.txPackets), "rx_pkts": int(st.rxPackets),
        }

    flows = {}
    for f in plan["flows"]:
        stats = fm.get((str(first_addr[f["dst"]]), f["port"]), {"last_rx_s": 0.0, "dropped": 0})
        start = f["start_s"]
        if f["transport"] == "tcp":
            rx = int(sinks[f["name"]].GetTotalRx())
            completed = f["max_bytes"] > 0 and rx >= f["max_bytes"]
        elif f["workload"] == "poisson":
            payload = f["packet_size"] - IP_UDP_HEADER_BYTES
            rx = int(sinks[f["name"]].GetTotalRx()) // payload * f["packet_size"]
            completed = False
        else:
            rx = int(sinks[f["name"]].GetReceived()) * f["packet_size"]
            completed = False
        end = stats["last_rx_s"] if (completed and use_fm) else sim_s
        active = end - start
        flows[f["name"]] = {
            "goodput_bps": rx * 8.0 / active if active > 0 else 0.0,
            "fct_s": (end - start) if (completed and use_fm) else None,
            "lost_pkts": stats["dropped"],
            "completed": completed,
            "delivered_bytes": rx,
        }
    ports = {name: int(dev.GetQueue().GetTotalDroppedPackets()) for name, dev in devices.items()}
    # The sockets of the first TCP flow really carry the configured attributes (every
    # NS3_TCP_SETTINGS attribute equals its default, which the plan's overrides set) and
    # TcpNewReno + TcpClassicRecovery.  Sockets exist only once the flow has started.
    if first_tcp is not None and first_tcp[0].GetSocket():
        _d._verify_sockets(ns, first_tcp[0], first_tcp[1])
    result = {"simulator": "ns3", "sim_s": sim_s, "wall_s": wall, "flows": flows, "ports": ports}
    ns.Simulator.Destroy()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run a translated scenario plan (JSON on stdin) in ns-3.")
    ap.add_argument("--json", action="store_true")
    ap.parse_args(argv)
    plan = json.loads(sys.stdin.read())
    res = _simulate(plan)
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
