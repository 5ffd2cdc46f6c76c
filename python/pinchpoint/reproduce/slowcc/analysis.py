"""Seed 004: running an experiment and reducing it to what the seed's figures show: loss and
loss-event rates over time, group throughput, time to halve, TCP-compatibility against the TCP
equation, CoV of 100 ms rates."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...api import run as pp_run
from .scenarios import (
    BOTTLENECK,
    CBR_BPS,
    LINK_BPS,
    PAYLOAD_BYTES,
    WIRE_BYTES,
    Variant,
    bernoulli_scenario,
    cbr_scenario,
    compat_scenario,
    flash_scenario,
    square_scenario,
)

def equation_bps(p: float, rtt_s: float, s_bytes: float = PAYLOAD_BYTES, b: float = 1.0) -> float:
    """RFC 5348 s3.1 with t_RTO = 4R, bit/s of payload."""
    if p <= 0 or rtt_s <= 0:
        return float("nan")
    t_rto = 4 * rtt_s
    den = rtt_s * math.sqrt(2 * b * p / 3) + t_rto * 3 * math.sqrt(3 * b * p / 8) * p * (1 + 32 * p * p)
    return 8 * s_bytes / den


# ---- helpers on results ----------------------------------------------------------------------

def _wide(r: Any) -> pd.DataFrame:
    fs = r.flow_series.to_pandas()[["t_s", "flow", "delivered_bytes"]]
    return fs.pivot_table(index="t_s", columns="flow", values="delivered_bytes", aggfunc="last").sort_index().fillna(0.0)


def _group_rate(wide: pd.DataFrame, prefix: str, bin_s: float) -> pd.Series:
    cols = [c for c in wide.columns if c.startswith(prefix)]
    tot = wide[cols].sum(axis=1) if cols else pd.Series(0.0, index=wide.index)
    edges = np.arange(0.0, wide.index[-1] + 1e-9, bin_s)
    at = tot.reindex(tot.index.union(edges)).ffill().fillna(0.0).loc[edges]
    return (at.diff().iloc[1:] * 8.0 / bin_s).rename(prefix)


def _loss_rate_series(r: Any, bin_s: float) -> pd.Series:
    ps = r.port_series.to_pandas()
    ps = ps[ps["port"] == BOTTLENECK].set_index("t_s").sort_index()
    edges = np.arange(0.0, ps.index[-1] + 1e-9, bin_s)
    at = ps.reindex(ps.index.union(edges)).ffill().fillna(0.0).loc[edges]
    drops = at["drops"].diff().iloc[1:]
    tx = at["tx_bytes"].diff().iloc[1:] / WIRE_BYTES
    return (drops / (drops + tx).where(drops + tx > 0)).fillna(0.0)


def _loss_event_rate_series(r: Any, prefix: str, bin_s: float) -> pd.Series:
    """Loss-event rate (RFC 5348 s5.2, counted by the engine from each sender's view: the
    `loss_events` table) of the flows named `prefix`*, together, per `bin_s` bin: loss events
    that started in the bin over data packets sent in it."""
    le = r.loss_events.to_pandas()
    le = le[le["flow"].str.startswith(prefix)]
    if le.empty:
        return pd.Series(dtype=float)
    b = (np.ceil(le["t_s"] / bin_s - 1e-9) * bin_s).round(9)
    g = le.groupby(b)[["loss_events", "sent_pkts"]].sum()
    edges = np.round(np.arange(bin_s, float(le["t_s"].max()) + 1e-9, bin_s), 9)
    g = g.reindex(edges, fill_value=0)
    return (g["loss_events"] / g["sent_pkts"].where(g["sent_pkts"] > 0)).fillna(0.0)


def _cov(series: pd.Series) -> float:
    x = series.to_numpy(dtype=float)
    return float(x.std() / x.mean()) if len(x) and x.mean() > 0 else float("nan")


# ---- experiments -----------------------------------------------------------------------------

def run_cbr(v: Variant, scale: float = 1.0, seed: int = 1) -> dict[str, Any]:
    """15 long-lived flows, CBR on [0, 100) and [150, 250) (times x `scale`)."""
    r = pp_run(cbr_scenario(v, scale, seed))
    wide = _wide(r)
    bin_s = 1.0 * scale if scale < 1 else 1.0
    loss = _loss_rate_series(r, bin_s)
    t_on = 150 * scale
    halving = halving_times(r.flow_series.to_pandas(), "long", t_on, 10 * scale)
    flows = r.flows.set_index("flow")
    long_flows = flows[flows.index.str.startswith("long")]
    # Timeouts are counted over the whole run (the flow series has no timeout column).
    return {"loss": loss, "loss_event_rate": _loss_event_rate_series(r, "long", bin_s),
            "long_bps": _group_rate(wide, "long", bin_s),
            "halving_s": float(halving["halving_s"].mean()), "halved_flows": int(halving["halving_s"].notna().sum()),
            "halving": halving, "before_bps": float(halving["before_bps"].sum()),
            "timeouts": int(long_flows["timeouts"].sum())}


def sending_rate_bps(fs: pd.DataFrame) -> pd.Series:
    """A sender's own rate from the flow series: cwnd / srtt (TCP); TFRC reports X R as its
    window, so the same quotient gives X."""
    return (fs["cwnd_bytes"] * 8.0 / fs["srtt_s"].where(fs["srtt_s"] > 0)).fillna(0.0)


def halving_times(fs: pd.DataFrame, prefix: str, t_on: float, before_s: float) -> pd.DataFrame:
    """Issue 12's "time to halve", per flow named `prefix`*: from `t_on` (the CBR returns) to
    the first sample at which the flow's sending rate is at most half its mean over the
    `before_s` before `t_on` (NaN: it never halved). The reproduction reports the mean over the
    flows that halved and how many did. Delivered rates would drop at once (the CBR takes its
    share of the FIFO link whatever the senders do), so the senders' own rates show the response."""
    fs = fs[fs["flow"].str.startswith(prefix)].assign(rate=lambda d: sending_rate_bps(d))
    rows = []
    for name, g in fs.groupby("flow", sort=True):
        g = g.set_index("t_s")["rate"].sort_index()
        before = float(g[(g.index > t_on - before_s) & (g.index <= t_on)].mean())
        after = g[g.index > t_on]
        below = after[after <= before / 2]
        rows.append({"flow": name, "before_bps": before,
                     "halving_s": float(below.index[0] - t_on) if len(below) and before > 0 else float("nan")})
    return pd.DataFrame(rows, columns=["flow", "before_bps", "halving_s"])


def _transfer_rate(transfers: pd.DataFrame, end_s: float, bin_s: float) -> pd.Series:
    """Aggregate goodput of the transfers in bins of ``bin_s``: each transfer's bytes spread evenly
    over [first byte, last byte] at its receiver (the transfers are not in the time series)."""
    edges = np.arange(0.0, end_s + 1e-9, bin_s)
    out = np.zeros(len(edges) - 1)
    done = transfers.dropna(subset=["first_byte_s", "last_byte_s"])
    for a, b, n in zip(done["first_byte_s"], done["last_byte_s"], done["delivered_bytes"], strict=True):
        span = max(b - a, 1e-9)
        lo = np.clip(edges[:-1], a, b)
        hi = np.clip(edges[1:], a, b)
        out += n * (hi - lo) / span if b > a else n * ((edges[:-1] <= a) & (a < edges[1:]))
    return pd.Series(out * 8.0 / bin_s, index=edges[1:], name="short")


def run_flash(v: Variant, n_short: int = 1000, duration_s: float = 60.0, seed: int = 1) -> dict[str, Any]:
    """15 long-lived flows of ``v`` and a flash crowd: ``n_short`` TCP transfers of 10 packets
    arriving as a Poisson process of 100 per second from t = 20 s (the ``flash_crowd`` arrival
    process, docs/traffic/arrivals.md), each a flow of its own freed when it finishes."""
    r = pp_run(flash_scenario(v, n_short, duration_s, seed))
    wide = _wide(r)
    tr = r.transfers
    return {"long_bps": _group_rate(wide, "long", 1.0),
            "short_bps": _transfer_rate(tr, float(r.meta["end_time_s"]), 1.0),
            "short_done": int(tr["completed"].sum()), "short_fct_median_s": float(tr["response_time_s"].median())}


def run_square(v: Variant, period_s: float, duration_s: float, seed: int = 1) -> dict[str, float]:
    """7 TCP + 7 `v`; CBR of 10 Mbit/s on for the first half of every period."""
    r = pp_run(square_scenario(v, period_s, duration_s, seed))
    wide = _wide(r)
    warm = min(20.0, duration_s / 4)
    w0 = wide.reindex(wide.index.union([warm])).ffill().fillna(0.0).loc[warm]
    span = wide.index[-1] - warm
    bps = (wide.iloc[-1] - w0) * 8.0 / span
    # Fair share: the mean bandwidth left by the CBR (on half the time), over 14 flows, in payload bits.
    fair = (LINK_BPS - CBR_BPS / 2) / 14 * PAYLOAD_BYTES / WIRE_BYTES
    tcp = bps[[c for c in bps.index if c.startswith("tcp")]].mean() / fair
    alt = bps[[c for c in bps.index if c.startswith("alt")]].mean() / fair
    util = float(r.port(BOTTLENECK)["tx_bytes"]) * 8 / (LINK_BPS * float(r.meta["end_time_s"]))
    return {"period_s": period_s, "tcp_norm": float(tcp), "alt_norm": float(alt), "util": util}


def run_compat(v: Variant, link_bps: float, duration_s: float, seed: int = 1) -> dict[str, float]:
    """4 TCP + 4 `v` on one bottleneck of `link_bps`: both see the same loss."""
    r = pp_run(compat_scenario(v, link_bps, duration_s, seed))
    flows = r.flows.set_index("flow")
    wide = _wide(r)
    warm = min(20.0, duration_s / 3)
    w = wide[wide.index >= warm]
    out: dict[str, float] = {"link_bps": link_bps}
    for grp in ("tcp", "alt"):
        cols = [c for c in flows.index if c.startswith(grp)]
        f = flows.loc[cols]
        bps = (w[cols].iloc[-1] - w[cols].iloc[0]) * 8.0 / (w.index[-1] - w.index[0])
        loss = float(f["lost_pkts"].sum() / max(f["sent_pkts"].sum(), 1))
        rtt = float(f["rtt_mean_s"].mean())
        rates = w[cols].diff().iloc[1:] * 8.0 / 0.1
        out[f"{grp}_bps"] = float(bps.mean())
        out[f"{grp}_loss"] = loss
        out[f"{grp}_rtt_s"] = rtt
        out[f"{grp}_norm"] = float(bps.mean() / equation_bps(loss, rtt)) if loss > 0 else float("nan")
        out[f"{grp}_cov100ms"] = float(np.nanmean([_cov(rates[c]) for c in cols]))
    out["ratio"] = out["alt_bps"] / out["tcp_bps"]
    return out


def run_bernoulli(v: Variant, p: float, duration_s: float, warmup_s: float, seed: int = 1) -> dict[str, float]:
    """One flow of `v` alone on the dumbbell with the bottleneck raised to 100 Mbit/s, a
    1000-packet drop-tail queue that never fills, and Bernoulli loss of probability `p` on the
    bottleneck link (both directions, as the link loss model does): every loss is random and
    independent of the flow's rate. Throughput from `warmup_s` to the end against the TCP
    equation at the loss-event rate the engine counted over the same span."""
    r = pp_run(bernoulli_scenario(v, p, duration_s, seed))
    fs = r.flow_series.to_pandas().set_index("t_s").sort_index()
    d = fs["delivered_bytes"]
    at = lambda t: float(d[d.index >= t - 1e-9].iloc[0])  # noqa: E731
    bps = (at(duration_s) - at(warmup_s)) * 8.0 / (duration_s - warmup_s)
    le = r.loss_events.to_pandas()
    le = le[le["t_s"] > warmup_s + 1e-9]
    p_event = float(le["loss_events"].sum() / max(le["sent_pkts"].sum(), 1))
    p_loss = float(le["lost_pkts"].sum() / max(le["sent_pkts"].sum(), 1))
    rtt = float(fs["srtt_s"][fs.index > warmup_s].mean())
    return {"p": p, "bps": bps, "loss_event_rate": p_event, "loss_rate": p_loss, "rtt_s": rtt,
            "norm_equation": bps / equation_bps(p_event, rtt) if p_event > 0 else float("nan"),
            "timeouts": int(r.flows["timeouts"].sum())}
