"""Seed 002 (Toomey, thesis ch. 9): TRUMP/RBCC against TCP Reno and TCP Vegas.

The scenario files under ``scenarios/seeds/trump/`` are written by :func:`write_scenarios` from
the builders below (run ``python -m pinchpoint.reproduce.trump`` after editing them); each file's
description says what comes from the thesis, what from ``GAPS.md`` and what is a guess.
Three variants per scenario: ``trump`` (TRUMP sources, RBCC on every port), ``reno`` and
``vegas`` (TCP with that congestion controller, plain drop-tail routers).

:func:`reproduce` runs them and writes ``report.md`` with, per scenario and variant, the thesis's
per-source table beside ours (end time, average rate, end-to-end mean and deviation, round-trip
mean, packets lost, packets retransmitted), router queue lengths, link utilisation, and a figure of
the rates RBCC hands the TRUMP sources against the max-min optimum of
:func:`pinchpoint.optimum.maxmin`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import scenarios_dir

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
        links.append(_link(a, b, "128kbps", "100ms"))
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
17..22 are 128 kbit/s with 100 ms latency (so that 21->23 can peak briefly, as the thesis says),
starts 1 s apart, 1000 packets each (8,015 bit/s x ~1500 s ~ 12 Mbit).
""",
        "nodes": _hosts_routers(routers, hosts),
        "links": links,
        "flows": flows,
        "duration": "4000s",
        "queue_trace": ["r23->r24", "r21->r23"],
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
    "s1": s1, "s2": s2, "s2a": s2a, "s4": s4, "s6": s6, "s7": s7, "s8": s8,
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
_table("s4", "\n".join(f"TRUMP {i} " + r for i, r in zip(range(1, 9), [
    "1497.6 8037 1.30 0.01 2.30 0.01 0 1", "1501.0 8024 1.42 0.01 2.42 0.01 0 1",
    "1503.1 8018 1.36 0.01 2.37 0.01 0 1", "1504.7 8015 1.29 0.01 2.29 0.01 0 1",
    "1506.2 8013 1.53 0.02 2.53 0.02 0 1", "1508.2 8016 1.40 0.02 2.40 0.02 0 2",
    "1508.9 8017 1.22 0.00 2.22 0.00 0 2", "1509.5 8019 1.56 0.03 2.56 0.03 0 2"])))
_table("s6", """
TRUMP 6 315.0 40894 4.84 0.12 8.86 0.12 0 46
Vegas 6 486.0 26246 4.93 0.39 8.88 0.75 1 20
Reno 6 503.5 25191 5.18 0.44 9.17 0.35 11 14
TRUMP 7 79.5 32157 1.19 0.00 2.20 0.00 0 5
TRUMP 9 153.6 32157 1.19 0.00 2.19 0.00 0 5
TRUMP 11 189.0 32156 1.27 0.09 2.28 0.09 0 6
TRUMP 13 223.9 32156 1.37 0.09 2.37 0.09 0 6
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
    from .. import _native

    return '"vegas"' in _native.json_schema()


def scenario_path(sid: str, variant: str) -> Path:
    return scenarios_dir() / "trump" / f"{sid}_{variant}.toml"


if __name__ == "__main__":  # pragma: no cover
    for p in write_scenarios():
        print(p)


# ---- running and comparing ------------------------------------------------------------------

def route_change_times(path: Path) -> list[float]:
    """Times of the scenario's timed route changes, s."""
    import tomllib

    from .. import _native

    resolved = tomllib.loads(_native.validate(path.read_text(), str(path), "toml"))
    return sorted({int(str(r.get("at", "0ps"))[:-2]) * 1e-12 for r in resolved.get("routes", [])} - {0.0})


def phases(res: Any, extra_cuts: list[float] = ()) -> list[tuple[float, float, list[str]]]:
    """Intervals between consecutive flow starts and completions (and ``extra_cuts``, such as
    route changes), with the flows active in each (a flow is active from its start until its
    last packet is acknowledged)."""
    f = res.flows
    names = list(f["flow"])
    start = dict(zip(names, (float(x) for x in f["start_s"])))
    end = {n: (s + float(d) if not math.isnan(float(d)) else math.inf)
           for n, s, d in zip(names, start.values(), f["fct_s"])}
    stop = float(res.meta["end_time_s"])
    cuts = sorted({0.0, stop, *start.values(), *(e for e in end.values() if e < stop), *(c for c in extra_cuts if c < stop)})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        act = [n for n in names if start[n] <= a and end[n] > a]
        if act and b > a:
            out.append((a, b, act))
    return out


def rate_errors(res: Any, path: Path, settle_s: float) -> list[dict[str, Any]]:
    """Per steady phase and flow, the rates RBCC gave the TRUMP source (flow time series, sampled)
    against the calculator's optimum, over the phase from ``settle_s`` after its start to its
    end: the median's relative gap (the allocated rate of the phase), the largest gap of any
    sample (threshold congestion avoidance scales single returns by 0.75 when the queue passes
    the threshold) and the share of samples within 1 %."""
    from ..optimum import maxmin

    fs = res.flow_series.to_pandas()
    rows = []
    for a, b, act in phases(res, route_change_times(path)):
        lo = a + settle_s
        if lo >= b:
            continue
        opt = maxmin(path, at=(a + b) / 2, active=act).rates_bps
        for n in act:
            s = fs[(fs.flow == n) & (fs.t_s >= lo) & (fs.t_s < b)]["rate_bps"]
            if s.empty:
                continue
            rel = (s - opt[n]).abs() / opt[n]
            rows.append({"from_s": a, "to_s": b, "flow": n, "optimum_bps": opt[n],
                         "measured_median_bps": float(s.median()),
                         "median_rel_err": abs(float(s.median()) - opt[n]) / opt[n],
                         "measured_min_bps": float(s.min()), "measured_max_bps": float(s.max()),
                         "max_rel_err": float(rel.max()), "share_within_1pct": float((rel <= 0.01).mean())})
    return rows


def per_source(res: Any) -> list[dict[str, Any]]:
    f = res.flows
    out = []
    for i, n in enumerate(f["flow"]):
        start = float(f["start_s"][i])
        fct = float(f["fct_s"][i])
        out.append({
            "source": n, "end_s": start + fct if not math.isnan(fct) else math.nan,
            "avg_rate_bps": float(f["goodput_bps"][i]),
            "e2e_mean_s": float(f["delay_mean_s"][i]), "e2e_std_s": float(f["delay_std_s"][i]),
            "rtt_mean_s": float(f["rtt_mean_s"][i]), "lost": int(f["lost_pkts"][i]), "retx": int(f["retx_pkts"][i]),
        })
    return out


def reproduce(out_dir: Path, quick: bool = False, progress: Callable[[str, float], None] | None = None) -> Path:
    """Runs the scenarios (only s2 and s2a with TRUMP when ``quick``) and writes ``report.md``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .. import _native
    from ..api import run as pp_run

    out_dir.mkdir(parents=True, exist_ok=True)
    todo = [(s, "trump") for s in ("s2", "s2a")] if quick else \
        [(s, v) for s in SCENARIOS for v in VARIANTS if v == "trump" or s not in TRUMP_ONLY]
    lines = ["# TRUMP/RBCC vs TCP Reno and Vegas (Toomey thesis ch. 9)", "",
             "Scenario files: `scenarios/seeds/trump/` (each says what is reconstructed or guessed).",
             "Per-source tables: ours beside the thesis's (`thesis` rows). RTT deviation is not recorded by "
             "the engine (only mean, min, max).", ""]
    for k, (sid, v) in enumerate(todo):
        path = scenario_path(sid, v)
        if progress:
            progress(f"{sid} {v}", k / len(todo))
        if not path.exists():
            lines += [f"## {sid} / {v}", "", f"Not run: {path.name} is not written (TCP Vegas, `cc = \"vegas\"`, "
                      "is not in this build; `python -m pinchpoint.reproduce.trump` writes it once it is).", ""]
            continue
        try:
            res = pp_run(path)
        except _native.ScenarioError as e:
            lines += [f"## {sid} / {v}", "", f"Not run: {e}", ""]
            continue
        lines += [f"## {sid} / {v}", "",
                  "| source | end s | avg rate bit/s | e2e mean s | e2e std s | rtt mean s | rtt std s | lost | retx |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in per_source(res):
            lines.append(f"| {r['source']} | {r['end_s']:.1f} | {r['avg_rate_bps']:.0f} | {r['e2e_mean_s']:.2f} | "
                         f"{r['e2e_std_s']:.2f} | {r['rtt_mean_s']:.2f} | - | {r['lost']} | {r['retx']} |")
            t = THESIS.get((sid, v, r["source"]))
            if t:
                lines.append(f"| {r['source']} thesis | {t[0]:.1f} | {t[1]:.0f} | {t[2]:.2f} | {t[3]:.2f} | {t[4]:.2f} | "
                             f"{t[5]:.2f} | {t[6]} | {t[7]} |")
        ports = res.ports
        lines += ["", "| port | mean queue pkts | max queue pkts | drops | utilisation |", "|---|---|---|---|---|"]
        util = dict(zip(res.links["link"], res.links["utilisation"]))
        for i, p in enumerate(ports["port"]):
            if p.startswith("r") and "->r" in p:
                lines.append(f"| {p} | {float(ports['queue_pkts_mean'][i]):.2f} | {float(ports['queue_pkts_max'][i]):.0f} | "
                             f"{int(ports['drops'][i])} | {float(util[p]):.3f} |")
        lines.append("")
        if v == "trump":
            fs = res.flow_series.to_pandas()
            fig, ax = plt.subplots(figsize=(8, 4))
            for n, g in fs.groupby("flow"):
                ax.plot(g.t_s, g.rate_bps, label=f"{n} RBCC", lw=1)
            for a, b, act in phases(res, route_change_times(path)):
                opt = __import__("pinchpoint.optimum", fromlist=["maxmin"]).maxmin(path, at=(a + b) / 2, active=act).rates_bps
                for n, r in opt.items():
                    ax.hlines(r, a, b, colors="k", linestyles="dotted", lw=1)
            ax.set_xlabel("t (s)")
            ax.set_ylabel("rate (bit/s)")
            ax.set_title(f"{sid}: rates returned by RBCC (lines) and max-min optimum (dotted)")
            ax.legend(fontsize=7)
            fig.tight_layout()
            png = out_dir / f"{sid}_rates.png"
            fig.savefig(png, dpi=110)
            plt.close(fig)
            lines += [f"![{sid} rates]({png.name})", ""]
            if sid.startswith("s9"):
                s6r = fs[fs.flow == "s6"].set_index("t_s").rate_bps
                before = float(s6r[s6r.index <= 10.0].iloc[-1])
                later = s6r[(s6r.index > 10.0) & (s6r < before)]
                when = f"{later.index[0]:.2f} s ({later.iloc[0]:.0f} bit/s, from {before:.0f})" if len(later) else "never"
                lines += [f"Source 6 learns a lower rate after the 7->8 flow starts at 10 s: {when}. Thesis: "
                          "16.8 s with k = 1, 19 s with k = 16, 12 s with k = 16 and Rate Quenches.", ""]
            errs = rate_errors(res, path, settle_s=SETTLE_S)
            if errs:
                lines += [f"RBCC's rates against the optimum, from {SETTLE_S:g} s after each phase starts:", "",
                          "| phase s | flow | optimum bit/s | median bit/s | median gap % | worst sample gap % | samples within 1 % |",
                          "|---|---|---|---|---|---|---|"]
                for e in errs:
                    lines.append(f"| {e['from_s']:.1f}-{e['to_s']:.1f} | {e['flow']} | {e['optimum_bps']:.1f} | "
                                 f"{e['measured_median_bps']:.1f} | {100 * e['median_rel_err']:.3f} | "
                                 f"{100 * e['max_rel_err']:.1f} | {100 * e['share_within_1pct']:.0f} % |")
                lines.append("")
    # Chapter 10 style: random topologies and workloads, RBCC's steady rates against the optimum.
    from ..randomnet import compare_with_optimum

    seeds = range(1, 6) if quick else range(1, 101)
    gaps = []
    for k, seed in enumerate(seeds):
        if progress:
            progress(f"random {seed}", 0.9 + 0.1 * k / len(seeds))
        gaps += [r["rel_gap"] for r in compare_with_optimum(seed)]
    gaps.sort()
    q = lambda f: gaps[min(len(gaps) - 1, int(f * len(gaps)))]  # noqa: E731
    lines += [f"## Random scenarios ({len(seeds)} seeds, {len(gaps)} flows; `pinchpoint.randomnet`)", "",
              "Relative gap between each flow's steady RBCC rate (median over the second half of the run) and "
              "the calculator's optimum:", "",
              f"median {100 * q(0.5):.2g} %, 90th percentile {100 * q(0.9):.2g} %, max {100 * gaps[-1]:.2g} %", ""]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines) + "\n")
    if progress:
        progress("done", 1.0)
    return report


#: Settling time after a phase change before RBCC's rates are compared with the optimum: the
#: new source's handshake (one round trip, ~2.4 s in scenario 2) plus one round trip for the others'
#: data to carry the new share out and their acks to bring it back, plus the 5 s table time-out
#: when a flow leaves (thesis s8.4). Chosen from the protocol, not fitted.
SETTLE_S = 5.0 + 2 * 2.4
