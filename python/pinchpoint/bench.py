"""The dumbbell benchmark (``pinchpoint bench``): wall time of the simulation loop, packet-hops
per second, aggregate goodput, Jain's index and bottleneck drops."""

from __future__ import annotations

import json
import time
from typing import Any

from rich.table import Table

from . import _native

JSON_KEYS = ("simulator", "n_flows", "sim_s", "bottleneck_bps", "wall_s", "packet_hops_per_s", "goodput_bps", "jain", "drops")

#: From this many flows up, the benchmark staggers start times by default (bench/README.md): with
#: every flow starting at t = 0 the large dumbbells lock into synchronised timeouts where the same
#: few flows win every retransmission race, and most flows carry nothing.
JITTER_FROM_FLOWS = 1000
#: The default stagger: each flow starts at a uniform random time in [0, 100 ms), drawn from the
#: flow's own seeded stream (`start_jitter`), so runs repeat exactly.
DEFAULT_JITTER_MS = 100.0


def default_jitter_ms(n_flows: int) -> float:
    """Start jitter used when none is asked for: none below ``JITTER_FROM_FLOWS`` flows (so the N = 10
    and 100 rows stay comparable with earlier tables and with ns-3, whose flows all start at 0)."""
    return DEFAULT_JITTER_MS if n_flows >= JITTER_FROM_FLOWS else 0.0


def bottleneck_bps(scenario: str | dict[str, Any]) -> float:
    """Rate of the A->B bottleneck of a dumbbell scenario (``dumbbell_scenario``, or its JSON
    text), bit/s, as the Rust preset wrote it (``"<number>bps"``)."""
    sc = json.loads(scenario) if isinstance(scenario, str) else scenario
    (rate,) = [link["rate"] for link in sc["links"] if (link["a"], link["b"]) == ("A", "B")]
    if not (isinstance(rate, str) and rate.endswith("bps")):
        raise ValueError(f"dumbbell bottleneck rate: expected '<number>bps', got {rate!r}")
    return float(rate[:-3])


def _preset_text(n_flows: int, sim_s: float, per_flow_mbps: float | None) -> str:
    return _native.preset_dumbbell(n_flows, sim_s, None if per_flow_mbps is None else per_flow_mbps * 1e6)


def dumbbell_scenario(n_flows: int, sim_s: float, jitter_ms: float = 0.0, per_flow_mbps: float | None = None) -> dict[str, Any]:
    """The benchmark dumbbell as a scenario dict, with ``start_jitter`` on every flow if asked.
    With ``per_flow_mbps`` the bottleneck grows with the flows: ``n_flows`` x that rate and 10
    packets of buffer per flow (``presets::dumbbell_scaled``; at 10 flows and 10 Mbit/s it is the
    bench dumbbell), so every N gives each flow the same share."""
    sc = json.loads(_preset_text(n_flows, sim_s, per_flow_mbps))
    if jitter_ms > 0:
        for f in sc["flows"]:
            f["start_jitter"] = f"{jitter_ms:g}ms"
    return sc


def dumbbell_text(n_flows: int, sim_s: float, jitter_ms: float = 0.0, per_flow_mbps: float | None = None) -> str:
    """``dumbbell_scenario`` as JSON text (the preset's own text when nothing is changed)."""
    if jitter_ms > 0:
        return json.dumps(dumbbell_scenario(n_flows, sim_s, jitter_ms, per_flow_mbps))
    return _preset_text(n_flows, sim_s, per_flow_mbps)


def run_pinchpoint(n_flows: int, sim_s: float = 30.0, repeat: int = 1, jitter_ms: float | None = None,
                   per_flow_mbps: float | None = None) -> dict[str, Any]:
    """Runs the dumbbell preset; times only the simulation loop (the fastest of ``repeat``).
    ``jitter_ms``: start jitter per flow (None: ``default_jitter_ms``); ``per_flow_mbps``: the
    bottleneck's rate per flow (None: the fixed 100 Mbit/s, see ``dumbbell_scenario``)."""
    best: dict[str, Any] | None = None
    if jitter_ms is None:
        jitter_ms = default_jitter_ms(n_flows)
    # Parsed once: the scenario's text is 83 MB at 100,000 flows (0.9 s to parse).
    sc = dumbbell_scenario(n_flows, sim_s, jitter_ms, per_flow_mbps)
    rate_bps = bottleneck_bps(sc)
    text = json.dumps(sc)
    for _ in range(max(1, repeat)):
        sim = _native.Simulation(text, f"<dumbbell-{n_flows}>", "json")
        sim.wait_for_texts()  # the resolved scenario's thread, done before the timed loop
        t0 = time.perf_counter()
        sim.run_until(sim.end_s)
        wall = time.perf_counter() - t0
        if best is None or wall < best["wall_s"]:
            from .results import Results
            res = Results(sim.results(), sim.resolved_toml, wall_s=wall)
            flows = res.flows
            ports = res.ports
            hops = res.meta["packet_hops"]
            best = {
                "simulator": "pinchpoint",
                "n_flows": n_flows,
                "sim_s": sim_s,
                "wall_s": wall,
                "packet_hops_per_s": hops / wall,
                "goodput_bps": float(flows["goodput_bps"].sum()),
                "jain": res.jain(),
                "drops": int(ports.loc[ports["port"] == "A->B", "drops"].iloc[0]),
                "packet_hops": int(hops),
                "start_jitter_ms": jitter_ms,
                "per_flow_mbps": per_flow_mbps,
                "bottleneck_bps": rate_bps,
                "flows_with_traffic": int((flows["delivered_pkts"] > 0).sum()),
            }
    assert best is not None
    return best


def ns_per_hop(row: dict[str, Any]) -> float:
    """Wall time of the loop per packet-hop, ns."""
    return 1e9 / row["packet_hops_per_s"]


def hops_per_flow(row: dict[str, Any]) -> float:
    """Packet-hops per flow of the run: what a flow's one-time costs (its start, its connection's
    first allocations, its first window) are spread over in ``ns/hop`` (bench/README.md)."""
    return row["packet_hops_per_s"] * row["wall_s"] / row["n_flows"]


def per_hop_vs_smallest(rows: list[dict[str, Any]]) -> dict[int, float]:
    """For each pinchpoint row (by N), its wall time per packet-hop over that of the smallest N
    measured with the same start jitter and the same bottleneck rule (fixed, or the same rate per
    flow): issue 13's flatness measure (bench/README.md, "Large N with start jitter"). A size
    that no smaller size shares both with has no ratio."""
    ours = sorted((r for r in rows if r["simulator"] == "pinchpoint"), key=lambda r: r["n_flows"])
    out: dict[int, float] = {}
    for r in ours:
        base = next(b for b in ours if b.get("start_jitter_ms") == r.get("start_jitter_ms")
                    and b.get("per_flow_mbps") == r.get("per_flow_mbps"))
        if base is not r:
            out[r["n_flows"]] = ns_per_hop(r) / ns_per_hop(base)
    return out


def table(rows: list[dict[str, Any]]) -> Table:
    """A rich table of bench rows, with the speed ratio against other simulators and, per
    pinchpoint row, the wall time per packet-hop against the smallest N run with the same jitter
    and bottleneck rule."""
    t = Table(title="dumbbell benchmark (simulation loop only)")
    for c in ("simulator", "N", "bottleneck Mbit/s", "jitter ms", "flows w/ traffic", "sim s", "wall s", "packet-hops/s",
              "hops/flow", "ns/hop", "x smallest N", "goodput Mbit/s", "Jain", "drops", "speed-up"):
        t.add_column(c, justify="left" if c == "simulator" else "right")
    ours = {r["n_flows"]: r for r in rows if r["simulator"] == "pinchpoint"}
    flatness = per_hop_vs_smallest(rows)
    for r in rows:
        ratio = ""
        if r["simulator"] != "pinchpoint" and r["n_flows"] in ours:
            ratio = f"{r['wall_s'] / ours[r['n_flows']]['wall_s']:.0f}x"
        vs_smallest = ""
        if r["simulator"] == "pinchpoint" and r["n_flows"] in flatness:
            vs_smallest = f"{flatness[r['n_flows']]:.2f}x"
        jitter = r.get("start_jitter_ms")
        carried = r.get("flows_with_traffic")
        rate = r.get("bottleneck_bps")
        t.add_row(r["simulator"], str(r["n_flows"]), "" if rate is None else f"{rate / 1e6:g}",
                  "" if jitter is None else f"{jitter:g}",
                  "" if carried is None else str(carried), f"{r['sim_s']:g}", f"{r['wall_s']:.3f}",
                  f"{r['packet_hops_per_s'] / 1e6:.2f} M", f"{hops_per_flow(r):,.0f}", f"{ns_per_hop(r):.1f}", vs_smallest,
                  f"{r['goodput_bps'] / 1e6:.2f}", f"{r['jain']:.4f}", str(r["drops"]), ratio)
    return t
