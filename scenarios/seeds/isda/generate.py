"""Writes the 15 ISDA scenario files (3 traffic mixes x 5 drop policies) of seed 001, s4.1.

Run from the repository root: ``python scenarios/seeds/isda/generate.py``. The TOML files are
committed; this script only keeps them consistent. Every choice the paper leaves open is the
same in every file and is explained in each file's description.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

POLICIES = {
    "rda": 'kind = "rda", threshold_pkts = 10, measure = "average", weight = 0.002, mean_pkt_bytes = 1000, limit_pkts = 50',
    "rda_fp": ('kind = "rda_fp", min_que_pkts = 10, max_que_pkts = 25, pa = 0.1, weight = 0.002, '
               'ecn = false, mean_pkt_bytes = 1000, limit_pkts = 50'),
    "rda_vp": ('kind = "rda_vp", min_que_pkts = 10, max_que_pkts = 25, target_rtt = "48ms", weight = 0.002, '
               'ecn = false, mean_pkt_bytes = 1000, limit_pkts = 50'),
    "sda": ('kind = "sda", window = "1s", min_que_pkts = 10, max_que_pkts = 25, weight = 0.002, '
            'mean_pkt_bytes = 1000, limit_pkts = 50'),
    "isda": ('kind = "isda", window = "1s", alpha_sta = 0.8, alpha_lta = 0.3, burst_ratio = 3.0, prefilter = "red_pd", '
             'min_que_pkts = 10, max_que_pkts = 25, target_rtt = "48ms", weight = 0.002, ecn = false, '
             'mean_pkt_bytes = 1000, limit_pkts = 50'),
}

MIXES = {
    "tcp": ("TCP traffic only (S1-S9)", range(1, 10)),
    "udp": ("UDP traffic only (S10-S12)", range(10, 13)),
    "mixed": ("TCP and UDP traffic together (S1-S12)", range(1, 13)),
}

ACCESS_DELAY_MS = [3, 13, 23]  # s4.1: "recursively defined as 3, 13, and 23 ms"
UDP_RATE = {10: "1Mbps", 11: "2Mbps", 12: "3Mbps"}  # s4.1: 10 %, 20 %, 30 % of the link

DESCRIPTION = """\
Seed 001 (Song, Joo, Chung: ISDA), s4.1 and Figure 4: {mix_text} through node1 -> node2
(10 Mbit/s, 10 ms). Policy at node1 -> node2: {policy} (s3). Figures 5-13.

From the paper: 12 sources S1..S12 to D1..D12; S1-S9 TCP with 100 Mbit/s access links of 3, 13,
23 ms cycling; S10-S12 CBR UDP at 1, 2, 3 Mbit/s; bottleneck 10 Mbit/s, 10 ms; buffers of 50
packets at node1 and node2; MinQue 10, MaxQue 25; 400 s; ISDA alpha1 = 0.8, alpha2 = 0.3,
STA/LTA = 3. "Other parameters use default values of NS."

Choices the paper leaves open (identical in all 15 files):
- TCP: NewReno (the paper names no variant; pinchpoint has Reno and NewReno, NewReno is the
  common ns-2 choice for such studies). ns-2 defaults (tcl/lib/ns-default.tcl): 1000-byte
  segments + 40 bytes of headers (packetSize_ 1000, tcpip_base_hdr_size_ 40), 40-byte acks
  (TCPSink packetSize_ 40), no SACK (Agent/TCP/Newreno), maximum window 20 packets = 20000 B (window_ 20), initial window 2
  (windowInit_, since 2001), no delayed acks (TCPSink), no ECN (ecn_ 0). Min RTO 200 ms and
  initial RTO 3 s are ns-2.35's values (set in 2004 and 2006); the ns-2 of the paper's time
  probably used a tick-bound minimum and 6 s. Bulk transfers, all starting at 0 s.
- UDP: CBR with 1000-byte packets (same size as a TCP segment, so packet-counted thresholds
  treat both alike; ns-2's CBR default of 210 bytes would give UDP five times the packets), start
  at 0 s; access delays continue the 3/13/23 ms cycle (S10: 3, S11: 13, S12: 23 ms).
- node2 -> Di: 100 Mbit/s, 1 ms (Figure 4's values are not in the text). node2 -> node1 (the
  ack path) is a 50-packet drop-tail FIFO (s4.1: "the backward data flow uses ... FIFO queue").
- Early action is a drop, not an ECN mark (ns-2 RED setbit_ false; the TCP senders are not ECT).
- Queue average weight 0.002 (ns-2 RED q_weight_ until 12/2001); RDA/FP's Pa = 0.1 (ns-2 RED
  max_p = 1/linterm_). Above MaxQue every arrival is dropped, as Figure 1 says, although ns-2 RED
  had gentle_ on by default from 2001. Drops are independent draws (no RED count spacing).
- One congestion test for RDA, SDA and ISDA's RDA stage (s3.1 "if the queue exceeds a
  threshold"; s3.5 "if traffic congestion is detected, applies RDA"): the RED average QueAvg
  (weight 0.002) strictly above MinQue = 10 packets. RDA drops every arrival while it holds.
- RDA/VP and ISDA: P0 from eq. 2 with R = 48 ms, the mean base RTT of the TCP flows
  (2 x (13 + 10 + 1) ms), and BW = 10 Mbit/s / 8000 bit = 1250 packets/s: P0 = 0.72.
- SDA and ISDA measure per-flow rates over 1 s windows (several RTTs, so a TCP sawtooth is
  averaged out; the paper gives no window). Fair share = 10 Mbit/s / flows active in a window.
- ISDA's pre-filter is RED-PD (s4.2 calls it a "pre-filtering mechanism" and cites RED-PD, [7]):
  a window is congested if QueAvg exceeded MinQue during the previous window; a flagged flow's
  packet is then dropped with probability max(0, 1 - fair share / its STA), STA measured on
  arriving bytes. prefilter = "drop_all" (every flagged arrival dropped while QueAvg > MinQue)
  is the earlier reading, kept for comparison in the report.
"""


def scenario(mix: str, policy: str) -> str:
    mix_text, sources = MIXES[mix]
    out = [f'name = "isda-{mix}-{policy}"', 'description = """',
           DESCRIPTION.format(mix_text=mix_text, policy=policy.upper().replace("_", "/")).rstrip(), '"""', "",
           "[simulation]", 'duration = "400s"', "seed = 1", "", "[metrics]", 'series_interval = "100ms"',
           'queue_trace = ["node1->node2"]', ""]
    names = [f"S{i}" for i in range(1, 13)] + ["node1", "node2"] + [f"D{i}" for i in range(1, 13)]
    for n in names:
        out += ["[[nodes]]", f'name = "{n}"'] + (['kind = "router"'] if n.startswith("node") else []) + [""]
    for i in range(1, 13):
        out += ["[[links]]", f'a = "S{i}"', 'b = "node1"', 'rate = "100Mbps"',
                f'delay = "{ACCESS_DELAY_MS[(i - 1) % 3]}ms"', ""]
    out += ["[[links]]", 'a = "node1"', 'b = "node2"', 'rate = "10Mbps"', 'delay = "10ms"',
            f"queue_ab = {{ {POLICIES[policy]} }}", 'queue_ba = { kind = "droptail", limit_pkts = 50 }', ""]
    for i in range(1, 13):
        out += ["[[links]]", 'a = "node2"', f'b = "D{i}"', 'rate = "100Mbps"', 'delay = "1ms"',
                'queue = { kind = "droptail", limit_pkts = 50 }', ""]
    for i in sources:
        out += ["[[flows]]", f'name = "S{i}"', f'src = "S{i}"', f'dst = "D{i}"', 'start = "0s"']
        if i <= 9:
            out += ['transport = "tcp"', 'workload = { kind = "bulk" }', 'cc = "newreno"',
                    'tcp = { mss = 1000, header_bytes = 40, ack_bytes = 40, init_cwnd_pkts = 2, '
                    'max_window = "20000B", delayed_ack = false, min_rto = "200ms", initial_rto = "3s", ecn = false, '
                    'sack = false, recovery = "newreno" }']
        else:
            out += ['transport = "udp"', f'workload = {{ kind = "cbr", rate = "{UDP_RATE[i]}", packet_size = "1000B" }}']
        out.append("")
    return "\n".join(out)


def main() -> None:
    for mix in MIXES:
        for policy in POLICIES:
            (HERE / f"{mix}_{policy}.toml").write_text(scenario(mix, policy))


if __name__ == "__main__":
    main()
