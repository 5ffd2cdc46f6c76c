"""The dumbbell benchmark (``pinchpoint bench``): wall time of the simulation loop, packet-hops
per second, aggregate goodput, Jain's index and bottleneck drops."""

from __future__ import annotations

import time
from typing import Any

from rich.table import Table

from . import _native

JSON_KEYS = ("simulator", "n_flows", "sim_s", "wall_s", "packet_hops_per_s", "goodput_bps", "jain", "drops")


def run_pinchpoint(n_flows: int, sim_s: float = 30.0, repeat: int = 1) -> dict[str, Any]:
    """Runs the dumbbell preset; times only the simulation loop (the fastest of ``repeat``)."""
    best: dict[str, Any] | None = None
    text = _native.preset_dumbbell(n_flows, sim_s)
    for _ in range(max(1, repeat)):
        sim = _native.Simulation(text, f"<dumbbell-{n_flows}>", "json")
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
            }
    assert best is not None
    return best


def table(rows: list[dict[str, Any]]) -> Table:
    """A rich table of bench rows, with the speed ratio against other simulators."""
    t = Table(title="dumbbell benchmark (simulation loop only)")
    for c in ("simulator", "N", "sim s", "wall s", "packet-hops/s", "goodput Mbit/s", "Jain", "drops", "speed-up"):
        t.add_column(c, justify="left" if c == "simulator" else "right")
    ours = {r["n_flows"]: r for r in rows if r["simulator"] == "pinchpoint"}
    for r in rows:
        ratio = ""
        if r["simulator"] != "pinchpoint" and r["n_flows"] in ours:
            ratio = f"{r['wall_s'] / ours[r['n_flows']]['wall_s']:.0f}x"
        t.add_row(r["simulator"], str(r["n_flows"]), f"{r['sim_s']:g}", f"{r['wall_s']:.3f}",
                  f"{r['packet_hops_per_s'] / 1e6:.2f} M", f"{r['goodput_bps'] / 1e6:.2f}", f"{r['jain']:.4f}",
                  str(r["drops"]), ratio)
    return t
