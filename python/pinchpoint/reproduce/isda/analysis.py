"""Seed 001: running the scenarios and reducing each run to the numbers the report compares."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...api import run as pp_run
from ...scenario import Scenario
from ...stats import binned_time_means, jain, time_weighted_mean
from .scenarios import (
    BIN_S,
    BOTTLENECK,
    LINK_BPS,
    MEAN_PKT_BYTES,
    MIN_QUE_PKTS,
    PAPER_SETTLE_S,
    QUEUE_WEIGHT,
    TCP_FLOWS,
    UDP_FLOWS,
    WARMUP_S,
    scenario_path,
)


def queue_average(trace: np.ndarray, weight: float = QUEUE_WEIGHT, rate_bps: float = LINK_BPS,
                  mean_pkt_bytes: int = MEAN_PKT_BYTES) -> np.ndarray:
    """QueAvg, the RED average the policies act on, reconstructed from the queue trace (rows
    ``(t_s, waiting packets)``, one per change): each rise of the queue is an accepted arrival
    that found the previous length, folded in as ``avg <- (1 - w) avg + w q``; an arrival at an
    empty queue first decays the average by ``(1 - w)^m``, m = packet times since it emptied
    (Floyd and Jacobson 1993 s11, as ``queue/aqm.rs`` does). Dropped arrivals are not in the trace,
    so this is close to, not exactly, the router's QueAvg. Returns rows ``(t_s, QueAvg)``."""
    if len(trace) == 0:
        return np.zeros((0, 2))
    pkt_time_s = mean_pkt_bytes * 8.0 / rate_bps
    keep = 1.0 - weight
    avg, prev, idle_since = 0.0, 0.0, 0.0
    out_t: list[float] = []
    out_v: list[float] = []
    for t, q in trace.tolist():
        if q > prev:
            if prev == 0 and idle_since is not None:
                avg *= keep ** ((t - idle_since) / pkt_time_s)
            else:
                avg = keep * avg + weight * prev
            idle_since = None
            out_t.append(t)
            out_v.append(avg)
        elif q == 0 and prev > 0:
            idle_since = t
        prev = q
    return np.column_stack([out_t, out_v]) if out_t else np.zeros((0, 2))


def settling_time_s(trace: np.ndarray, duration_s: float, bin_s: float = 5.0, band_frac: float = 0.25,
                    band_min_pkts: float = 1.5) -> float:
    """When the queue settles ("after 8 seconds, in the stable state", s4.2): the start of the
    first ``bin_s`` bin from which every later bin's time-mean stays within ``band_frac`` (at
    least ``band_min_pkts``) of the mean after 20 s. Applied to QueAvg, whose 0.4 s averaging
    removes the packet-scale sawtooth; ``duration_s`` if it never settles."""
    if len(trace) == 0:
        return 0.0
    edges = np.arange(0.0, duration_s + 1e-9, bin_s)
    means = binned_time_means(trace[:, 0], trace[:, 1], edges)
    late = means[edges[:-1] >= 20.0] if duration_s > 20.0 + 2 * bin_s else means
    steady = float(np.nanmean(late))
    band = max(band_min_pkts, band_frac * steady)
    outside = np.nonzero(np.abs(means - steady) > band)[0]
    return float(edges[outside[-1] + 1]) if len(outside) else 0.0


def run(mix: str, policy: str, duration_s: float, seed: int | None = None,
        overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Runs one scenario and keeps only what the report needs. ``overrides`` maps dotted field
    paths (``Scenario.set``) to values, for the variants and sensitivity runs; None removes the
    field."""
    s = Scenario.from_file(scenario_path(mix, policy))
    s.set("simulation.duration", f"{duration_s}s")
    if seed is not None:
        s.set("simulation.seed", seed)
    for path, value in (overrides or {}).items():
        if value is None:  # a setting the variant makes meaningless (and so refused): removed
            s.unset(path)
        else:
            s.set(path, value)
    r = pp_run(s)
    flows = r.flows.set_index("flow")
    port = r.port(BOTTLENECK)
    qt = r.queue_trace.to_pandas()
    qt = qt[qt["port"] == BOTTLENECK][["t_s", "queue_pkts"]].to_numpy(dtype=float)
    fs = r.flow_series.to_pandas()[["t_s", "flow", "delivered_bytes"]]
    # Throughput per connection in 1 s bins from the cumulative delivered bytes (Figures 11-12).
    wide = fs.pivot_table(index="t_s", columns="flow", values="delivered_bytes", aggfunc="last").sort_index()
    edges = np.arange(0.0, duration_s + 1e-9, BIN_S)
    at = wide.reindex(wide.index.union(edges)).ffill().fillna(0.0).loc[edges]
    tput = at.diff().iloc[1:] * 8.0 / BIN_S
    # Steady-state throughput: delivered bytes after the warm-up over the remaining time.
    w0 = wide.reindex(wide.index.union([WARMUP_S])).ffill().fillna(0.0).loc[WARMUP_S]
    steady = (wide.iloc[-1] - w0) * 8.0 / (wide.index[-1] - WARMUP_S)
    return {"flows": flows, "port": port, "queue": qt, "queue_avg": queue_average(qt), "tput": tput,
            "steady_bps": steady, "duration_s": duration_s}


def _max_after(trace: np.ndarray, t0: float) -> float:
    sel = trace[trace[:, 0] >= t0, 1] if len(trace) else np.zeros(0)
    return float(sel.max()) if len(sel) else 0.0


def summarise(res: dict[str, Any]) -> dict[str, float]:
    """One row of numbers for a run: throughputs over the whole run (goodput), fairness, shares,
    queue (instantaneous and QueAvg) and drops."""
    f = res["flows"]
    g = f["goodput_bps"]
    tcp = [x for x in TCP_FLOWS if x in g.index]
    udp = [x for x in UDP_FLOWS if x in g.index]
    p = res["port"]
    q, qa, dur = res["queue"], res["queue_avg"], res["duration_s"]
    row: dict[str, float] = {
        "tcp_mean_bps": float(g[tcp].mean()) if tcp else float("nan"),
        "tcp_min_bps": float(g[tcp].min()) if tcp else float("nan"),
        "min_flow_bps": float(g.min()),
        "jain_all": jain(g.to_numpy()),
        "jain_tcp": jain(g[tcp].to_numpy()) if tcp else float("nan"),
        "tcp_share": float(g[tcp].sum() / LINK_BPS) if tcp else 0.0,
        "udp_share": float(g[udp].sum() / LINK_BPS) if udp else 0.0,
        "queue_mean": time_weighted_mean(q[:, 0], q[:, 1], WARMUP_S, dur) if len(q) else 0.0,
        "queue_max_after_settle": _max_after(q, PAPER_SETTLE_S),
        "queue_avg_mean": time_weighted_mean(qa[:, 0], qa[:, 1], WARMUP_S, dur) if len(qa) else 0.0,
        "queue_avg_max_after_settle": _max_after(qa, PAPER_SETTLE_S),
        "settle_s": settling_time_s(qa, dur),
        "queue_avg_above_min_que": float(time_weighted_mean(qa[:, 0], (qa[:, 1] > MIN_QUE_PKTS).astype(float), WARMUP_S, dur))
        if len(qa) else 0.0,
        "queue_p_mean_all": float(p["queue_pkts_mean"]),
        "drops_overflow": float(p["drops_overflow"]),
        "drops_early": float(p["drops_early"]),
        "drops_policy": float(p["drops_policy"]),
    }
    for u in UDP_FLOWS:
        row[f"{u}_bps"] = float(g[u]) if u in g.index else float("nan")
    return row
