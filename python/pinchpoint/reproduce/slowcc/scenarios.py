"""Seed 004: what runs. The algorithms compared (:class:`Variant`; the seed's lists per
experiment), which of them the installed build offers, and the scenario of each experiment: the
dumbbell of ``scenarios/seeds/slowcc/dumbbell.toml`` with the experiment's flows added."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...registry import kind_fields
from ...scenario import Scenario
from .. import scenarios_dir

BOTTLENECK = "r1->r2"
LINK_BPS = 15e6
PAYLOAD_BYTES = 1000
WIRE_BYTES = 1040
RTT_S = 0.05
TCP = {"mss": PAYLOAD_BYTES, "header_bytes": 40, "ack_bytes": 40}
# ns-2 of 2001 (GAPS.md seed 004 s3): RED in packets, 5 / 15, w_q 0.002, max_p 0.1, gentle.
RED_2001 = {"kind": "red", "min_th_pkts": 5, "max_th_pkts": 15, "w_q": 0.002, "max_p": 0.1, "gentle": True,
            "limit_pkts": 100}
CBR_BPS = 10e6  # two thirds of the link (square wave: GAPS.md seed 004 s2; used for fig. 6 too)
START_SPREAD_S = 10.0


@dataclass(frozen=True)
class Variant:
    """One algorithm: a TCP controller or TFRC."""

    label: str
    transport: str  # "tcp" or "tfrc"
    cc: dict[str, Any] | None = None
    tfrc: dict[str, Any] | None = None
    # a / b of AIMD or k / l / beta of binomial, to fill whatever field names the schema uses
    params: dict[str, float] = field(default_factory=dict)


def aimd_a(b: float) -> float:
    """The seed's TCP-compatibility rule a = 4(2b - b^2)/3 (s II)."""
    return 4.0 * (2.0 * b - b * b) / 3.0


def _aimd(b: float) -> Variant:
    return Variant(f"TCP(1/{round(1 / b)})", "tcp", {"kind": "aimd"}, params={"a": aimd_a(b), "b": b})


def _binomial(name: str, k: float, l_: float, beta: float) -> Variant:
    return Variant(f"{name}(1/{round(1 / beta)})", "tcp", {"kind": "binomial"},
                   params={"k": k, "l": l_, "beta": beta})


TCP_STD = Variant("TCP(1/2)", "tcp", None)  # NewReno with SACK, the project's default TCP
VARIANTS: dict[str, Variant] = {v.label: v for v in [
    TCP_STD,
    _aimd(1 / 8),
    _aimd(1 / 256),
    Variant("TFRC(8)", "tfrc", tfrc={"loss_intervals": 8, "history_discounting": True}),
    Variant("TFRC(6)", "tfrc", tfrc={"loss_intervals": 6, "history_discounting": True}),
    Variant("TFRC(256)", "tfrc", tfrc={"loss_intervals": 256, "history_discounting": True}),
    Variant("TFRC(256)+SC", "tfrc", tfrc={"loss_intervals": 256, "history_discounting": True, "self_clocking": True}),
    Variant("TFRC(8)+SC", "tfrc", tfrc={"loss_intervals": 8, "history_discounting": True, "self_clocking": True}),
    _binomial("IIAD", 1.0, 0.0, 1 / 2),
    _binomial("SQRT", 0.5, 0.5, 1 / 2),
    _binomial("SQRT", 0.5, 0.5, 1 / 256),
]}
# The seed's lists (Table 1; s III flash crowd; Tables 7.2 and figs 17-19).
CBR_SET = ["TFRC(8)", "TFRC(8)+SC", "TCP(1/2)", "TCP(1/256)", "SQRT(1/256)"]
FLASH_SET = ["TCP(1/2)", "TCP(1/8)", "TCP(1/256)", "TFRC(8)", "TFRC(256)", "TFRC(256)+SC", "IIAD(1/2)", "SQRT(1/2)"]
SQUARE_SET = ["TFRC(8)", "TCP(1/8)", "SQRT(1/2)"]
COMPAT_SET = ["TCP(1/2)", "TCP(1/8)", "TCP(1/256)", "TFRC(8)", "TFRC(256)", "TFRC(256)+SC", "IIAD(1/2)", "SQRT(1/2)"]
# Issue 12's TCP-compatibility figure: one line per algorithm.
BERNOULLI_SET = ["TCP(1/2)", "TFRC(6)", "TCP(1/8)", "TCP(1/256)", "SQRT(1/2)", "IIAD(1/2)"]


# ---- what the installed build offers ---------------------------------------------------------

def _kind_properties(kind: str, family: str = "cc") -> set[str] | None:
    """Field names of `kind`'s table in `family` (None: the build has no such kind)."""
    return kind_fields(family, kind)


def _cc_config(v: Variant) -> dict[str, Any] | None:
    """The `cc` table of a TCP variant, with the parameter names the schema uses; None if the
    controller kind does not exist in this build."""
    if v.cc is None:
        return None
    props = _kind_properties(v.cc["kind"])
    if props is None:
        return None
    cfg = dict(v.cc)
    aliases = {"a": ["a", "increase", "alpha"], "b": ["b", "decrease", "beta"],
               "k": ["k"], "l": ["l"], "beta": ["beta", "b", "decrease"]}
    for name, value in v.params.items():
        for alias in aliases.get(name, [name]):
            if alias in props and alias not in cfg:
                cfg[alias] = value
                break
    return cfg


def available(v: Variant) -> bool:
    return v.transport == "tfrc" or v.cc is None or _cc_config(v) is not None


def red_available() -> bool:
    return _kind_properties("red", "queue") is not None


# ---- scenario building -----------------------------------------------------------------------

def base(duration_s: float, seed: int = 1, series_s: float = 0.1) -> Scenario:
    s = Scenario.from_file(scenarios_dir() / "slowcc" / "dumbbell.toml")
    s.set("simulation.duration", f"{duration_s}s")
    s.set("simulation.seed", seed)
    s.set("metrics.series_interval", f"{series_s}s")
    if red_available():
        s.set("links.0.queue_ab", dict(RED_2001))
    return s


def add_flow(s: Scenario, name: str, v: Variant, start: float = 0.0, jitter: float = 0.0,
             workload: dict[str, Any] | None = None, src: str = "ls", dst: str = "ld") -> None:
    f: dict[str, Any] = {"name": name, "src": src, "dst": dst, "start": f"{start}s",
                         "workload": workload or {"kind": "bulk"}, "transport": v.transport}
    if jitter > 0:
        f["start_jitter"] = f"{jitter}s"
    if v.transport == "tcp":
        f["tcp"] = dict(TCP)
        cc = _cc_config(v)
        if cc is not None:
            f["cc"] = cc
    else:
        f["tfrc"] = {"packet_size": PAYLOAD_BYTES, "header_bytes": 40, **(v.tfrc or {})}
    s.data["flows"].append(f)


def add_cbr(s: Scenario, name: str, start: float, duration: float, rate_bps: float = CBR_BPS) -> None:
    s.data["flows"].append({"name": name, "src": "cs", "dst": "cd", "start": f"{start}s", "transport": "udp",
                            "workload": {"kind": "cbr", "rate": rate_bps, "packet_size": WIRE_BYTES,
                                         "duration": f"{duration}s"}})


# ---- the experiments' scenarios --------------------------------------------------------------

def cbr_scenario(v: Variant, scale: float = 1.0, seed: int = 1) -> Scenario:
    """15 long-lived flows, CBR on [0, 100) and [150, 250) (times x `scale`)."""
    s = base(250 * scale, seed)
    for i in range(15):
        add_flow(s, f"long{i}", v, start=0.0, jitter=START_SPREAD_S * scale)
    add_cbr(s, "cbr_a", 0.0, 100 * scale)
    add_cbr(s, "cbr_b", 150 * scale, 100 * scale)
    return s


def flash_scenario(v: Variant, n_short: int = 1000, duration_s: float = 60.0, seed: int = 1) -> Scenario:
    """15 long-lived flows of ``v`` and a flash crowd: ``n_short`` TCP transfers of 10 packets
    arriving as a Poisson process of 100 per second from t = 20 s (the ``flash_crowd`` arrival
    process, docs/traffic/arrivals.md), each a flow of its own freed when it finishes."""
    s = base(duration_s, seed, series_s=0.5)
    for i in range(15):
        add_flow(s, f"long{i}", v, start=0.0, jitter=START_SPREAD_S)
    s.data.setdefault("arrivals", []).append({
        "name": "short", "group": "short", "src": "ws", "dst": "wd", "tcp": dict(TCP),
        "process": {"kind": "flash_crowd", "count": n_short, "rate_per_s": 100.0, "at": "20s",
                    "size": {"kind": "fixed", "bytes": 10 * PAYLOAD_BYTES}}})
    return s


def square_scenario(v: Variant, period_s: float, duration_s: float, seed: int = 1) -> Scenario:
    """7 TCP + 7 `v`; CBR of 10 Mbit/s on for the first half of every period."""
    s = base(duration_s, seed, series_s=1.0)
    for i in range(7):
        add_flow(s, f"tcp{i}", TCP_STD, jitter=1.0)
        add_flow(s, f"alt{i}", v, jitter=1.0)
    k = 0
    t = 0.0
    while t < duration_s:
        add_cbr(s, f"cbr{k}", round(t, 6), period_s / 2)
        k += 1
        t += period_s
    return s


def compat_scenario(v: Variant, link_bps: float, duration_s: float, seed: int = 1) -> Scenario:
    """4 TCP + 4 `v` on one bottleneck of `link_bps`: both see the same loss."""
    s = base(duration_s, seed, series_s=0.1)
    s.set("links.0.rate", link_bps)
    for i in range(4):
        add_flow(s, f"tcp{i}", TCP_STD, jitter=2.0)
        add_flow(s, f"alt{i}", v, jitter=2.0)
    return s


BERNOULLI_LINK_BPS = 100e6


def bernoulli_scenario(v: Variant, p: float, duration_s: float, seed: int = 1) -> Scenario:
    """One flow of `v` alone on the dumbbell with the bottleneck raised to 100 Mbit/s, a
    1000-packet drop-tail queue that never fills, and Bernoulli loss of probability `p` on the
    bottleneck link (both directions, as the link loss model does): every loss is random and
    independent of the flow's rate."""
    s = base(duration_s, seed, series_s=1.0)
    s.set("links.0.rate", BERNOULLI_LINK_BPS)
    s.set("links.0.queue_ab", {"kind": "droptail", "limit_pkts": 1000})
    s.set("links.0.loss", {"kind": "bernoulli", "p": p})
    add_flow(s, "f", v)
    return s
