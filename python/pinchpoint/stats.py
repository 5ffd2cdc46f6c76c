"""Small statistics the front end and the reproductions share: Jain's fairness index,
time-weighted statistics of step functions (queue lengths, buffer loads) and quantiles of
Student's t (for confidence intervals over seeds).

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


# -- Student's t -----------------------------------------------------------------------------
# Computed here rather than taken from scipy.stats.t, because scipy is not a dependency; a table
# for small degrees of freedom and the normal quantile above it is wrong by up to 4 % (t for 31
# degrees of freedom is 2.040, not 1.960), which narrows every interval of a sweep with 32 seeds.

def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz;
    Numerical Recipes 6.4), converging fast for x < (a + 1) / (a + b + 2)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    # About sqrt(max(a, b)) terms are needed; a, b <= 500 here (student_t_quantile).
    for m in range(1, 10_000):
        for aa in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            return h
    raise ArithmeticError(f"incomplete beta a={a}, b={b}, x={x}: the continued fraction did not converge")


def _beta_inc(a: float, b: float, x: float, y: float) -> float:
    """The regularized incomplete beta function I_x(a, b), given x and y = 1 - x (each passed
    exactly, so that a value of x near 1 loses no digits to 1 - x)."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_x = math.log(x) if x < 0.5 else math.log1p(-y)
    log_y = math.log(y) if y < 0.5 else math.log1p(-x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * log_x + b * log_y)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_cf(a, b, x) / a
    return 1.0 - front * _beta_cf(b, a, y) / b


def student_t_sf(t: float, dof: float) -> float:
    """P(T > t) for Student's t with ``dof`` (> 0) degrees of freedom."""
    if t < 0:
        return 1.0 - student_t_sf(-t, dof)
    # P(|T| > t) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2).
    return 0.5 * _beta_inc(dof / 2.0, 0.5, dof / (dof + t * t), t * t / (dof + t * t))


def student_t_quantile(p: float, dof: float) -> float:
    """The ``p`` quantile (0 < p < 1) of Student's t with ``dof`` (> 0) degrees of freedom: the
    t with P(T <= t) = p, to about 1e-12 relative.

    Below 1000 degrees of freedom by bisection on :func:`student_t_sf`; from 1000 on by the
    Cornish-Fisher expansion in 1/dof to the fourth order around the normal quantile (G. W. Hill,
    "Algorithm 396: Student's t-quantiles", CACM 13, 1970), whose error there is below 1e-13,
    while the incomplete beta function's lgamma terms and continued fraction lose digits as
    dof grows (to 1e-5 at 1e12)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p: expected a probability strictly between 0 and 1, got {p!r}")
    if not dof > 0 or not math.isfinite(dof):
        raise ValueError(f"dof: expected a positive finite number of degrees of freedom, got {dof!r}")
    if p < 0.5:
        return -student_t_quantile(1.0 - p, dof)
    if dof >= 1000:
        from statistics import NormalDist

        z = NormalDist().inv_cdf(p)
        g = ((z**3 + z) / 4,
             (5 * z**5 + 16 * z**3 + 3 * z) / 96,
             (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
             (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160)
        return z + sum(gk / dof ** (k + 1) for k, gk in enumerate(g))
    tail = 1.0 - p
    lo, hi = 0.0, 2.0
    while student_t_sf(hi, dof) > tail:  # P(T > t) falls with t: bracket the quantile
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-13 * hi:
        mid = 0.5 * (lo + hi)
        if student_t_sf(mid, dof) > tail:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
