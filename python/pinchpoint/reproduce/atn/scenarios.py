"""ATN WP/267 (seed 000): the exercises of section 3 as scenario dictionaries, the inputs derived
from the paper's own numbers, and the paper's tables transcribed.

Variants:
    ``specified``: as section 3 specifies them, with the 500 ms delay on the 64 kbit/s link.
    ``as_run``: as section 4 says the exercises were actually run ("not possible ... to simulate
    the 500ms delay"), with the fixed path delay the paper's own measurements imply
    (:func:`derivation`).

Every input is either in the paper, derived from the paper's numbers (with the working here and
in the scenario descriptions), or a stated choice (:data:`CHOICES`). None is fitted to a result
the reproduction compares against.
"""

from __future__ import annotations

from pathlib import Path

# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------

#: WP/267 s4.1's arithmetic, "(6*1.22)/(64/8) = 91.5%", divides KB/s by 64/8 = 8 kB/s for
#: 64 kbit/s: 1 KB = 1000 bytes. File sizes are in these units.
KB = 1000
MSS = 500  # WP/267 s3.1: DATA-TPDUs of at most 500 bytes
#: Buffer maxima in tables 4-6, 4-10 and 4-13 (bits) are whole multiples of one DT NPDU:
#: 8,672 = 2 x 4,336; 13,008 = 3 x 4,336; 17,344 = 4 x 4,336; 26,016 = 6 x 4,336.
#: 4,336 bit = 542 bytes = 500 bytes of TPDU payload + 42 bytes of TPDU and CLNP headers.
DT_NPDU_BITS = 4336
BUFFER_MAXIMA_BITS = {"4-6": 26016, "4-10": 17344, "4-13 (phase 1)": 13008, "4-13 (phase 2)": 8672}
DT_NPDU_BYTES = DT_NPDU_BITS // 8
HEADER_BYTES = DT_NPDU_BYTES - MSS
#: The other maxima leave a remainder of 312 bit (39 bytes) per extra packet: 21,992 = 5 x 4,336
#: + 312 (table 4-3), 8,984 = 2 x 4,336 + 312 (4-3), 9,296 = 2 x 4,336 + 2 x 312 (4-10). We read
#: 39 bytes as the AK NPDU (the only other packet in the model).
AK_REMAINDERS_BITS = {"4-3 cross": (21992, 5, 1), "4-3 after": (8984, 2, 1), "4-10 after": (9296, 2, 2)}
ACK_BYTES = 39
ACCESS_RATE_BPS = 1_000_000
ACCESS_DELAY_MS = 5.0
PINCH_RATE_BPS = 64_000  # WP/267 s3.2.2
SPECIFIED_DELAY_MS = 500.0  # WP/267 s3 (1020 ms RTT with 4 x 5 ms of access links)
#: Two numbers of the paper that do not depend on the algorithm: the one-TPDU (0.5 KB) transfer
#: time, the same with and without congestion avoidance (table 4-7, first row: 0.38457 s and
#: 0.3846 s), and the unloaded minimum one-way delay of a DT NPDU (table 4-2, repeated in tables
#: 4-9, 4-12 and 4-14: 0.22913 s).
PAPER_ONE_TPDU_S = 0.38457
PAPER_MIN_DELAY_S = 0.22913
BUFFER_PKTS = 50
VARIANTS = ("specified", "as_run")
PINCH = "is1->is2"
PINCH_BACK = "is2->is1"


def _serialisation_s(size_bytes: int) -> float:
    """Time to clock one packet over an access link, the pinch point and another access link."""
    bits = size_bytes * 8
    return 2 * bits / ACCESS_RATE_BPS + bits / PINCH_RATE_BPS


def _fixed_s() -> float:
    """Propagation on the two access links of a path, one way."""
    return 2 * ACCESS_DELAY_MS / 1000


def derivation() -> dict[str, float]:
    """The as_run fixed delay on the pinch point, from tables 4-2 and 4-7 with our link model.

    With D the pinch point's one-way delay, a DT NPDU's unloaded one-way delay is
    ``x + D`` and the one-TPDU transfer time (DT there, AK back) is ``x + y + 2 D``, where x and y
    are the serialisation and access propagation of a DT and an AK NPDU. The two equations give
    D_min and D_ftt; they differ by about 1.4 ms. D solves both in the least-squares sense:
    D = (D_min + 4 D_ftt) / 5 (the second equation has coefficient 2)."""
    x = _serialisation_s(DT_NPDU_BYTES) + _fixed_s()
    y = _serialisation_s(ACK_BYTES) + _fixed_s()
    d_min = PAPER_MIN_DELAY_S - x
    d_ftt = (PAPER_ONE_TPDU_S - x - y) / 2
    d = (d_min + 4 * d_ftt) / 5
    return {"dt_one_way_s": x, "ak_one_way_s": y, "d_min_s": d_min, "d_ftt_s": d_ftt, "d_s": d,
            "min_delay_pred_s": x + d, "one_tpdu_pred_s": x + y + 2 * d,
            "rtt_s": x + y + 2 * d, "pipe_pkts": (x + y + 2 * d) * PINCH_RATE_BPS / (DT_NPDU_BYTES * 8)}


PINCH_DELAY_MS = {"specified": SPECIFIED_DELAY_MS, "as_run": round(derivation()["d_s"] * 1000, 3)}


def derivation_text() -> str:
    """The working of :func:`derivation`, for the scenario descriptions and the report."""
    d = derivation()
    return f"""\
Inputs derived from WP/267's own numbers (none fitted to a result compared against):
- 1 KB = 1000 bytes: s4.1 computes (6 * 1.22 KB/s) / (64/8) = 91.5 %.
- DT NPDU = {DT_NPDU_BYTES} bytes: the buffer maxima 26,016 / 17,344 / 13,008 / 8,672 bit (tables
  4-6, 4-10, 4-13) are 6 / 4 / 3 / 2 x {DT_NPDU_BITS} bit; so {HEADER_BYTES} bytes of headers on a
  500-byte TPDU. AK NPDU = {ACK_BYTES} bytes: the other maxima leave 312 bit per extra packet
  (21,992 = 5 x 4,336 + 312; 8,984 = 2 x 4,336 + 312; 9,296 = 2 x 4,336 + 2 x 312).
- Fixed delay D on the pinch point (as_run), from the one-TPDU transfer time 0.38457 s (table 4-7,
  the same with and without congestion avoidance) and the unloaded minimum delay 0.22913 s
  (tables 4-2, 4-9, 4-12, 4-14), with our access links ({ACCESS_RATE_BPS // 1000} kbit/s,
  {ACCESS_DELAY_MS:g} ms each):
    DT one way  = 2 x 4336/1e6 + 4336/64000 + 2 x 0.005 + D = {d['dt_one_way_s']:.6f} s + D
    AK one way  = 2 x 312/1e6 + 312/64000 + 2 x 0.005 + D  = {d['ak_one_way_s']:.6f} s + D
    min delay   : {d['dt_one_way_s']:.6f} + D = 0.22913        -> D = {d['d_min_s'] * 1000:.3f} ms
    one TPDU    : {d['dt_one_way_s'] + d['ak_one_way_s']:.6f} + 2 D = 0.38457   -> D = {d['d_ftt_s'] * 1000:.3f} ms
    least squares over both: D = (D_min + 4 D_ftt) / 5 = {d['d_s'] * 1000:.3f} ms; then the
    min delay is {d['min_delay_pred_s']:.5f} s ({(d['min_delay_pred_s'] - PAPER_MIN_DELAY_S) * 1000:+.1f} ms) and one TPDU takes
    {d['one_tpdu_pred_s']:.5f} s ({(d['one_tpdu_pred_s'] - PAPER_ONE_TPDU_S) * 1000:+.1f} ms). Unloaded RTT {d['rtt_s'] * 1000:.0f} ms = {d['pipe_pkts']:.2f} DT NPDUs
    of 64 kbit/s pipe.
"""


CHOICES = f"""\
Choices where WP/267 is silent (identical in every exercise; none fitted to the paper's results):
- Topology: senders -- is1 -- 64 kbit/s pinch point -- is2 -- receivers (figures 3-2..3-5 are not
  in our copy; this is the common 'pinch point' shape the text describes).
- Access links {ACCESS_RATE_BPS // 1000} kbit/s, {ACCESS_DELAY_MS:g} ms each way: 16x the pinch point so they never
  queue; with 500 ms on the pinch point (specified) the propagation RTT is s3.2.2's 1020 ms.
- One AK per DT (no delayed acks).
- Every port: drop-tail, {BUFFER_PKTS} packets. Every router output port that DT NPDUs of a
  congestion-avoiding receiver cross runs the DECbit hook (alpha = 1, WP/267 s5.1; average over
  the last regeneration cycle plus the busy period). The ports towards the senders carry only
  AKs, whose CE bit the transport ignores (s5.4 counts DT NPDUs), and a fixed-window receiver
  reads no bit: a hook on those ports would change nothing, and is refused.
- Transport: credit window from the `atn` receiver policy (beta 0.875, delta 1, W0 1,
  lambda 0.5, WP/267 s5.5); sender without congestion control (`cc = "none"`); retransmission
  on timeout only (TP4 style: dupack_threshold 1000, no SACK), RTO min 1 s, initial 3 s (so that the
  first TPDU of the 1 s-RTT variant is not retransmitted before its AK can arrive).
"""


# --------------------------------------------------------------------------------------------
# Scenario generation
# --------------------------------------------------------------------------------------------

def _tcp(receiver: dict) -> dict:
    return {"mss": MSS, "header_bytes": HEADER_BYTES, "ack_bytes": ACK_BYTES, "min_rto": "1s",
            "initial_rto": "3s", "dupack_threshold": 1000, "sack": False, "recovery": "newreno",
            "receiver": receiver}


ATN = {"kind": "atn"}
FIXED17 = {"kind": "fixed", "window_pkts": 17}  # WP/267 s3.4: 17-packet window, no CA
DECBIT = {"kind": "decbit", "alpha": 1.0, "averaging": "decbit_cycle"}


def unloaded_rtt_s(variant: str) -> float:
    """Round trip of one DT NPDU and its AK over access, pinch point and access links."""
    d = PINCH_DELAY_MS[variant] / 1000
    return _serialisation_s(DT_NPDU_BYTES) + _serialisation_s(ACK_BYTES) + 2 * _fixed_s() + 2 * d


def _scenario(name: str, variant: str, text: str, senders: list[str], receivers: list[str],
              flows: list[dict], duration: str, priority: bool = False,
              extra_delay_ms: dict[str, float] | None = None, trace: list[str] | None = None,
              link_rate_bps: dict[str, int] | None = None) -> dict:
    queue = ({"kind": "priority", "classes": 2, "acks_first": True, "limit_pkts": BUFFER_PKTS} if priority
             else {"kind": "droptail", "limit_pkts": BUFFER_PKTS})
    extra_delay_ms = extra_delay_ms or {}
    link_rate_bps = link_rate_bps or {}
    if priority:
        # DT TPDUs in the lower class 1; AK TPDUs go to class 0 (acks_first).
        flows = [{**f, "priority": 1} for f in flows]
    nodes = [{"name": "is1", "kind": "router"}, {"name": "is2", "kind": "router"}]
    nodes += [{"name": h, "kind": "host"} for h in senders + receivers]
    links = [{"a": "is1", "b": "is2", "rate": f"{PINCH_RATE_BPS // 1000}kbps",
              "delay": f"{PINCH_DELAY_MS[variant]:g}ms", "queue": queue, "hooks": [DECBIT]}]

    def access(h: str) -> tuple[str, str]:
        rate = link_rate_bps.get(h, ACCESS_RATE_BPS)
        return f"{rate // 1000}kbps", f"{ACCESS_DELAY_MS + extra_delay_ms.get(h, 0):g}ms"

    for h in senders:
        rate, delay = access(h)
        # No hook on is1 -> h: only AKs go that way (see CHOICES).
        links.append({"a": h, "b": "is1", "rate": rate, "delay": delay, "queue": queue})
    for h in receivers:
        rate, delay = access(h)
        link = {"a": "is2", "b": h, "rate": rate, "delay": delay, "queue": queue}
        # Only towards a receiver that counts CE bits (not one of s3.4's fixed windows).
        if any(f["dst"] == h and f["tcp"]["receiver"]["kind"] == "atn" for f in flows):
            link["hooks_ab"] = [DECBIT]
        links.append(link)
    vtext = ("Variant 'specified': WP/267 s3, 500 ms delay on the 64 kbit/s link." if variant == "specified" else
             f"Variant 'as_run': WP/267 s4 ran the exercises without s3's 500 ms delay; the pinch point's "
             f"fixed delay is the {PINCH_DELAY_MS['as_run']:g} ms the paper's own measurements imply (below).")
    return {
        "name": name,
        "description": f"{text.strip()}\n{vtext}\n\n{derivation_text()}\n{CHOICES}",
        "simulation": {"duration": duration, "seed": 1, "stop_when_done": True},
        "metrics": {"series_interval": "100ms", "packet_trace": True, "queue_trace": trace or [PINCH]},
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }


def _file(name: str, src: str, dst: str, size: int, start_s: float, receiver: dict = ATN) -> dict:
    return {"name": name, "src": src, "dst": dst, "start": f"{start_s * 1000:.0f}ms",
            "workload": {"kind": "file", "size": f"{size}B"}, "cc": "none", "tcp": _tcp(receiver)}


#: WP/267 s3.4: file sizes of exercise 3, in the paper's KB of 1000 bytes.
EX3_SIZES = [500, 1 * KB, 2 * KB, 4 * KB, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 128 * KB]
#: Exercise 3 runs its transfers one after another, this far apart (long enough for the slowest).
EX3_SPACING_S = 200.0
#: Exercise 4's "slower speed link to Rcv2" (s4.4): its rate is not stated. Swept over these
#: values (bit/s), each marked unstated in the report.
EX4_SLOW_LINK_BPS = (32_000, 64_000, 128_000, 256_000)


def exercise4(variant: str, slow_link_bps: int | None = None, priority: bool = False) -> dict:
    """Exercise 4 (s3.5). Without ``slow_link_bps``: connection 2's path has half connection 1's
    unloaded RTT of extra delay on rcv2's link, each way (s3.5: 'approximately twice the RTT').
    With it: rcv2's link runs at that rate and has no extra delay (s4.4: 'a slower speed link to
    Rcv2'; rate unstated)."""
    v = variant
    flows = [_file("t1", "snd1", "rcv1", 256 * KB, 0.0), _file("t2", "snd2", "rcv2", 256 * KB, 0.0)]
    prio = " Every port is strict priority with AK TPDUs first." if priority else ""
    if slow_link_bps is None:
        extra = unloaded_rtt_s(v) / 2 * 1000
        return _scenario(
            f"atn-exercise4-{v}" + ("-priority" if priority else ""), v,
            "ATN WP/267 s3.5: two 256 KB transfers from t = 0, snd1->rcv1 and snd2->rcv2; rcv2's link has "
            f"{extra:.1f} ms of extra delay each way (half connection 1's unloaded RTT), so connection 2's "
            "RTT is about twice connection 1's. (s4.4 says the paper used a slower link to Rcv2 instead; "
            "its speed is not given: see the slow-link variants.)" + prio,
            ["snd1", "snd2"], ["rcv1", "rcv2"], flows, "400s", extra_delay_ms={"rcv2": extra}, priority=priority)
    return _scenario(
        f"atn-exercise4-{v}-slowlink-{slow_link_bps // 1000}k" + ("-priority" if priority else ""), v,
        "ATN WP/267 s4.4: two 256 KB transfers from t = 0, snd1->rcv1 and snd2->rcv2, with 'a slower "
        f"speed link to Rcv2': {slow_link_bps // 1000} kbit/s (UNSTATED in the paper; one value of a sweep)."
        + prio, ["snd1", "snd2"], ["rcv1", "rcv2"], flows, "400s",
        link_rate_bps={"rcv2": slow_link_bps}, priority=priority)


def exercise5(variant: str, priority: bool) -> dict:
    v = variant
    return _scenario(
        f"atn-exercise5-{v}" + ("-priority" if priority else ""), v,
        "ATN WP/267 s3.6: from t = 0, 128 KB snd1->rcv1 (t1), 128 KB snd2->rcv1 (t2) and 256 KB "
        "rcv1->snd1 (t3), so DT and AK TPDUs share the pinch point in both directions."
        + (" Every port is strict priority with AK TPDUs first (the remedy s4.5 and s6 propose)."
           if priority else ""),
        ["snd1", "snd2"], ["rcv1"],
        [_file("t1", "snd1", "rcv1", 128 * KB, 0.0), _file("t2", "snd2", "rcv1", 128 * KB, 0.0),
         _file("t3", "rcv1", "snd1", 256 * KB, 0.0)],
        "400s", priority=priority, trace=[PINCH, PINCH_BACK])


def scenarios(variant: str) -> dict[str, dict]:
    """The exercises of WP/267 s3 for ``variant``, as scenario dictionaries keyed by file stem."""
    v = variant
    out: dict[str, dict] = {}
    for ex, gap, sec in ((1, 1.020, "3.2"), (2, 0.020, "3.3")):
        flows = [_file("t1", "snd1", "rcv1", 256 * KB, 0.0)]
        flows += [_file(f"t{k + 2}", "snd2", "rcv2", 64 * KB, 2.0 + k * gap) for k in range(5)]
        out[f"exercise{ex}_{v}"] = _scenario(
            f"atn-exercise{ex}-{v}", v,
            f"ATN WP/267 s{sec}: a 256 KB ATN transfer snd1->rcv1 from t = 0; five 64 KB cross transfers "
            f"snd2->rcv2 start at 2 s and every {gap * 1000:.0f} ms after.",
            ["snd1", "snd2"], ["rcv1", "rcv2"], flows, "400s")
    flows = []
    for i, size in enumerate(EX3_SIZES):
        flows.append(_file(f"ca_{size}", "snd1", "rcv1", size, 2 * i * EX3_SPACING_S, ATN))
        flows.append(_file(f"fixed_{size}", "snd1", "rcv1", size, (2 * i + 1) * EX3_SPACING_S, FIXED17))
    out[f"exercise3_{v}"] = _scenario(
        f"atn-exercise3-{v}", v,
        "ATN WP/267 s3.4: single transfers of 500 B .. 128 KB, each once with congestion avoidance "
        "(ca_*) and once with a fixed 17-packet window and no congestion avoidance (fixed_*), run one "
        f"after another {EX3_SPACING_S:g} s apart so that they never overlap.",
        ["snd1"], ["rcv1"], flows, f"{2 * len(EX3_SIZES) * EX3_SPACING_S:g}s")
    out[f"exercise4_{v}"] = exercise4(v)
    for prio in (False, True):
        out[f"exercise5_{v}" + ("_priority" if prio else "")] = exercise5(v, prio)
    # s3.7 / s4.6: five non-compliant cross transfers of 64 KB. s4.6 ran them as transfers "without
    # any congestion avoidance" that retransmit (38 retransmissions) and have windows (figure 4-23):
    # transport transfers with s3.4's no-CA window of 17 packets, starting as s3.7 says.
    flows = [_file("t1", "snd1", "rcv1", 256 * KB, 0.0)]
    flows += [_file(f"t{k + 2}", "snd2", "rcv2", 64 * KB, 2.0 + k * 1.020, FIXED17) for k in range(5)]
    out[f"exercise6_{v}"] = _scenario(
        f"atn-exercise6-{v}", v,
        "ATN WP/267 s3.7/s4.6: the 256 KB ATN transfer of exercise 1 with five non-compliant cross "
        "transfers snd2->rcv2 of 64 KB each, starting at 2 s and every 1020 ms after (s3.7). They are "
        "transport transfers without congestion avoidance: a fixed 17-packet credit window (s3.4's "
        "no-CA window), retransmission on timeout, because s4.6 reports windows (figure 4-23) and 38 "
        "retransmissions for them. (s3.7's Poisson packet process at 80 % of the link describes an "
        "unresponsive source, which cannot retransmit; s4.6 shows the paper ran transfers.) Limited to "
        "100 s as in s4.6.",
        ["snd1", "snd2"], ["rcv1", "rcv2"], flows, "100s")
    return out


def write_scenarios(directory: Path | None = None) -> list[Path]:
    """Writes every exercise in both variants as TOML; returns the paths."""
    import tomli_w

    from .. import scenarios_dir

    d = Path(directory) if directory is not None else scenarios_dir() / "atn"
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for v in VARIANTS:
        for stem, sc in scenarios(v).items():
            p = d / f"{stem}.toml"
            p.write_text("# Generated by `python -m pinchpoint.reproduce.atn`; do not edit by hand.\n"
                         + tomli_w.dumps(sc, multiline_strings=True))
            paths.append(p)
    return paths


# --------------------------------------------------------------------------------------------
# The paper's numbers (WP/267 section 4), transcribed
# --------------------------------------------------------------------------------------------

#: Total file transfer time (s) per transfer; tables 4-1, 4-4, 4-8, 4-11.
PAPER_FTT: dict[int, dict[str, float]] = {
    1: {"t1": 81.3006, "t2": 52.1678, "t3": 52.6122, "t4": 52.4090, "t5": 52.4522, "t6": 51.7613},  # 4-1
    2: {"t1": 80.4010, "t2": 51.5893, "t3": 51.2597, "t4": 51.9535, "t5": 51.8667, "t6": 51.8493},  # 4-4
    4: {"t1": 77.12, "t2": 44.73},  # 4-8
    5: {"t1": 34.8047, "t2": 54.0901, "t3": 58.4229},  # 4-11
}
#: Throughput (KB/s) as printed; same tables.
PAPER_TPUT: dict[int, dict[str, float]] = {
    1: {"t1": 3.149, "t2": 1.227, "t3": 1.216, "t4": 1.221, "t5": 1.220, "t6": 1.236},
    2: {"t1": 3.184, "t2": 1.241, "t3": 1.249, "t4": 1.232, "t5": 1.234, "t6": 1.234},
    4: {"t1": 3.3195, "t2": 5.7234},
    5: {"t1": 3.678, "t2": 2.366, "t3": 4.382},
}
#: s4.1: utilisation of the pinch point while all six transfers run, from throughputs.
PAPER_UTIL_EX1 = 0.915
#: Table 4-7: size (KB) -> ("Congestion Avoidance" time s, KB/s, "No Congestion Avoidance" time s, KB/s).
PAPER_EX3: dict[float, tuple[float, float, float, float]] = {
    0.5: (0.38457, 1.300, 0.3846, 1.300147),
    1: (0.45836, 2.182, 0.7752, 1.290028),
    2: (0.59077, 3.385, 1.1582, 1.726773),
    4: (0.85468, 4.680, 1.8512, 2.160761),
    8: (1.39267, 5.744, 2.69809, 2.965060),
    16: (2.46866, 6.481, 4.44587, 3.598846),
    32: (4.62654, 6.917, 8.31632, 3.847856),
    64: (8.92711, 7.169, 15.6069, 4.100750),
    128: (17.5283, 7.302, 28.6443, 4.468603),
}
#: End-to-end delay (s): (exercise, flows, phase) -> (mean, min, max, std); tables 4-2, 4-5, 4-9,
#: 4-12, 4-14. Table 4-14's second row (min = max = std = 0.13488) is printed that way.
PAPER_DELAY: dict[tuple[int, str, str], tuple[float, float, float, float]] = {
    (1, "snd1->rcv1", "cross"): (0.32265, 0.24313, 0.51254, 0.09745),
    (1, "snd1->rcv1", "after"): (0.27084, 0.22913, 0.31405, 0.03355),
    (1, "snd2->rcv2", "cross"): (0.35781, 0.21242, 0.53254, 0.08811),
    (2, "snd1->rcv1", "cross"): (0.33267, 0.24313, 0.50778, 0.08123),
    (2, "snd1->rcv1", "after"): (0.27248, 0.18545, 0.30929, 0.03384),
    (2, "snd2->rcv2", "cross"): (0.36317, 0.20888, 0.59394, 0.10288),
    (4, "snd1->rcv1", "cross"): (0.31754, 0.22046, 0.44162, 0.04854),
    (4, "snd1->rcv1", "after"): (0.24751, 0.22913, 0.30482, 0.02626),
    (4, "snd2->rcv2", "cross"): (0.33631, 0.20837, 0.45700, 0.04644),
    (5, "snd1->rcv1", "cross"): (0.22897, 0.15383, 0.39337, 0.06478),
    (5, "snd2->rcv1", "cross"): (0.30840, 0.16804, 0.42103, 0.05062),
    (5, "rcv1->snd1", "cross"): (0.22893, 0.15383, 0.39118, 0.06454),
    (5, "snd2->rcv1", "after"): (0.26084, 0.22913, 0.32010, 0.03325),
    (5, "rcv1->snd1", "after"): (0.26772, 0.22484, 0.32230, 0.035503),
    (6, "snd1->rcv1", "all"): (1.15881, 0.22913, 1.99948, 0.53205),
    (6, "snd2->rcv2", "all"): (1.38528, 0.13488, 0.13488, 0.13488),
}
#: Buffer load (bits) at the pinch point: (exercise, port, phase) -> (mean, min, max, std);
#: tables 4-3, 4-6, 4-10, 4-13, 4-15. (Table 4-10's cross-traffic mean, 46,263.30, exceeds its
#: own maximum of 17,344 and equals table 4-15's mean: probably a copying error in the paper.)
PAPER_BUFFER: dict[tuple[int, str, str], tuple[float, float, float, float]] = {
    (1, PINCH, "cross"): (5568.41, 0, 21992, 6389.24),
    (1, PINCH, "after"): (3235.45, 0, 8984, 3371.39),
    (2, PINCH, "cross"): (5850.03, 0, 26016, 6836.58),
    (2, PINCH, "after"): (3252.50, 0, 8672, 3391.87),
    (4, PINCH, "cross"): (46263.30, 0, 17344, 3725.58),
    (4, PINCH, "after"): (2696.51, 0, 9296, 2867.85),
    (5, PINCH, "cross"): (2833.58, 0, 13008, 3618.07),
    (5, PINCH_BACK, "cross"): (2381.42, 0, 13008, 3156.03),
    (5, PINCH, "after"): (2261.99, 0, 8672, 2897.68),
    (5, PINCH_BACK, "after"): (2473.48, 0, 8672, 2473.48),
    (6, PINCH, "all"): (46263.30, 0, 124144, 41917.00),
}
#: s4.6: TPDUs transferred and retransmissions in exercise 6 (all connections).
PAPER_EX6_TPDUS = (2520, 38)


def table_4_7_reading() -> dict[str, list[float]]:
    """Table 4-7's columns in the paper's own terms: time added per doubling of the file size,
    in units of the one-TPDU time (one unloaded round trip), and the payload rate implied by the
    large files. The "Congestion Avoidance" column adds time in proportion to the size (about
    0.1344 s per KB at every step from 8 KB on: 7.44 KB/s, 93 % of 64 kbit/s): it is never
    window-limited, as a fixed 17-packet window (more than the 5.7-packet pipe) would be. The
    "No Congestion Avoidance" column adds one round trip per doubling for the first doublings
    (0.39 and 0.38 s against 0.3846 s), as a window that starts at 1 and grows does."""
    sizes = sorted(PAPER_EX3)
    out: dict[str, list[float]] = {"size_kb": sizes[1:], "ca_step_rtts": [], "noca_step_rtts": [],
                                   "ca_s_per_kb": [], "noca_s_per_kb": []}
    rtt = PAPER_ONE_TPDU_S
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        dca = PAPER_EX3[b][0] - PAPER_EX3[a][0]
        dno = PAPER_EX3[b][2] - PAPER_EX3[a][2]
        out["ca_step_rtts"].append(dca / rtt)
        out["noca_step_rtts"].append(dno / rtt)
        out["ca_s_per_kb"].append(dca / (b - a))
        out["noca_s_per_kb"].append(dno / (b - a))
    return out


def paper_kb(size_bytes: int) -> float:
    """A file size in the paper's KB (1000 bytes)."""
    return size_bytes / KB

