"""Max-min fair rates of a scenario's flows at an instant: the optimum a rate allocator such as
RBCC should reach, computed from the topology, the routes and the flows alone.

The calculation is independent of the RBCC port hook (no code is shared), so each checks the
other. It follows the thesis's own working of the optimum (Toomey 1998 ch. 9, seminar 1996
s11; see ``docs/algorithms/maxmin.md``):

* every flow sends data on its forward path at rate ``r`` (bit/s on the wire) and its
  acknowledgements load every port of its reverse path with ``r * a``, where
  ``a = ack size / (data size * data packets per ack)`` (1500-byte data, 40-byte acks: 1/37.5);
* a flow's rate is capped by its desired rate (TRUMP ``desired_rate``, a UDP flow's own rate)
  and by its token-bucket shaper's rate (``shaper.rate``: the bucket counts on-wire bytes, so
  its rate bounds the data rate on the wire in the long run);
* the data rates are the max-min fair (progressive filling, "water-filling") allocation of each
  port's capacity *net of the acknowledgement load on it*. The ack load depends on the rates
  themselves, so the net capacities and the filling are iterated to a fixed point. The ack
  fraction is small (a < 1/2 in any sensible scenario), which makes the iteration a contraction;
  it stops when no rate moves by more than 1e-9 bit/s.

Routes come from the Rust core (``_native.paths_at``), so they are exactly the ports the packets
of a run follow at that instant, explicit routes and timed changes included.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import _native
from .scenario import Scenario

__all__ = ["FlowDemand", "maxmin", "flows_of", "MaxminResult"]


def _num(text: Any, unit: str) -> float:
    """Parses the canonical unit strings of a resolved scenario ("64000bps", "1500B", "5ps")."""
    if isinstance(text, (int, float)):
        return float(text)
    m = re.fullmatch(r"([0-9.eE+-]+)" + unit, str(text))
    if not m:
        raise ValueError(f"expected a value in {unit}, got {text!r}")
    return float(m.group(1))


@dataclass
class FlowDemand:
    """What the calculator needs to know about one flow."""

    name: str
    start_s: float
    #: Largest rate the source wants or its shaper lets through, bit/s (inf: no cap).
    cap_bps: float = math.inf
    #: Reverse-path (ack) load per unit of data rate.
    ack_fraction: float = 0.0
    forward: list[int] = field(default_factory=list)
    reverse: list[int] = field(default_factory=list)
    #: What sets ``cap_bps``, reported as the limit of a flow that reaches it.
    cap_source: str = "desired rate"


@dataclass
class MaxminResult:
    """The allocation at one instant."""

    at_s: float
    #: flow name -> rate, bit/s (only the flows active at ``at_s``).
    rates_bps: dict[str, float]
    #: flow name -> name of the port (or "desired rate", or "shaper rate") that limits it.
    bottleneck: dict[str, str]
    #: port name -> (capacity, data load, ack load), bit/s, for the ports any active flow uses.
    ports: dict[str, tuple[float, float, float]]
    iterations: int

    def table(self) -> list[tuple[str, float, str]]:
        return [(f, self.rates_bps[f], self.bottleneck[f]) for f in self.rates_bps]


def _scenario_text(scenario: Scenario | str | Path) -> tuple[str, str, str]:
    from .api import _text

    # run's and validate's reading: a missing file or a directory is a ScenarioError naming it.
    return _text(scenario)


class ArgumentError(ValueError):
    """A bad argument of ``maxmin`` or ``flows_of``. ``argument`` is its name (``at``, ``active``),
    ``value`` how it was given (or None), ``detail`` what was expected; the CLI names its option
    from these instead of rewriting the message."""

    def __init__(self, origin: str, argument: str, value: str | None, detail: str):
        self.origin, self.argument, self.value, self.detail = origin, argument, value, detail
        super().__init__(f"{origin}: {argument}" + ("" if value is None else f" = {value}") + f": {detail}")


def flows_of(scenario: Scenario | str | Path, at: float = 0.0) -> tuple[list[FlowDemand], list[tuple[str, float]]]:
    """Every flow's demand (cap, ack fraction, paths at ``at``) and the ports (name, rate)."""
    text, origin, fmt = _scenario_text(scenario)
    resolved = tomllib.loads(_native.validate(text, origin, fmt))
    duration_s = _num(resolved["simulation"]["duration"], "ps") * 1e-12
    # The end itself is a valid instant: the routes and flows in force when the run ends (the
    # TRUMP reproduction compares RBCC's final rates with it).
    if at > duration_s:
        raise ArgumentError(origin, "at", f"{at:g} s", "expected an instant no later than the end of the run "
                            f"(simulation.duration = {duration_s:g} s)")
    paths = _native.paths_at(text, origin, fmt, float(at))
    ports = [(n, float(r)) for n, r in paths["ports"]]
    by_name = {n: (fw, rv) for n, fw, rv in paths["flows"]}
    out = []
    for f in resolved.get("flows", []):
        kind = f.get("transport", "tcp")
        start = _num(f.get("start", "0ps"), "ps") * 1e-12
        cap, ack = math.inf, 0.0
        if kind == "trump":
            t = f.get("trump", {})
            lo = _num(t.get("packet_size", "1500B"), "B")
            hi = _num(t.get("packet_size_max", f"{lo}B"), "B")
            data = (lo + hi) / 2.0
            ack = _num(t.get("ack_size", "40B"), "B") / (data * int(t.get("sack_every", 1)))
            if "desired_rate" in t:
                cap = _num(t["desired_rate"], "bps")
        elif kind == "tcp":
            t = f.get("tcp", {})
            data = _num(t.get("mss", 1448), "") + _num(t.get("header_bytes", 52), "")
            per_ack = 2 if t.get("delayed_ack", False) else 1
            ack = _num(t.get("ack_bytes", 52), "") / (data * per_ack)
        else:  # udp: unresponsive, no acks, sends at its own rate
            w = f.get("workload", {})
            if "rate" in w:
                cap = _num(w["rate"], "bps")
        source = "desired rate"
        # A fixed token bucket passes at most `rate` of on-wire bytes in the long run, its one
        # initial burst aside (shaper/token_bucket.rs). ECA's pacer (`wtp`) follows the
        # reflected load instead, so it sets no cap of its own here.
        shaper_bps = _num(f["shaper"]["rate"], "bps") if "shaper" in f else math.inf
        if shaper_bps < cap:
            cap, source = shaper_bps, "shaper rate"
        fw, rv = by_name[f["name"]]
        out.append(FlowDemand(f["name"], start, cap, ack, list(fw), list(rv), source))
    return out, ports


def _fill(active: list[FlowDemand], cap: list[float], ack_load: list[float]) -> tuple[list[float], list[str]]:
    """Progressive filling of the data rates over capacities net of the given ack loads."""
    n = len(active)
    rate = [0.0] * n
    frozen = [False] * n
    why = [""] * n
    residual = [max(0.0, c - a) for c, a in zip(cap, ack_load)]
    users: dict[int, list[int]] = {}
    for i, f in enumerate(active):
        for p in f.forward:
            users.setdefault(p, []).append(i)
    while not all(frozen):
        # The level every unfrozen flow can still rise by: the tightest port or cap.
        step, limit = math.inf, None
        for p, us in users.items():
            k = sum(1 for i in us if not frozen[i])
            if k:
                s = residual[p] / k
                if s < step:
                    step, limit = s, ("port", p)
        for i, f in enumerate(active):
            if not frozen[i] and f.cap_bps - rate[i] < step:
                step, limit = f.cap_bps - rate[i], ("cap", i)
        if limit is None or math.isinf(step):
            raise ValueError("a flow crosses no port with finite capacity")
        for i in range(n):
            if not frozen[i]:
                rate[i] += step
                for p in active[i].forward:
                    residual[p] -= step
        # Freeze every flow on a saturated port and every flow at its cap.
        for i, f in enumerate(active):
            if frozen[i]:
                continue
            if math.isfinite(f.cap_bps) and f.cap_bps - rate[i] <= 1e-9 * max(1.0, f.cap_bps):
                frozen[i], why[i] = True, f.cap_source
                continue
            for p in f.forward:
                if residual[p] <= 1e-9 * max(1.0, cap[p]):
                    frozen[i], why[i] = True, f"port {p}"
                    break
    return rate, why


def maxmin(scenario: Scenario | str | Path, at: float = 0.0, active: list[str] | None = None,
           tolerance_bps: float = 1e-9, max_iterations: int = 10_000) -> MaxminResult:
    """Max-min fair rates of the flows active at time ``at`` (s).

    Args:
        scenario: a scenario file or builder.
        at: the instant; the routes in force then are used, and by default the active flows are
            those whose start time is at or before ``at``.
        active: names of the active flows, overriding the start-time rule (for instants after
            some finite flows have completed).
    """
    demands, ports = flows_of(scenario, at)
    if active is None:
        act = [d for d in demands if d.start_s <= at]
    else:
        names = set(active)
        unknown = names - {d.name for d in demands}
        if unknown:
            raise ArgumentError(_scenario_text(scenario)[1], "active", None, f"unknown flows {', '.join(sorted(unknown))} (the scenario's flows: "
                                f"{', '.join(d.name for d in demands)})")
        act = [d for d in demands if d.name in names]
    cap = [r for _, r in ports]
    ack_load = [0.0] * len(ports)
    rate: list[float] = [0.0] * len(act)
    why: list[str] = [""] * len(act)
    it = 0
    for it in range(1, max_iterations + 1):
        rate_new, why = _fill(act, cap, ack_load)
        ack_load = [0.0] * len(ports)
        for f, r in zip(act, rate_new):
            for p in f.reverse:
                ack_load[p] += r * f.ack_fraction
        moved = max((abs(a - b) for a, b in zip(rate, rate_new)), default=0.0)
        rate = rate_new
        if moved <= tolerance_bps:
            break
    else:
        raise RuntimeError(f"no fixed point after {max_iterations} iterations (ack fractions too large?)")
    data_load = [0.0] * len(ports)
    for f, r in zip(act, rate):
        for p in f.forward:
            data_load[p] += r
    used = sorted({p for f in act for p in f.forward + f.reverse})
    names = [n for n, _ in ports]
    return MaxminResult(
        at_s=at,
        rates_bps={f.name: r for f, r in zip(act, rate)},
        bottleneck={f.name: (names[int(w.split()[1])] if w.startswith("port") else w) for f, w in zip(act, why)},
        ports={names[p]: (cap[p], data_load[p], ack_load[p]) for p in used},
        iterations=it,
    )
