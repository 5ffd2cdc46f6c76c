"""Small statistics the front end and the reproductions share: Jain's fairness index and
time-weighted statistics of step functions (queue lengths, buffer loads).

One definition each, so that every table that says "Jain" or "time-weighted mean" means the same
number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np


def jain(values: Iterable[float]) -> float:
    """Jain's fairness index (Jain, Chiu and Hawe 1984): (sum x)^2 / (n sum x^2).

    1 when all values are equal, 1/n when one value takes everything. NaN for no values or when
    every value is zero (fairness of nothing is undefined)."""
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    if len(x) == 0:
        return float("nan")
    sq = float((x**2).sum())
    if sq <= 0.0:
        return float("nan")
    return float(x.sum() ** 2 / (len(x) * sq))


def _window(t: np.ndarray, v: np.ndarray, t0: float, t1: float) -> tuple[np.ndarray, np.ndarray]:
    """Values of the step function v(t) (value v[i] from t[i] on; 0 before t[0]) over [t0, t1),
    as (durations, values)."""
    # t is sorted: the changes strictly inside (t0, t1) are one slice, found by bisection, so
    # that many windows over one long trace (binned_time_means) do not each scan all of it.
    lo = int(np.searchsorted(t, t0, side="right"))
    hi = max(lo, int(np.searchsorted(t, t1, side="left")))
    start_val = float(v[lo - 1]) if lo >= 1 else 0.0
    tt = np.concatenate([[t0], t[lo:hi], [t1]])
    vv = np.concatenate([[start_val], v[lo:hi]]).astype(float)
    return np.diff(tt), vv


def time_weighted_mean(t: np.ndarray, v: np.ndarray, t0: float, t1: float) -> float:
    """Time-weighted mean of the step function v(t) over [t0, t1); NaN for an empty interval."""
    if t1 <= t0:
        return float("nan")
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    w, vv = _window(t, v, t0, t1)
    return float((w * vv).sum() / w.sum()) if w.sum() > 0 else float("nan")


def time_weighted_stats(t: np.ndarray, v: np.ndarray, t0: float, t1: float) -> dict[str, float]:
    """Time-weighted mean, min, max, standard deviation and 99th percentile of the step function
    v(t) over [t0, t1). Min and max are over the values the function takes in the interval."""
    nan = {k: float("nan") for k in ("mean", "min", "max", "std", "p99")}
    if t1 <= t0:
        return nan
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    w, vv = _window(t, v, t0, t1)
    if w.sum() <= 0:
        return nan
    mean = float((w * vv).sum() / w.sum())
    std = float(math.sqrt(max(((w * (vv - mean) ** 2).sum() / w.sum()), 0.0)))
    order = np.argsort(vv, kind="stable")
    cw = np.cumsum(w[order]) / w.sum()
    p99 = float(vv[order][min(int(np.searchsorted(cw, 0.99)), len(vv) - 1)])
    return {"mean": mean, "min": float(vv.min()), "max": float(vv.max()), "std": std, "p99": p99}


def binned_time_means(t: np.ndarray, v: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Time-weighted mean of the step function v(t) in each bin [edges[k], edges[k+1])."""
    return np.array([time_weighted_mean(t, v, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)])


def running_time_mean(t: np.ndarray, v: np.ndarray, t_end: float) -> tuple[np.ndarray, np.ndarray]:
    """Running time-weighted mean of the step function v(t) (value v[i] on [t[i], t[i+1]), the
    last value until ``t_end``) from t[0]: at each step's end, the mean over [t[0], that end).
    Returns (step ends, means); a mean over no time yet is 0."""
    t = np.asarray(t, dtype=float)
    v = np.asarray(v, dtype=float)
    w = np.diff(np.append(t, t_end))
    cum_t = np.cumsum(w)
    return t + w, np.cumsum(w * v) / np.where(cum_t > 0, cum_t, 1)
