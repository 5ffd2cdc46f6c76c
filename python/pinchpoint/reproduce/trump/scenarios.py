"""Seed 002: what runs. The scenarios of the thesis's chapter 9 as builders (one function per
scenario, reconstructions explained in each description), their three variants, the scenario
files written from them, and the thesis's numbers transcribed: the per-source tables and the
optimum tables.

The scenario files under ``scenarios/seeds/trump/`` are written by :func:`write_scenarios`
(``python -m pinchpoint.reproduce.trump`` after editing a builder); each file's description says
what comes from the thesis, what from ``GAPS.md`` and what is a guess.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import scenarios_dir

DATA_BYTES = 1500  # GAPS.md s9: "15,000 bytes (10 data packets)"
ACK_BYTES = 40  # GAPS.md s9: ack/data rate ratio 1/37.5 in the optimum working
BUFFER_BYTES = 15_000  # thesis s9.4.4
FAST = "10Mbps"
FAST_DELAY = "1us"
VARIANTS = ("trump", "reno", "vegas")

COMMON_NOTES = """
Choices common to every scenario of this family (thesis ch. 9 unless marked):
- Data packets 1500 bytes on the wire, acknowledgements 40 bytes (GAPS.md s9: derived from the
  ack/data ratio 1/37.5 of the optimum working and '15,000 bytes (10 data packets)').
- Every output port: FCFS drop-tail, 15,000 bytes (thesis s9.4.4 for routers 2 and 3; the same
  everywhere is a guess).
- Variant trump: TRUMP sources (setup every 1 s, abort after 30 s, one selective ack per data
  packet) and the RBCC hook on every port (threshold 2 packets, scale 0.75, flow time-out 5 s;
  GAPS.md s5, s7, s8; the threshold is an inference).
- Variants reno/vegas: TCP with 1460-byte segments + 40 bytes of headers, 40-byte acks, one ack
  per segment, initial window 1 segment, no SACK (REAL 4.0 era), RTO between 1 s and 64 s (REAL's
  coarse timers; its exact parameters are not in the text, GAPS.md s9). Vegas uses `cc = "vegas"`.
"""


def _hosts_routers(routers: list[str], hosts: list[str]) -> list[dict[str, str]]:
    return [{"name": r, "kind": "router"} for r in routers] + [{"name": h, "kind": "host"} for h in hosts]


def _link(a: str, b: str, rate: str, delay: str) -> dict[str, Any]:
    return {"a": a, "b": b, "rate": rate, "delay": delay,
            "queue": {"kind": "droptail", "limit_bytes": f"{BUFFER_BYTES}B"}}


def _flow(name: str, src: str, dst: str, start_s: float, pkts: int, **trump: Any) -> dict[str, Any]:
    f = {"name": name, "src": src, "dst": dst, "start": f"{start_s}s", "pkts": pkts}
    f.update(trump)
    return f


def _variant(base: dict[str, Any], variant: str) -> dict[str, Any]:
    """Turns a base description into a scenario dict for one variant."""
    links = []
    for l in base["links"]:
        l = dict(l)
        if variant == "trump":
            l["hooks"] = [{"kind": "rbcc", "rate_quench": True} if base.get("rate_quench") else {"kind": "rbcc"}]
        links.append(l)
    flows = []
    for f in base["flows"]:
        out: dict[str, Any] = {"name": f["name"], "src": f["src"], "dst": f["dst"], "start": f["start"]}
        if variant == "trump":
            trump: dict[str, Any] = {"packet_size": f"{f.get('size_min', DATA_BYTES)}B", "ack_size": f"{ACK_BYTES}B"}
            if "size_max" in f:
                trump["packet_size_max"] = f"{f['size_max']}B"
            if "desired_rate" in f:
                trump["desired_rate"] = f["desired_rate"]
            if "sack_every" in f:
                trump["sack_every"] = f["sack_every"]
            # Packet counts carry over; with variable sizes the file is pkts x mean size.
            mean = (f.get("size_min", DATA_BYTES) + f.get("size_max", f.get("size_min", DATA_BYTES))) // 2
            out["workload"] = {"kind": "file", "size": f"{f['pkts'] * mean}B"}
            out["transport"] = "trump"
            out["trump"] = trump
        else:
            out["workload"] = {"kind": "file", "size": f"{f['pkts'] * 1460}B"}
            out["transport"] = "tcp"
            out["cc"] = "reno" if variant == "reno" else "vegas"
            out["tcp"] = {"mss": 1460, "header_bytes": 40, "ack_bytes": 40, "init_cwnd_pkts": 1, "sack": False,
                          "min_rto": "1s", "initial_rto": "3s", "max_rto": "64s"}
        flows.append(out)
    sc: dict[str, Any] = {
        "name": f"trump-{base['id']}-{variant}",
        "description": base["description"].strip() + "\n" + COMMON_NOTES,
        "simulation": {"duration": base.get("duration", "2000s"), "seed": 1},
        "metrics": {"series_interval": "250ms", "packet_trace": True,
                    "queue_trace": base.get("queue_trace", [])},
        "nodes": base["nodes"],
        "links": links,
        "flows": flows,
    }
    if base.get("routes"):
        sc["routes"] = base["routes"]
    return sc


# ---- the scenarios ------------------------------------------------------------------------

def s2(desired: dict[str, str] | None = None, sizes: dict[str, tuple[int, int]] | None = None,
       sid: str = "s2", description: str | None = None) -> dict[str, Any]:
    hosts_left, hosts_right = ["h5", "h6", "h7", "h9"], ["h8", "h10", "h11", "h12"]
    links = [_link("r2", "r3", "64kbps", "1s"), _link("r1", "r2", FAST, FAST_DELAY), _link("r3", "r4", FAST, FAST_DELAY)]
    links += [_link(h, "r1", FAST, FAST_DELAY) for h in hosts_left]
    links += [_link(h, "r4", FAST, FAST_DELAY) for h in hosts_right]
    flows = [
        _flow("s5", "h5", "h10", 0, 1000),
        _flow("s7", "h7", "h12", 12, 1000),
        _flow("s8", "h8", "h9", 18, 1000),
        _flow("s6", "h6", "h11", 140, 100),
    ]
    for f in flows:
        if desired and f["name"] in desired:
            f["desired_rate"] = desired[f["name"]]
        if sizes and f["name"] in sizes:
            f["size_min"], f["size_max"] = sizes[f["name"]]
    return {
        "id": sid,
        "description": description or """
Thesis s9.4 (= 1996 seminar scenario 7): four flows across one 64 kbit/s, 1 s link between routers
2 and 3; every other link 10 Mbit/s, 1 us. Flows 5->10 (t = 0), 7->12 (12 s), 8->9 (18 s, the
reverse direction) and 6->11 (140 s); start times are the thesis's (optimum table).
Reconstruction (GAPS.md s10): routers 1-2-3-4 in a chain, hosts 5, 6, 7, 9 on router 1 and
8, 10, 11, 12 on router 4 (the figure is lost; scenario 8's router 1 upstream of 2 supports it).
Flow sizes: 1000 packets for 5, 7, 8 (derived from the TRUMP table: rate x duration ~ 12 Mbit),
100 packets for 6 (seminar s11).
""",
        "nodes": _hosts_routers(["r1", "r2", "r3", "r4"], hosts_left + hosts_right),
        "links": links,
        "flows": flows,
        "duration": "2000s",
        "queue_trace": ["r2->r3", "r3->r2"],
    }


def s2a() -> dict[str, Any]:
    return s2(desired={"s6": "18000bps", "s7": "32000bps"}, sid="s2a", description="""
Thesis s9.5: scenario 2 with desired rates 18,000 bit/s for flow 6->11 and 32,000 bit/s for
7->12 (TRUMP's finite desired rates; the TCP variants have no such setting and are scenario 2).
""" + s2()["description"])


def s7() -> dict[str, Any]:
    sizes = {"s5": (70, 1500), "s6": (400, 900), "s7": (700, 1500), "s8": (900, 1500)}
    return s2(sizes=sizes, sid="s7", description="""
Thesis s9.10: scenario 2 with packet sizes uniform per flow: 5->10 [70, 1500], 6->11 [400, 900],
7->12 [700, 1500], 8->9 [900, 1500] bytes. TRUMP only in the thesis (REAL's TCPs cannot vary
their size); our TCP variants run scenario 2's fixed sizes. Packet counts as in scenario 2
(GAPS.md s10, inference), so each file is count x mean size.
""" + s2()["description"])


def s8() -> dict[str, Any]:
    b = s2(sid="s8")
    b["nodes"] = b["nodes"] + [{"name": "r13", "kind": "router"}]
    # Declared after 2-3 so that hop-count ties keep the original path until the change.
    b["links"] = b["links"] + [_link("r1", "r13", "512kbps", "60ms"), _link("r13", "r3", "512kbps", "60ms")]
    b["routes"] = [{"node": "r1", "dst": "h10", "next_hop": "r13", "at": "100s"},
                   {"node": "r3", "dst": "h5", "next_hop": "r13", "at": "100s"}]
    b["queue_trace"] = ["r2->r3", "r3->r2", "r1->r13"]
    b["description"] = """
Thesis s9.11: scenario 2 plus router 13 with links 1-13 and 13-3 of 512 kbit/s ("the full
512kbps"). At t = 100 s router 1 forwards traffic for host 10 via 13.
Reconstruction: the acknowledgements of 5->10 move to the 13 path as well (router 3 forwards
traffic for host 5 via 13 from 100 s): source 5 has its new rate at 100.24 s in the thesis, which
no acknowledgement crossing the 1 s 3->2 link could deliver, and RBCC assumes symmetric routes.
The 13-links' latency, 60 ms, is derived from the thesis's TRUMP row for source 5 (mean
end-to-end 0.42 s and RTT 0.74 s over ~250 packets before the change at ~1.2 s / 2.3 s and ~750
after: about 0.17 s one way after the change, less two 23 ms transmissions at 512 kbit/s).
""" + s2()["description"]
    return b


def s1() -> dict[str, Any]:
    links = [_link("h5", "r2", FAST, "200us"), _link("r2", "r3", "1Mbps", "200us"), _link("r3", "h4", FAST, "200us")]
    return {
        "id": "s1",
        "description": """
Thesis s9.3: one flow 5 -> 4 through routers 2 and 3; the 2->3 link is the only low-speed link.
Reconstruction (GAPS.md s10): 2-3 is 1 Mbit/s (TRUMP's setup returns exactly 1 Mbps), 1000 packets
(1 Mbit/s for 12 s), access links 10 Mbit/s; latencies 0.2 ms per link so that transmission plus
propagation make the thesis's 16 ms TRUMP round trip (a guess).
""",
        "nodes": _hosts_routers(["r2", "r3"], ["h5", "h4"]),
        "links": links,
        "flows": [_flow("s5", "h5", "h4", 0, 1000)],
        "duration": "200s",
        "queue_trace": ["r2->r3"],
    }


def s4() -> dict[str, Any]:
    # Eight sources 1..8 on routers 17..22, chained to 23 and 24 where all sinks sit.
    routers = [f"r{i}" for i in range(17, 25)]
    hosts = [f"h{i}" for i in range(1, 9)] + [f"h{i}" for i in range(9, 17)]
    links = []
    for a, b in [("r17", "r19"), ("r18", "r19"), ("r19", "r21"), ("r20", "r21"), ("r21", "r23"), ("r22", "r23")]:
        links.append(_link(a, b, "128kbps", FAST_DELAY))
    links.append(_link("r23", "r24", "64kbps", "1s"))
    attach = {1: "r17", 2: "r17", 3: "r18", 4: "r18", 5: "r20", 6: "r20", 7: "r22", 8: "r22"}
    links += [_link(f"h{i}", attach[i], FAST, FAST_DELAY) for i in range(1, 9)]
    links += [_link(f"h{i}", "r24", FAST, FAST_DELAY) for i in range(9, 17)]
    flows = [_flow(f"s{i}", f"h{i}", f"h{i + 8}", float(i - 1), 1000) for i in range(1, 9)]
    return {
        "id": "s4",
        "description": """
Thesis s9.7: sources 1-8 start within a few seconds of each other and cross routers 17..24; the
23->24 link is the final bottleneck. Reconstruction (guess; the figure is lost): 23->24 is
64 kbit/s with 1 s latency (8 TRUMP sources at ~8,015 bit/s each, RTT ~2.3 s), the feeder links
17..22 are 128 kbit/s (so that 21->23 can peak briefly, as the thesis says) with 1 us latency:
the thesis's round trip exceeds the one-way delay by 1.00 s for every source (2.30 - 1.30, ...,
2.56 - 1.56) with no queueing (deviations 0.00-0.03 s), so the return path holds only the 1 s
bottleneck latency; the sources' one-way delays differ by 0-0.34 s, transmission times of a
1500-byte packet over one to three slower feeder hops (0.094 s per 128 kbit/s hop here). Starts
1 s apart (guess: the queue peaks at 3-6 s), 1000 packets each (8,015 bit/s x ~1500 s ~ 12 Mbit).
""",
        "nodes": _hosts_routers(routers, hosts),
        "links": links,
        "flows": flows,
        "duration": "4000s",
        "queue_trace": ["r23->r24", "r21->r23"],
    }


def s3() -> dict[str, Any]:
    # Routers 1..5 in a chain; 2-3, 3-4, 4-5 are the three low-speed, long-latency links.
    routers = [f"r{i}" for i in range(1, 6)]
    hosts = ["h6", "h10", "h7", "h8", "h9", "h11", "h12", "h13"]
    links = [_link("r1", "r2", FAST, FAST_DELAY), _link("r2", "r3", "256kbps", "1s"),
             _link("r3", "r4", "128kbps", "1s"), _link("r4", "r5", "64kbps", "1s")]
    attach = {"h6": "r1", "h10": "r1", "h7": "r3", "h8": "r4", "h9": "r4", "h11": "r5", "h12": "r5", "h13": "r5"}
    links += [_link(h, r, FAST, FAST_DELAY) for h, r in attach.items()]
    flows = [_flow("s6", "h6", "h11", 0, 1000), _flow("s9", "h9", "h10", 6, 1000),
             _flow("s7", "h7", "h12", 12, 100), _flow("s8", "h8", "h13", 18, 100)]
    return {
        "id": "s3",
        "description": """
Thesis s9.6: three low-speed links with very long latencies and different capacities; flows from
6, 7 and 8 run left to right, 9->10 right to left; successive starts about one longest round trip
apart. Router 4 has the links 4->5 (the only TRUMP-congested one, queue above 2 packets from 17 to
76 s) and 4->3 (fully used by TRUMP). The figure is lost; reconstruction:
- Routers 1..5 in a chain; 2-3, 3-4 and 4-5 are the low-speed links, each 1 s (derived from the
  TRUMP table: one-way delays without queueing of ~3.4 s for 6, ~2.1 s for 9 and round trips of
  6.44, 5.23, 3.24 and 4.15 s make 6 cross three 1 s links, 7 two, 8 one and 9 two).
- Paths: 6 (on router 1) -> 11 crosses 2-3, 3-4, 4-5; 7 (router 3) -> 12 crosses 3-4, 4-5;
  8 (router 4) -> 13 crosses 4-5; 9 (router 4) -> 10 (router 1) crosses 4-3 and 3-2. Destinations
  11, 12, 13 on router 5 are a guess (the text names only 9->10).
- Capacities: 4-5 = 64 kbit/s (6 alone for ~170 s after 76 s at ~64 kbit/s plus ~20 kbit/s while
  sharing with 7 and 8 makes ~12 Mbit = 1000 packets, matching its end time 244 s); 3-4 = 128 kbit/s
  (9 averages ~120.6 kbit/s with 4->3 as its bottleneck); 2-3 = 256 kbit/s is a guess: it must
  exceed 128 kbit/s so that 4->3 stays 9's bottleneck, and the three capacities differ.
- Sizes: 1000 packets for 6 and 9, 100 for 7 and 8 (derived: ~22 kbit/s for ~55 s ~ 1.2 Mbit).
- Starts: 6 at 0 s, 9 at 6 s, 7 at 12 s, 8 at 18 s: 6 s apart (the longest round trip is 6.4 s);
  the order is a guess chosen so that 7's data reaches router 4 at ~17-18 s, when the thesis's
  4->5 queue first passes 2 packets; with it the derived end times are within ~5 % of the table's.
""",
        "nodes": _hosts_routers(routers, hosts),
        "links": links,
        "flows": flows,
        "duration": "3000s",
        "queue_trace": ["r4->r5", "r4->r3"],
    }


def s5() -> dict[str, Any]:
    # The low-speed chain 1 -1M- 2 -100k- 3 -64k- 4 -1M- 5; sources 6..15, destination of i is i+10.
    routers = [f"r{i}" for i in range(1, 6)]
    paths = {  # source: (source router, destination router, start s, packets)
        6: ("r1", "r2", 0, 1000), 11: ("r3", "r2", 0, 1000), 7: ("r3", "r5", 20, 1000),
        12: ("r3", "r4", 20, 100), 15: ("r5", "r2", 20, 1000), 14: ("r4", "r5", 30, 1000),
        8: ("r2", "r3", 50, 100), 13: ("r4", "r3", 55, 1000), 9: ("r1", "r5", 60, 1000),
        10: ("r3", "r5", 60, 1000),
    }
    hosts = [f"h{i}" for i in range(6, 26)]
    links = [_link("r1", "r2", "1Mbps", "5ms"), _link("r2", "r3", "100kbps", "20ms"),
             _link("r3", "r4", "64kbps", "800ms"), _link("r4", "r5", "1Mbps", "5ms")]
    for src, (a, b, _, _) in sorted(paths.items()):
        links += [_link(f"h{src}", a, FAST, FAST_DELAY), _link(f"h{src + 10}", b, FAST, FAST_DELAY)]
    flows = [_flow(f"s{src}", f"h{src}", f"h{src + 10}", float(t), n) for src, (_, _, t, n) in sorted(paths.items())]
    return {
        "id": "s5",
        "description": """
Thesis s9.8: flows over different sections of the low-speed chain "1M, 100k, 64k, 1M" (routers
1..5: links 1-2, 2-3, 3-4, 4-5), many short cross flows; 3->4 is the main bottleneck (TRUMP
utilisation 0.98), then 4->3 (0.70), 2->3 and 3->2 (0.43 each). The figure is lost; reconstruction
(every path, start and size is a guess fitted to the text, not a published value):
- Ten flows, sources 6..15 (the thesis's table), the destination of source i is host i+10 (the
  text also names 16..25; which are sinks is not said).
- Latencies: 1 Mbit/s links 5 ms (source 6 alone on one has 0.02 s one-way delay), the 100 kbit/s
  link 20 ms (source 8's 0.16 s less a 0.12 s transmission), the 64 kbit/s link 0.8 s (source 13's
  unqueued 0.99 s less a 0.19 s transmission).
- Paths: 6: 1->2 and 14: 4->5 alone on a 1 Mbit/s link (~1 Mbit/s, 12 s each; 14 ends at 42 s so it
  starts at 30 s); 11: 3->2 sharing 100 kbit/s with 15 (11 averages ~68 kbit/s = 100k less 15's
  ~31k; router 3's queue to 2 is high from 24 to 164 s); 8: 2->3 (0.16 s delay; router 2's queue
  to 3 peaks from 60 to 83 s); 15: 5->4->3->2 and 13: 4->3 share 4->3 (~30 kbit/s each; router 4's
  queue to 3 peaks at 57 and 61 s); 7, 9, 10, 12 cross 3->4 (delays 1.15-1.43 s; router 3's queue
  to 4 is high from 61 s), 9 over the whole chain 1->5 (the largest delay, 1.43 s).
- Sizes: 1000 packets, except 100 for 8 and 12 (rate x duration from the TRUMP table).
- Starts from the TRUMP end times and rates: 6 and 11 at 0 s, 7, 12, 15 at 20 s, 14 at 30 s, 8 at
  50 s, 13 at 55 s, 9 and 10 at 60 s.
""",
        "nodes": _hosts_routers(routers, hosts),
        "links": links,
        "flows": flows,
        "duration": "3000s",
        "queue_trace": ["r3->r4", "r4->r3", "r3->r2", "r2->r3"],
    }


def s6() -> dict[str, Any]:
    # Long-haul 6 -> 15 across routers 1..5; cross flows 7->8, 9->10, 11->12, 13->14 on single hops.
    routers = [f"r{i}" for i in range(1, 6)]
    hosts = ["h6", "h15", "h7", "h8", "h9", "h10", "h11", "h12", "h13", "h14"]
    links = [_link(f"r{i}", f"r{i + 1}", "64kbps", "1s") for i in range(1, 5)]
    links += [_link("h6", "r1", FAST, FAST_DELAY), _link("h15", "r5", FAST, FAST_DELAY)]
    pairs = [("h7", "h8", 1), ("h9", "h10", 2), ("h11", "h12", 3), ("h13", "h14", 4)]
    for s, d, k in pairs:
        links += [_link(s, f"r{k}", FAST, FAST_DELAY), _link(d, f"r{k + 1}", FAST, FAST_DELAY)]
    flows = [_flow("s6", "h6", "h15", 0, 1000)]
    # Cross-flow starts and sizes derived from the thesis's TRUMP table: each ends ~75 s after
    # its start at ~32,157 bit/s (200 packets), ending at 79.5, 153.6, 189.0 and 223.9 s.
    starts = {"h7": 2.0, "h9": 76.0, "h11": 112.0, "h13": 147.0}
    flows += [_flow(f"s{s[1:]}", s, d, starts[s], 200) for s, d, _ in pairs]
    return {
        "id": "s6",
        "description": """
Thesis s9.9: a long-haul flow 6->15 against short-haul cross flows from 7, 9, 11, 13. The figure is
lost; reconstruction (guess): routers 1..5 in a chain of 64 kbit/s, 1 s links (TRUMP's RTT of ~8.9 s
for 6 and ~2.2 s for the cross flows fits four 1 s hops and one), each cross flow over one hop,
1000 packets for 6 (guess), 200 for each cross flow, starting at 2, 76, 112 and 147 s
(derived: each runs ~75 s at ~32,157 bit/s and ends at the thesis's end time).
""",
        "nodes": _hosts_routers(routers, hosts),
        "links": links,
        "flows": flows,
        "duration": "3000s",
        "queue_trace": ["r4->r5"],
    }


def s9(sack_every: int = 1, quench: bool = False, sid: str = "s9") -> dict[str, Any]:
    b = s6()
    b["id"] = sid
    for f in b["flows"]:
        if f["name"] == "s7":
            f["start"] = "10.0s"
        f["sack_every"] = sack_every
    b["rate_quench"] = quench
    b["queue_trace"] = ["r1->r2"]
    b["description"] = f"""
Thesis s9.12: scenario 6 with the 7->8 cross flow starting at t = 10 s, after source 6 has its first
rate; the links 1..4 put 3 s of feedback delay between source 6 and its destination. Selective
acks every {sack_every} packet(s); Rate Quench {"on" if quench else "off"} (the thesis compares k = 1, k = 16,
and k = 16 with Rate Quenches). The TCP variants are scenario 6 with this start time.
""" + s6()["description"]
    return b


SCENARIOS: dict[str, Callable[[], dict[str, Any]]] = {
    "s1": s1, "s2": s2, "s2a": s2a, "s3": s3, "s4": s4, "s5": s5, "s6": s6, "s7": s7, "s8": s8,
    "s9": s9,
    "s9k16": lambda: s9(16, False, "s9k16"),
    "s9k16q": lambda: s9(16, True, "s9k16q"),
}

#: Variants of a scenario that differ only in TRUMP/RBCC settings: no TCP runs.
TRUMP_ONLY = {"s9k16", "s9k16q"}

#: The thesis's per-source tables: (scenario, variant, source) -> (end time, avg rate, e2e mean,
#: e2e std, rtt mean, rtt std, lost, retransmitted).
THESIS: dict[tuple[str, str, str], tuple[float, float, float, float, float, float, int, int]] = {}


def _table(sid: str, text: str) -> None:
    for line in text.strip().splitlines():
        v, src, *nums = line.split()
        THESIS[(sid, v.lower(), f"s{src}")] = tuple(float(x) for x in nums[:6]) + (int(nums[6]), int(nums[7]))  # type: ignore[assignment]


_table("s2", """
TRUMP 5 396.6 30597 1.28 0.07 2.32 0.07 0 6
Vegas 5 598.4 23843 1.77 0.45 2.01 0.74 16 342
Reno 5 457.9 29037 2.06 0.59 3.00 0.47 58 89
TRUMP 6 201.6 20989 1.25 0.00 2.35 0.06 0 4
Vegas 6 222.3 24641 2.30 0.41 2.27 0.95 6 63
Reno 6 248.8 12905 2.01 0.65 2.98 0.52 7 12
TRUMP 7 410.2 30633 1.21 0.02 2.25 0.07 0 11
Vegas 7 599.9 29477 1.72 0.48 1.80 1.19 27 569
Reno 7 383.3 33322 2.19 0.58 3.15 0.47 13 17
TRUMP 8 219.5 60841 1.19 0.00 2.33 0.07 0 11
Vegas 8 599.8 27248 1.37 0.18 0.80 0.21 0 698
Reno 8 598.4 10628 1.38 0.41 2.63 0.43 30 33
""")
_table("s7", """
TRUMP 5 207.2 58939 1.16 0.07 2.20 0.09 0 8
TRUMP 6 168.2 49679 1.19 0.07 2.22 0.08 0 8
TRUMP 7 260.1 49606 1.20 0.06 2.26 0.08 0 17
TRUMP 8 274.4 47842 1.15 0.02 2.28 0.08 0 13
""")
_table("s8", """
TRUMP 5 118.2 103793 0.42 0.56 0.74 1.03 0 5
Vegas 5 119.8 110008 0.56 0.79 0.50 0.80 5 91
Reno 5 121.3 107848 0.53 0.74 0.56 0.86 88 77
TRUMP 6 182.7 31465 1.49 0.02 2.58 0.06 0 6
Vegas 6 224.3 33892 2.07 0.45 1.02 0.46 4 134
Reno 6 179.9 37852 1.80 0.54 2.64 0.34 7 12
TRUMP 7 275.9 46344 1.22 0.06 2.30 0.09 0 11
Vegas 7 599.7 33201 1.57 0.40 1.68 1.12 7 647
Reno 7 283.1 45282 2.03 0.59 2.98 0.49 7 8
TRUMP 8 218.1 61402 1.19 0.00 2.38 0.10 0 12
Vegas 8 484.6 38266 1.51 0.23 1.95 0.94 0 474
Reno 8 599.1 11688 1.35 0.39 2.63 0.43 30 33
""")
_table("s3", """
TRUMP 6 244.1 52077 3.41 0.31 6.44 0.33 0 33
Reno 6 361.6 34811 4.07 0.56 7.04 0.51 3 5
TRUMP 7 72.7 22359 3.18 0.23 5.23 0.23 0 9
Vegas 7 179.1 14762 2.58 0.36 1.80 0.56 0 106
Reno 7 141.3 10324 3.25 0.47 5.15 0.49 4 6
TRUMP 8 75.5 21538 2.24 0.15 3.24 0.15 0 5
Vegas 8 53.5 35498 1.82 0.42 2.70 0.51 0 3
Reno 8 243.5 35558 1.98 0.49 2.60 0.39 21 27
TRUMP 9 112.9 120597 2.12 0.00 4.15 0.04 0 43
Vegas 9 1403.7 18351 2.17 0.05 1.32 0.28 0 1137
Reno 9 192.7 66890 2.15 0.05 4.16 0.10 0 1
""")
# Vegas source 6 in scenario 3 had not finished at 2000 s (end time ">2000"): stored as inf.
THESIS[("s3", "vegas", "s6")] = (math.inf, 11919.0, 3.41, 0.14, 2.10, 0.27, 0, 1055)
_table("s4", """
TRUMP 1 1497.6 8037 1.30 0.01 2.30 0.01 0 1
Vegas 1 1782.2 10126 2.69 0.33 3.28 0.80 288 496
Reno 1 1498.0 8962 2.43 0.56 3.33 0.26 106 112
TRUMP 2 1501.0 8024 1.42 0.01 2.42 0.01 0 1
Vegas 2 1736.5 10343 2.70 0.30 3.14 0.93 284 491
Reno 2 1529.5 8720 2.44 0.54 3.36 0.24 101 106
TRUMP 3 1503.1 8018 1.36 0.01 2.37 0.01 0 1
Vegas 3 1609.0 11604 2.70 0.31 3.03 0.98 278 550
Reno 3 1500.8 8941 2.42 0.58 3.31 0.23 104 110
TRUMP 4 1504.7 8015 1.29 0.01 2.29 0.01 0 1
Vegas 4 1756.0 9404 2.70 0.31 3.59 0.34 248 370
Reno 4 1458.5 9067 2.46 0.54 3.36 0.21 94 95
TRUMP 5 1506.2 8013 1.53 0.02 2.53 0.02 0 1
Vegas 5 1816.2 9461 2.62 0.44 3.40 0.62 269 419
Reno 5 1433.8 9213 2.44 0.57 3.32 0.20 94 95
TRUMP 6 1508.2 8016 1.40 0.02 2.40 0.02 0 2
Vegas 6 1800.7 9408 2.69 0.32 3.45 0.57 265 403
Reno 6 1575.6 8456 2.43 0.55 3.34 0.30 96 96
TRUMP 7 1508.9 8017 1.22 0.00 2.22 0.00 0 2
Vegas 7 1757.8 9904 2.71 0.29 3.51 0.48 278 439
Reno 7 1401.5 9397 2.44 0.56 3.34 0.17 90 90
TRUMP 8 1509.5 8019 1.56 0.03 2.56 0.03 0 2
Vegas 8 1796.0 11154 2.69 0.31 2.67 1.02 314 656
Reno 8 1584.2 8458 2.37 0.59 3.33 0.36 97 97
""")
_table("s5", """
TRUMP 6 12.1 997051 0.02 0.00 0.03 0.00 0 2
Vegas 6 12.1 1000324 0.05 0.00 0.06 0.00 0 0
Reno 6 16.0 780865 0.05 0.04 0.09 0.02 0 31
TRUMP 7 539.1 23263 1.17 0.03 2.17 0.12 0 3
Vegas 7 1086.5 13097 2.13 0.52 3.33 0.55 33 155
Reno 7 671.4 20576 2.29 0.66 3.39 0.46 132 108
TRUMP 8 83.3 36418 0.16 0.05 0.27 0.08 0 0
Vegas 8 67.6 72338 0.80 0.28 0.95 0.11 0 0
Reno 8 74.7 73494 0.61 0.34 1.09 0.15 30 39
TRUMP 9 605.3 22205 1.43 0.13 2.38 0.21 0 5
Vegas 9 1066.1 24940 2.08 0.48 1.33 0.77 37 1087
Reno 9 604.8 23258 2.16 0.55 3.47 0.38 51 49
TRUMP 10 605.8 22213 1.15 0.02 2.01 0.06 0 5
Vegas 10 1102.6 24713 1.78 0.45 0.97 0.25 59 1135
Reno 10 725.6 20312 1.81 0.57 2.86 0.46 65 114
TRUMP 11 177.8 67973 0.19 0.04 0.25 0.08 0 1
Vegas 11 170.5 71433 0.60 0.18 0.69 0.14 0 5
Reno 11 156.3 81758 0.81 0.27 0.87 0.18 25 50
TRUMP 12 56.4 37448 1.15 0.08 2.17 0.11 0 4
Vegas 12 127.4 21318 2.25 0.50 1.98 1.34 5 85
Reno 12 147.3 11398 2.31 0.54 3.53 0.46 21 17
TRUMP 13 441.0 30220 0.99 0.01 2.02 0.12 0 5
Vegas 13 976.0 27527 1.55 0.46 1.02 0.45 27 1141
Reno 13 465.9 30150 1.66 0.51 3.10 0.37 31 60
TRUMP 14 42.2 1008221 0.02 0.00 0.04 0.00 0 2
Vegas 14 42.3 1003458 0.06 0.01 0.07 0.01 0 0
Reno 14 49.6 934329 0.10 0.01 0.05 0.02 0 24
TRUMP 15 448.2 30539 1.18 0.04 2.39 0.15 0 11
Vegas 15 1105.2 24529 1.75 0.50 1.20 0.33 32 1152
Reno 15 633.9 22035 1.87 0.58 3.45 0.39 73 67
""")
_table("s6", """
TRUMP 6 315.0 40894 4.84 0.12 8.86 0.12 0 46
Vegas 6 486.0 26246 4.93 0.39 8.88 0.75 1 20
Reno 6 503.5 25191 5.18 0.44 9.17 0.35 11 14
TRUMP 7 79.5 32157 1.19 0.00 2.20 0.00 0 5
Vegas 7 100.4 41549 1.56 0.33 1.54 0.76 0 138
Reno 7 1308.1 6610 1.33 0.39 2.62 0.47 0 63
TRUMP 9 153.6 32157 1.19 0.00 2.19 0.00 0 5
Vegas 9 168.5 44023 1.68 0.44 1.53 0.83 0 138
Reno 9 151.2 36528 1.89 0.54 2.75 0.33 11 20
TRUMP 11 189.0 32156 1.27 0.09 2.28 0.09 0 6
Vegas 11 204.3 46296 1.54 0.29 1.34 0.72 0 155
Reno 11 303.8 41912 1.53 0.38 2.42 0.39 19 31
TRUMP 13 223.9 32156 1.37 0.09 2.37 0.09 0 6
Vegas 13 201.9 45570 1.75 0.36 2.70 0.42 0 3
Reno 13 632.5 17057 1.39 0.37 2.63 0.49 26 45
""")

#: Optimum tables of the thesis (s9.4.1, s9.5): (scenario, phase) -> {source: rate}.
OPTIMUM_TABLES: dict[str, list[tuple[str, dict[str, float]]]] = {
    "s2": [
        ("0<=t<12", {"s5": 64000.0}),
        ("12<=t<18", {"s5": 32000.0, "s7": 32000.0}),
        ("18<=t<=140", {"s5": 31168.8, "s7": 31168.8, "s8": 62337.7}),
        ("140<=t<=Off6", {"s5": 20779.2, "s7": 20779.2, "s8": 62337.7, "s6": 20779.2}),
        ("Off6<=t<=Off8", {"s5": 31168.8, "s7": 31168.8, "s8": 62337.7}),
        ("Off8<=t", {"s5": 32000.0, "s7": 32000.0}),
    ],
    "s2a": [
        ("0<=t<12", {"s5": 64000.0}),
        ("12<=t<18", {"s5": 32000.0, "s7": 32000.0}),
        ("18<=t<=140", {"s5": 31168.8, "s7": 31168.8, "s8": 62337.7}),
        ("140<=t<=Off6", {"s5": 22168.8, "s7": 22168.8, "s8": 62337.7, "s6": 18000.0}),
        ("Off6<=t<=Off8", {"s5": 31168.8, "s7": 31168.8, "s8": 62337.7}),
        ("Off8<=t", {"s5": 32000.0, "s7": 32000.0}),
    ],
}


def scenario_dict(sid: str, variant: str) -> dict[str, Any]:
    return _variant(SCENARIOS[sid](), variant)


def write_scenarios(directory: Path | None = None) -> list[Path]:
    """Writes every scenario and variant as TOML; returns the paths."""
    import tomli_w

    d = directory or scenarios_dir() / "trump"
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for sid in SCENARIOS:
        for v in VARIANTS:
            if v != "trump" and sid in TRUMP_ONLY:
                continue
            if v == "vegas" and not vegas_available():
                continue  # written once `cc = "vegas"` exists (another branch adds it)
            sc = scenario_dict(sid, v)
            p = d / f"{sid}_{v}.toml"
            p.write_text("# Generated by `python -m pinchpoint.reproduce.trump`; edit the builders there.\n"
                         + tomli_w.dumps(sc, multiline_strings=True))
            out.append(p)
    return out


def vegas_available() -> bool:
    """True once the engine knows `cc = "vegas"`."""
    from ... import _native

    return '"vegas"' in _native.json_schema()


def scenario_path(sid: str, variant: str) -> Path:
    return scenarios_dir() / "trump" / f"{sid}_{variant}.toml"
