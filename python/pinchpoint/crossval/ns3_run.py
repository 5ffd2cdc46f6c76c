"""Build and run a translated plan (:mod:`.translate`) in ns-3 3.44, in a fresh subprocess.

Importing the ns-3 bindings (PyPI ``ns3``, cppyy) takes ~10 s and loads a C++ interpreter, and ns-3
keeps global state (node list, attribute defaults, simulator singleton), so :func:`run_plan` starts
``python -m pinchpoint.crossval.ns3_run`` with the plan as JSON on stdin and reads one JSON line back.

No Python runs per packet: the probes below (window and retransmission counters, queue sampler,
stop poller, Poisson source) are C++ compiled by cppyy. Only ``Simulator::Run`` is timed.

* Goodput: ``PacketSink::GetTotalRx`` (TCP, Poisson) or ``UdpServer::GetReceived`` x packet_size
  (CBR) over the flow's active time (start to completion of a file, else to the end).
* ``fct_s`` / completion: a file is complete when its sink has ``size`` bytes; its completion
  time is FlowMonitor's ``timeLastRxPacket`` (arrival of the last data byte; pinchpoint's fct runs
  to the ACK of that byte, about half an RTT later). ``lost_pkts``: FlowMonitor's drops.
* ``retx_pkts``: data segments sent by the socket (``Tx`` trace) that end at or below the highest
  sequence already sent. ``cwnd_bytes``: the ``CongestionWindow`` trace, sampled every ``sample_s``.
* Ports: each device queue's ``GetTotalDroppedPackets``, plus, on a port with an AQM queue disc,
  the queue disc's ``nTotalDroppedPackets`` (``marks``: ``nTotalMarkedPackets``);
  ``queue_pkts_mean``/``max`` from ``GetNPackets`` of the device queue and the queue disc together,
  sampled every ``sample_s`` (a sampled, not time-weighted, mean). Port "a->b" is
  the device on a of the a-b link. ``packet_hops``: transmissions started on every device,
  ``TotalReceived - NPackets - DroppedAfterDequeue`` of its queue (every packet a
  PointToPointNetDevice sends passes through its queue).
* ``stop_when_done``: a C++ event checks the file sinks every 10 ms and stops the simulator.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from typing import Any

STOP_POLL_S = 0.01


def _subprocess_env() -> dict[str, str]:
    """The caller's environment with this package importable in the child."""
    env = dict(os.environ)
    parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([parent] + [p for p in parts if p != parent])
    return env


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """True if the ns-3 bindings import (checked once, in a subprocess: the import is heavy)."""
    import importlib.util

    if importlib.util.find_spec("ns") is None:
        return False
    try:
        proc = subprocess.run([sys.executable, "-c", "from ns import ns; ns.Simulator.Now()"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


def run_plan(plan: dict) -> dict:
    """Run a plan in ns-3 (fresh subprocess) and return its result dict."""
    proc = subprocess.run([sys.executable, "-m", "pinchpoint.crossval.ns3_run"], input=json.dumps(plan),
                          env=_subprocess_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-3 subprocess failed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]   # cppyy may print notes
    if not lines:
        raise RuntimeError(f"no JSON result from the ns-3 subprocess:\n{proc.stdout[-4000:]}")
    return json.loads(lines[-1])


_PROBES = r"""
#include <vector>
namespace pinchpoint_xval {
using namespace ns3;
struct FlowProbe { uint32_t cwnd = 0; uint64_t retx = 0; SequenceNumber32 high{0}; bool sent = false;
                   std::vector<uint32_t> cwnd_samples; };
std::vector<FlowProbe> flows;
std::vector<Ptr<Queue<Packet>>> queues;
std::vector<Ptr<QueueDisc>> qdiscs;                      // null where the port has none (drop-tail)
std::vector<double> qsum;
std::vector<uint32_t> qmax;
uint64_t nsamples = 0;
double period = 0.01;
void OnCwnd(size_t i, uint32_t, uint32_t now) { flows[i].cwnd = now; }
void OnTx(size_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (p->GetSize() == 0) return;                       // pure ACK, SYN
    FlowProbe& f = flows[i];
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (f.sent && end <= f.high) { ++f.retx; } else { f.high = end; f.sent = true; }
}
void Watch(size_t i, Ptr<Application> app) {
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    if (!s) return;
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
}
size_t AddFlow(Ptr<Application> app, double start) {
    flows.emplace_back();
    Simulator::Schedule(Seconds(start) + NanoSeconds(1), &Watch, flows.size() - 1, app);
    return flows.size() - 1;
}
void AddQueue(Ptr<Queue<Packet>> q, Ptr<QueueDisc> qd) {
    queues.push_back(q); qdiscs.push_back(qd); qsum.push_back(0); qmax.push_back(0);
}
// What PointToPointHelper does with flow control on, for one device only: the device queue stops
// its queue disc when full and wakes it when a packet leaves. The other device of the link keeps
// pinchpoint's drop-tail mapping (no interface, no queue disc).
void AttachQueueInterface(Ptr<PointToPointNetDevice> dev) {
    Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
    ndqi->GetTxQueue(0)->ConnectQueueTraces(dev->GetQueue());
    dev->AggregateObject(ndqi);
}
void SetQuantum(Ptr<QueueDisc> qd, uint32_t quantum) { DynamicCast<FqCoDelQueueDisc>(qd)->SetQuantum(quantum); }
void Sample() {
    for (size_t i = 0; i < queues.size(); ++i) {
        // Waiting packets: the queue disc's and the device queue's (the one on the wire is in neither).
        uint32_t n = queues[i]->GetNPackets() + (qdiscs[i] ? qdiscs[i]->GetNPackets() : 0);
        qsum[i] += n;
        qmax[i] = std::max(qmax[i], n);
    }
    for (auto& f : flows) f.cwnd_samples.push_back(f.cwnd);
    ++nsamples;
    Simulator::Schedule(Seconds(period), &Sample);
}
void StartSampling(double p) { period = p; Simulator::Schedule(Seconds(p), &Sample); }

std::vector<Ptr<PacketSink>> stop_sinks;
std::vector<uint64_t> stop_sizes;
void Poll(double p) {
    for (size_t i = 0; i < stop_sinks.size(); ++i)
        if (stop_sinks[i]->GetTotalRx() < stop_sizes[i]) { Simulator::Schedule(Seconds(p), &Poll, p); return; }
    Simulator::Stop();
}
void StopWhenDone(Ptr<PacketSink> s, uint64_t size) { stop_sinks.push_back(s); stop_sizes.push_back(size); }
void StartPolling(double p) { Simulator::Schedule(Seconds(p), &Poll, p); }

// Poisson datagrams: exponential gaps of mean packet_size*8/rate from ns-3's own stream.
struct Src { Ptr<Socket> sock; Ptr<ExponentialRandomVariable> gap; uint32_t payload; double stop; };
std::vector<Src> srcs;
void Send(size_t i) {
    Src& s = srcs[i];
    if (s.stop >= 0 && Simulator::Now().GetSeconds() >= s.stop) return;
    s.sock->Send(Create<Packet>(s.payload));
    Simulator::Schedule(Seconds(s.gap->GetValue()), &Send, i);
}
void AddPoisson(Ptr<Node> node, Ipv4Address dst, uint16_t port, uint32_t payload, double mean_gap, double start,
                double stop, int64_t stream) {
    Ptr<Socket> sock = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
    sock->Bind();
    sock->Connect(InetSocketAddress(dst, port));
    Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
    gap->SetAttribute("Mean", DoubleValue(mean_gap));
    gap->SetStream(stream);
    srcs.push_back(Src{sock, gap, payload, stop});
    Simulator::Schedule(Seconds(start), &Send, srcs.size() - 1);
}
}  // namespace pinchpoint_xval
"""


def _install_qdisc(ns, g, dev, qd: dict):
    """The plan's queue disc as the root of ``dev`` (with its attributes set before the simulator
    initialises it: queue discs read them in CheckConfig/InitializeParams)."""
    g.AttachQueueInterface(dev)
    tch = ns.TrafficControlHelper()
    tch.SetRootQueueDisc(qd["type"])
    root = tch.Install(dev).Get(0)
    for name, value in qd["attrs"].items():
        if not root.SetAttributeFailSafe(name, ns.StringValue(value)):
            raise RuntimeError(f"ns-3 rejected {qd['type']}::{name} = {value!r}")
    if "quantum" in qd:
        g.SetQuantum(root, int(qd["quantum"]))
    return root


def _simulate(plan: dict) -> dict:
    from ns import ns  # noqa: PLC0415  (slow import; only in the worker)

    from .translate import APP_SEND_SIZE, IP_UDP_HEADER_BYTES

    for name, value in plan["ns3_defaults"].items():
        if not ns.Config.SetDefaultFailSafe(name, ns.StringValue(value)):
            raise RuntimeError(f"ns-3 rejected {name} = {value!r} (no such attribute, or a bad value)")
    ns.cppyy.cppdef(_PROBES)
    g = ns.cppyy.gbl.pinchpoint_xval

    nodes = ns.NodeContainer()
    nodes.Create(len(plan["nodes"]))
    node_of = {n["name"]: nodes.Get(i) for i, n in enumerate(plan["nodes"])}
    stack = ns.InternetStackHelper()
    stack.SetIpv6StackInstall(False)     # IPv4 only, as in pinchpoint (no IPv6 chatter)
    stack.Install(nodes)

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))   # a /30 per link
    devices: dict[str, Any] = {}         # "a->b" -> PointToPointNetDevice on a
    qdiscs: dict[str, Any] = {}          # "a->b" -> root queue disc of that device (AQM ports only)
    address_of: dict[str, Any] = {}      # node -> its first address
    keep = []
    for l in plan["links"]:
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.StringValue(f"{int(round(l['rate_bps']))}bps"))
        h.SetChannelAttribute("Delay", ns.StringValue(f"{int(round(l['delay_s'] * 1e12))}ps"))
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(l["queue_ab"]))
        # No NetDeviceQueueInterface: no flow control and no default FqCoDel queue disc, so packets
        # overflow in the device queue as in pinchpoint's output port. A device with an AQM gets the
        # interface and its queue disc below (AttachQueueInterface).
        h.DisableFlowControl()
        devs = h.Install(node_of[l["a"]], node_of[l["b"]])
        keep.append(devs)
        dev_a, dev_b = (ns.DynamicCast[ns.PointToPointNetDevice](devs.Get(k)) for k in (0, 1))
        dev_b.SetAttribute("DataRate", ns.StringValue(f"{int(round(l['rate_ba_bps']))}bps"))
        dev_b.GetQueue().SetAttribute("MaxSize", ns.StringValue(l["queue_ba"]))
        for dev, d, port in ((dev_a, "ab", f"{l['a']}->{l['b']}"), (dev_b, "ba", f"{l['b']}->{l['a']}")):
            if l.get(f"qdisc_{d}"):
                qdiscs[port] = _install_qdisc(ns, g, dev, l[f"qdisc_{d}"])
        ifc = addr.Assign(devs)             # after the queue discs: Assign would install ns-3's default
        addr.NewNetwork()
        address_of.setdefault(l["a"], ifc.GetAddress(0))
        address_of.setdefault(l["b"], ifc.GetAddress(1))
        devices[f"{l['a']}->{l['b']}"], devices[f"{l['b']}->{l['a']}"] = dev_a, dev_b
    for port, dev in devices.items():
        tc = dev.GetNode().GetObject[ns.TrafficControlLayer]()
        root = tc.GetRootQueueDiscOnDevice(dev) if tc else None
        if bool(root) != (port in qdiscs):
            raise RuntimeError("a queue disc where the plan has none, or none where it has one")
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sample_s = plan.get("sample_s")
    sinks, probes, first_tcp = {}, {}, None
    for f in plan["flows"]:
        dst, node, port = address_of[f["dst"]], node_of[f["src"]], f["port"]
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        if f["transport"] == "tcp" or f["workload"] == "poisson":
            factory = "ns3::TcpSocketFactory" if f["transport"] == "tcp" else "ns3::UdpSocketFactory"
            sink = ns.PacketSinkHelper(factory, any_addr).Install(node_of[f["dst"]])
            sinks[f["name"]] = ns.DynamicCast[ns.PacketSink](sink.Get(0))
        else:
            sink = ns.UdpServerHelper(port).Install(node_of[f["dst"]])
            sinks[f["name"]] = ns.DynamicCast[ns.UdpServer](sink.Get(0))
        sink.Start(ns.Seconds(0.0))
        keep.append(sink)
        if f["transport"] == "tcp":
            bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(dst, port).ConvertTo())
            bulk.SetAttribute("MaxBytes", ns.UintegerValue(int(f["max_bytes"])))
            bulk.SetAttribute("SendSize", ns.UintegerValue(APP_SEND_SIZE))
            app = bulk.Install(node)
            app.Start(ns.Seconds(f["start_s"]))
            if sample_s:
                probes[f["name"]] = int(g.AddFlow(app.Get(0), float(f["start_s"])))
            first_tcp = first_tcp or app.Get(0)
        elif f["workload"] == "poisson":
            g.AddPoisson(node, dst, port, int(f["packet_size"] - IP_UDP_HEADER_BYTES), float(f["interval_s"]),
                         float(f["start_s"]), -1.0 if f["stop_s"] is None else float(f["stop_s"]), port)
            continue
        else:
            ch = ns.UdpClientHelper(dst.ConvertTo(), port)
            ch.SetAttribute("MaxPackets", ns.UintegerValue(0xFFFFFFFF))
            ch.SetAttribute("Interval", ns.StringValue(f"{int(round(f['interval_s'] * 1e12))}ps"))
            ch.SetAttribute("PacketSize", ns.UintegerValue(f["packet_size"] - IP_UDP_HEADER_BYTES))
            app = ch.Install(node)
            app.Start(ns.Seconds(f["start_s"]))
            if f["stop_s"] is not None:
                app.Stop(ns.Seconds(f["stop_s"]))
        keep.append(app)

    if plan.get("flow_monitor", True):
        fmh = ns.FlowMonitorHelper()
        monitor = fmh.InstallAll()
    if sample_s:
        for port, dev in devices.items():
            g.AddQueue(dev.GetQueue(), qdiscs.get(port, ns.Ptr[ns.QueueDisc]()))
        g.StartSampling(float(sample_s))
    if plan.get("stop_when_done"):
        for f in plan["flows"]:
            if f.get("max_bytes", 0) > 0:
                g.StopWhenDone(sinks[f["name"]], int(f["max_bytes"]))
        g.StartPolling(STOP_POLL_S)
    ns.Simulator.Stop(ns.Seconds(float(plan["duration_s"])))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    sim_s = ns.Simulator.Now().GetSeconds()

    fm = {}                              # data direction of a flow = (dst address, sink port)
    if plan.get("flow_monitor", True):
        monitor.CheckForLostPackets()
        classifier = ns.DynamicCast[ns.Ipv4FlowClassifier](fmh.GetClassifier())
        for item in monitor.GetFlowStats():
            t = classifier.FindFlow(item.first)
            fm[(str(t.destinationAddress), int(t.destinationPort))] = (
                item.second.timeLastRxPacket.GetSeconds(), sum(int(x) for x in item.second.packetsDropped))
    flows = {}
    for f in plan["flows"]:
        last_rx, lost = fm.get((str(address_of[f["dst"]]), f["port"]), (None, None))
        sink = sinks[f["name"]]
        if f["transport"] == "tcp" or f["workload"] == "poisson":
            rx = int(sink.GetTotalRx())
            if f["transport"] == "udp":      # count datagrams as pinchpoint does (IP bytes)
                rx = rx // (f["packet_size"] - IP_UDP_HEADER_BYTES) * f["packet_size"]
        else:
            rx = int(sink.GetReceived()) * f["packet_size"]
        completed = f.get("max_bytes", 0) > 0 and rx >= f["max_bytes"]
        end = last_rx if (completed and last_rx is not None) else sim_s
        active = end - f["start_s"]
        row = {"goodput_bps": rx * 8.0 / active if active > 0 else 0.0, "delivered_bytes": rx,
               "fct_s": active if (completed and last_rx is not None) else None, "completed": completed,
               "lost_pkts": lost}
        if f["name"] in probes:
            p = g.flows[probes[f["name"]]]
            row.update(retx_pkts=int(p.retx), cwnd_bytes=[int(x) for x in p.cwnd_samples])
        flows[f["name"]] = row
    n = max(int(g.nsamples), 1)
    ports, hops = {}, 0
    for k, (name, dev) in enumerate(devices.items()):
        q = dev.GetQueue()
        hops += int(q.GetTotalReceivedPackets()) - int(q.GetNPackets()) - int(q.GetTotalDroppedPacketsAfterDequeue())
        ports[name] = {"drops": int(q.GetTotalDroppedPackets()), "marks": 0}
        if name in qdiscs:
            st = qdiscs[name].GetStats()
            ports[name]["drops"] += int(st.nTotalDroppedPackets)
            ports[name]["marks"] = int(st.nTotalMarkedPackets)
            # By the queue disc's reason strings ("Unforced drop", "Forced drop", ...), to tell early
            # drops from overflow when the two simulators disagree.
            reasons = {}
            for m in (st.nDroppedPacketsBeforeEnqueue, st.nDroppedPacketsAfterDequeue, st.nMarkedPackets):
                for kv in m:
                    reasons[str(kv.first)] = reasons.get(str(kv.first), 0) + int(kv.second)
            ports[name]["by_reason"] = reasons
        if sample_s:
            ports[name].update(queue_pkts_mean=float(g.qsum[k]) / n, queue_pkts_max=int(g.qmax[k]))
    # The sockets really run the configured controller and recovery (sockets exist once started).
    if first_tcp is not None:
        sock = ns.DynamicCast[ns.BulkSendApplication](first_tcp).GetSocket()
        for attr, key in (("CongestionOps", "ns3::TcpL4Protocol::SocketType"),
                          ("RecoveryOps", "ns3::TcpL4Protocol::RecoveryType")):
            pv = ns.PointerValue()
            if sock:
                sock.GetAttribute(attr, pv)
                got = str(pv.GetObject().GetInstanceTypeId().GetName())
                if got != plan["ns3_defaults"][key]:
                    raise RuntimeError(f"socket {attr}: got {got}, want {plan['ns3_defaults'][key]}")
    result = {"simulator": "ns3", "sim_s": sim_s, "wall_s": wall, "packet_hops": hops, "flows": flows,
              "ports": ports, "sample_s": sample_s}
    ns.Simulator.Destroy()
    return result


def main() -> None:
    res = _simulate(json.loads(sys.stdin.read()))
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    os._exit(0)                          # skip the slow teardown of cppyy and ns-3


if __name__ == "__main__":
    main()
