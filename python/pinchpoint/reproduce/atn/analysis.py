"""ATN WP/267 (seed 000): running the exercises and reducing them to the paper's measures.

Delay = time from handing a data packet to the network to its arrival at the receiver (s3.1.1.1).
Buffer load = bits waiting in the pinch point's output queue, time-weighted. Utilisation = payload
throughput over the link rate (s4.1), with the wire figure (headers included) beside it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ...stats import time_weighted_stats
from .scenarios import KB, PINCH_RATE_BPS


def sample_stats(x: np.ndarray) -> dict[str, float]:
    """Count, mean, min, max, standard deviation and 99th percentile of samples."""
    if len(x) == 0:
        return {k: float("nan") for k in ("n", "mean", "min", "max", "std", "p99")}
    return {"n": float(len(x)), "mean": float(x.mean()), "min": float(x.min()), "max": float(x.max()),
            "std": float(x.std()), "p99": float(np.quantile(x, 0.99))}


class Run:
    """One scenario's results, reduced to what the report needs. ``scenario`` is a file or a
    scenario dictionary."""

    def __init__(self, scenario: Path | dict[str, Any]) -> None:
        import pinchpoint as pp

        self.path = scenario if isinstance(scenario, Path) else None
        self.res = pp.run(scenario if isinstance(scenario, Path) else pp.Scenario.from_dict(scenario))
        self.flows = self.res.flows.set_index("flow")
        self.end_s = float(self.res.meta["end_time_s"])
        self.pk = self.res.packets.to_pandas()
        qt = self.res.queue_trace.to_pandas()
        ports = list(self.res.ports["port"])
        if len(qt) and not isinstance(qt["port"].iloc[0], str):
            qt["port"] = [ports[i] for i in qt["port"]]
        self.qt = qt
        self.fs = self.res.flow_series.to_pandas()

    def fct(self, flow: str) -> float:
        return float(self.flows.loc[flow, "fct_s"])

    def finish(self, flow: str) -> float:
        """Absolute completion time (start + transfer time), or the end of the run."""
        f = self.fct(flow)
        return float(self.flows.loc[flow, "start_s"]) + f if not math.isnan(f) else self.end_s

    def delays(self, flows: list[str], t0: float, t1: float) -> dict[str, float]:
        p = self.pk
        sel = p[p["flow"].isin(flows) & (p["t_s"] >= t0) & (p["t_s"] < t1)]
        return sample_stats(sel["delay_s"].to_numpy())

    def buffer(self, port: str, t0: float, t1: float) -> dict[str, float]:
        q = self.qt[self.qt["port"] == port]
        return time_weighted_stats(q["t_s"].to_numpy(), q["queue_bytes"].to_numpy() * 8.0, t0, t1)

    def delivered_bytes_at(self, flow: str, t: float) -> float:
        """Payload bytes of ``flow`` delivered to its receiver by time ``t`` (from the 100 ms series)."""
        g = self.fs[self.fs["flow"] == flow]
        g = g[g["t_s"] <= t + 1e-9]
        return float(g["delivered_bytes"].iloc[-1]) if len(g) else 0.0

    def tx_bytes_at(self, port: str, t: float) -> float:
        """Bytes ``port`` has transmitted by time ``t`` (from the 100 ms port series)."""
        ps = self.res.port_series.to_pandas()
        ps = ps[(ps["port"] == port) & (ps["t_s"] <= t + 1e-9)]
        return float(ps["tx_bytes"].iloc[-1]) if len(ps) else 0.0

    def utilisation(self, flows: list[str], t0: float, t1: float, port: str) -> dict[str, float]:
        """Pinch-point utilisation over [t0, t1): ``payload`` = payload bytes of ``flows``
        delivered to their receivers over the link rate (s4.1's measure); ``wire`` = bytes the
        port transmitted, headers included."""
        if t1 <= t0:
            return {"payload": float("nan"), "wire": float("nan")}
        payload = sum(self.delivered_bytes_at(f, t1) - self.delivered_bytes_at(f, t0) for f in flows)
        wire = self.tx_bytes_at(port, t1) - self.tx_bytes_at(port, t0)
        cap = PINCH_RATE_BPS / 8 * (t1 - t0)
        return {"payload": payload / cap, "wire": wire / cap}


def perturbed(scenario: dict[str, Any], seed: int, hosts: tuple[str, ...] = ("snd1", "snd2"),
              max_offset_ms: float = 1.0) -> dict[str, Any]:
    """``scenario`` with a sub-millisecond offset, uniform in [0, ``max_offset_ms``), added to the
    access-link delay of each of ``hosts`` (drawn from ``seed``), and only the flow table kept.
    Not a variant of the paper: it shows how far an outcome depends on timing."""
    import copy

    rng = np.random.default_rng(seed)
    sc = copy.deepcopy(scenario)
    for link in sc["links"]:
        host = link["a"] if link["a"] in hosts else link["b"] if link["b"] in hosts else None
        if host is not None:
            base = float(link["delay"].removesuffix("ms"))
            link["delay"] = f"{base + rng.uniform(0.0, max_offset_ms):.6f}ms"
    sc["metrics"] = {"series_interval": "1s", "packet_trace": False, "queue_trace": []}
    sc["name"] = f"{sc['name']}-perturbed-{seed}"
    return sc


def ratio_distribution(scenario: dict[str, Any], n: int, hosts: tuple[str, ...] = ("snd1", "snd2")) -> dict[str, Any]:
    """t2/t1 transfer-time ratios over ``n`` timing perturbations (seeds 0..n-1) of ``scenario``:
    median, range, share of runs each transfer wins (finishes in clearly less time, by more than
    10 %), and the ratios themselves."""
    import pinchpoint as pp

    ratios = []
    for k in range(n):
        f = pp.run(pp.Scenario.from_dict(perturbed(scenario, k, hosts))).flows.set_index("flow")
        ratios.append(float(f.loc["t2", "fct_s"] / f.loc["t1", "fct_s"]))
    r = np.array(ratios)
    return {"n": n, "median": float(np.median(r)), "min": float(r.min()), "max": float(r.max()),
            "t1_wins": float((r > 1.1).mean()), "t2_wins": float((r < 1 / 1.1).mean()),
            "even": float(((r <= 1.1) & (r >= 1 / 1.1)).mean()), "ratios": ratios}




def paper_kb_per_s(size_bytes: int, fct_s: float) -> float:
    """Throughput in the paper's KB/s (1000 bytes)."""
    return size_bytes / KB / fct_s if fct_s and not math.isnan(fct_s) else float("nan")
