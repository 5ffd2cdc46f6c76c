"""Seed 001 (Song, Joo, Chung): router drop policies for mixed TCP and UDP traffic.

Runs the 15 scenarios under ``scenarios/seeds/isda/`` (traffic mixes tcp, udp, mixed x policies
RDA, RDA/FP, RDA/VP, SDA, ISDA; s4.1, Figure 4) and writes ``report.md`` with figures:

* ``queue_node1.png``, ``queue_node1_mean.png``: queue length at node1, every mix and policy, as
  the raw trace of the first 40 s and as 1 s means over the run (Figures 5-10);
* ``throughput_mixed.png``: per-connection throughput over time in the mixed case under RDA/VP
  and ISDA (Figures 11-12);
* ``avg_throughput_mixed.png``: average throughput per connection per policy (Figure 13).

The report also gives Jain's index over all flows and over the TCP flows, the TCP and UDP shares
of the bottleneck, drops per flow and per reason, and a table setting our numbers beside the
paper's claims. No parameter is fitted to the paper's numbers: the scenario files fix every choice
before any run, and their descriptions say why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..api import run as pp_run
from ..scenario import Scenario
from . import scenarios_dir

MIXES = ("tcp", "udp", "mixed")
POLICIES = ("rda", "rda_fp", "rda_vp", "sda", "isda")
LABEL = {"rda": "RDA", "rda_fp": "RDA/FP", "rda_vp": "RDA/VP", "sda": "SDA", "isda": "ISDA"}
TCP_FLOWS = [f"S{i}" for i in range(1, 10)]
UDP_FLOWS = ["S10", "S11", "S12"]
UDP_RATE_BPS = {"S10": 1e6, "S11": 2e6, "S12": 3e6}
BOTTLENECK = "node1->node2"
LINK_BPS = 10e6
FULL_S = 400.0
QUICK_S = 60.0
WARMUP_S = 10.0  # the paper's queues settle "after 8 seconds" (s4.2)
BIN_S = 1.0
SEEDS_FULL = (1, 2, 3, 4, 5)
SEEDS_QUICK = (1, 2)
BOTTLENECK_QUEUE = "links.12.queue_ab"  # the node1 -> node2 policy in every scenario file
#: Sensitivity runs (mixed traffic, seed 1): the choices the paper leaves open, varied one at a
#: time. They are reported beside the main runs, never used for them.
SENSITIVITY: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("RDA/VP, P0 = max_p 0.1 (ns-2 RED) instead of eq. 2", "rda_vp", {f"{BOTTLENECK_QUEUE}.max_p": 0.1}),
    ("ISDA, P0 = max_p 0.1 instead of eq. 2", "isda", {f"{BOTTLENECK_QUEUE}.max_p": 0.1}),
    ("ISDA, window 0.5 s", "isda", {f"{BOTTLENECK_QUEUE}.window": "500ms"}),
    ("ISDA, window 2 s", "isda", {f"{BOTTLENECK_QUEUE}.window": "2s"}),
    ("ISDA, burst_ratio 2 (below alpha1/alpha2)", "isda", {f"{BOTTLENECK_QUEUE}.burst_ratio": 2.0}),
    ("SDA, window 0.5 s", "sda", {f"{BOTTLENECK_QUEUE}.window": "500ms"}),
)
ZOOM_S = 40.0


def _run(mix: str, policy: str, duration_s: float, seed: int | None = None,
         overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Runs one scenario and keeps only what the report needs. ``overrides`` maps dotted field
    paths (``Scenario.set``) to values, for the sensitivity runs."""
    s = Scenario.from_file(scenarios_dir() / "isda" / f"{mix}_{policy}.toml")
    s.set("simulation.duration", f"{duration_s}s")
    if seed is not None:
        s.set("simulation.seed", seed)
    for path, value in (overrides or {}).items():
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
    return {
        "flows": flows,
        "port": port,
        "queue": qt,
        "tput": tput,
        "steady_bps": steady,
        "duration_s": duration_s,
    }


def _time_mean(trace: np.ndarray, t0: float, t1: float) -> float:
    """Time-weighted mean of a step function given as (t, value) rows, over [t0, t1]."""
    if len(trace) == 0:
        return 0.0
    t, v = trace[:, 0], trace[:, 1]
    k = max(np.searchsorted(t, t0, side="right") - 1, 0)
    ts = np.concatenate([[t0], t[(t > t0) & (t < t1)], [t1]])
    vs = np.concatenate([[v[k] if t[k] <= t0 else 0.0], v[(t > t0) & (t < t1)]])
    return float(np.sum(vs * np.diff(ts)) / (t1 - t0))


def _jain(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    if len(x) == 0 or not np.any(x):
        return float("nan")
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))


def summarise(res: dict[str, Any]) -> dict[str, float]:
    """One row of numbers for a run: throughputs over the whole run (goodput), fairness, shares,
    queue and drops."""
    f = res["flows"]
    g = f["goodput_bps"]
    tcp = [x for x in TCP_FLOWS if x in g.index]
    udp = [x for x in UDP_FLOWS if x in g.index]
    p = res["port"]
    row: dict[str, float] = {
        "tcp_mean_bps": float(g[tcp].mean()) if tcp else float("nan"),
        "tcp_min_bps": float(g[tcp].min()) if tcp else float("nan"),
        "jain_all": _jain(g.to_numpy()),
        "jain_tcp": _jain(g[tcp].to_numpy()) if tcp else float("nan"),
        "tcp_share": float(g[tcp].sum() / LINK_BPS) if tcp else 0.0,
        "udp_share": float(g[udp].sum() / LINK_BPS) if udp else 0.0,
        "queue_mean": _time_mean(res["queue"], WARMUP_S, res["duration_s"]),
        "queue_p_mean_all": float(p["queue_pkts_mean"]),
        "drops_overflow": float(p["drops_overflow"]),
        "drops_early": float(p["drops_early"]),
        "drops_policy": float(p["drops_policy"]),
    }
    for u in UDP_FLOWS:
        row[f"{u}_bps"] = float(g[u]) if u in g.index else float("nan")
    return row


def _plots(results: dict[tuple[str, str], dict[str, Any]], out_dir: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    # Figures 5-10: queue at node1, every mix and policy: the raw trace over the first
    # ZOOM_S seconds (the transient the paper describes), then 1 s time-weighted means.
    for fname, zoom in (("queue_node1.png", True), ("queue_node1_mean.png", False)):
        fig, axes = plt.subplots(len(MIXES), len(POLICIES), figsize=(16, 7.5), sharex=True, sharey=True)
        for i, mix in enumerate(MIXES):
            for j, pol in enumerate(POLICIES):
                ax = axes[i][j]
                res = results[(mix, pol)]
                q = res["queue"]
                if len(q) and zoom:
                    keep = q[:, 0] <= ZOOM_S
                    ax.step(q[keep, 0], q[keep, 1], where="post", lw=0.4, color="tab:blue")
                elif len(q):
                    edges = np.arange(0.0, res["duration_s"] + 1e-9, BIN_S)
                    means = [_time_mean(q, a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]
                    ax.plot(edges[1:], means, lw=0.6, color="tab:blue")
                ax.axhline(10, color="grey", lw=0.6, ls=":")
                ax.axhline(25, color="grey", lw=0.6, ls=":")
                ax.set_ylim(0, 52)
                if i == 0:
                    ax.set_title(LABEL[pol])
                if j == 0:
                    ax.set_ylabel(f"{mix}\nqueue (pkts)")
                if i == len(MIXES) - 1:
                    ax.set_xlabel("time (s)")
        what = f"every change, first {ZOOM_S:.0f} s" if zoom else f"{BIN_S:.0f} s time-weighted means"
        fig.suptitle(f"Queue length at node1 -> node2 ({what}; MinQue 10, MaxQue 25 dotted); cf. Figures 5-10")
        fig.tight_layout()
        fig.savefig(out_dir / fname, dpi=110)
        plt.close(fig)
        names.append(fname)

    # Figures 11-12: per-connection throughput over time, mixed traffic.
    fig, axes = plt.subplots(1, 2, figsize=(14, 4.5), sharey=True)
    for ax, pol in zip(axes, ("rda_vp", "isda"), strict=True):
        tp = results[("mixed", pol)]["tput"]
        roll = tp.rolling(10, min_periods=1).mean()  # 10 s running mean, for legibility
        for col in TCP_FLOWS + UDP_FLOWS:
            if col in roll:
                ax.plot(roll.index, roll[col] / 1e6, lw=1.4 if col in UDP_FLOWS else 0.7,
                        ls="-" if col in UDP_FLOWS else "--", label=col)
        ax.set_title(f"{LABEL[pol]}: throughput per connection (10 s running mean)")
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("Mbit/s")
    axes[1].legend(ncol=2, fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(out_dir / "throughput_mixed.png", dpi=110)
    plt.close(fig)
    names.append("throughput_mixed.png")

    # Figure 13: average throughput per connection per policy, mixed traffic.
    fig, ax = plt.subplots(figsize=(12, 4.2))
    flows = TCP_FLOWS + UDP_FLOWS
    x = np.arange(len(flows))
    wdt = 0.8 / len(POLICIES)
    for k, pol in enumerate(POLICIES):
        g = results[("mixed", pol)]["flows"]["goodput_bps"].reindex(flows)
        ax.bar(x + (k - 2) * wdt, g.to_numpy() / 1e6, wdt, label=LABEL[pol])
    ax.axhline(LINK_BPS / 12 / 1e6, color="k", lw=0.7, ls=":", label="fair share 0.83")
    ax.set_xticks(x, flows)
    ax.set_ylabel("average throughput (Mbit/s)")
    ax.set_title("Average throughput per connection, TCP + UDP (cf. Figure 13)")
    ax.legend(ncol=3, fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "avg_throughput_mixed.png", dpi=110)
    plt.close(fig)
    names.append("avg_throughput_mixed.png")
    return names


def _mbps(x: float) -> str:
    return "n/a" if x != x else f"{x / 1e6:.2f}"


def _claims(rows: dict[tuple[str, str], dict[str, float]]) -> list[tuple[str, str, str, str]]:
    """(claim, paper, ours, verdict) rows."""
    out = []

    def close(ours: float, paper: float, tol: float) -> str:
        return "agrees" if abs(ours - paper) <= tol * abs(paper) else "differs"

    vp, isda = rows[("mixed", "rda_vp")], rows[("mixed", "isda")]
    udp_vp = [vp[f"{u}_bps"] for u in UDP_FLOWS]
    out.append(("RDA/VP, mixed: UDP flows keep their 1/2/3 Mbit/s (Fig. 11)", "1 / 2 / 3",
                " / ".join(_mbps(u) for u in udp_vp),
                "agrees" if all(u >= 0.85 * UDP_RATE_BPS[n] for u, n in zip(udp_vp, UDP_FLOWS, strict=True)) else "differs"))
    out.append(("RDA/VP, mixed: TCP flows share the rest, ~0.5 Mbit/s each (Fig. 11)", "~0.5",
                _mbps(vp["tcp_mean_bps"]) + f" (min {_mbps(vp['tcp_min_bps'])})", close(vp["tcp_mean_bps"], 0.5e6, 0.25)))
    hi = [isda["S11_bps"], isda["S12_bps"]]
    out.append(("ISDA, mixed: 2 and 3 Mbit/s UDP cut toward ~0.9 Mbit/s (Fig. 12)", "~0.9 / ~0.9",
                " / ".join(_mbps(h) for h in hi), "agrees" if all(abs(h - 0.9e6) <= 0.25 * 0.9e6 for h in hi) else "differs"))
    out.append(("ISDA, mixed: the 1 Mbit/s UDP flow keeps its rate (s4.2 3)", "1.0",
                _mbps(isda["S10_bps"]), "agrees" if isda["S10_bps"] >= 0.9e6 else "differs"))
    out.append(("ISDA, mixed: TCP flows keep a fair share (Fig. 12-13)", "~0.8-0.9 (inferred: equal share)",
                _mbps(isda["tcp_mean_bps"]) + f" (min {_mbps(isda['tcp_min_bps'])})",
                "agrees" if isda["tcp_mean_bps"] >= 0.7e6 else "differs"))
    out.append(("ISDA fairer than RDA/VP (Jain, all 12 flows; Fig. 13)", "ISDA > RDA/VP",
                f"{isda['jain_all']:.3f} vs {vp['jain_all']:.3f}", "agrees" if isda["jain_all"] > vp["jain_all"] else "differs"))
    for mix, fig in (("tcp", "5/6"), ("mixed", "9/10")):
        for pol in ("rda_vp", "isda"):
            q = rows[(mix, pol)]["queue_mean"]
            out.append((f"{LABEL[pol]}, {mix}: queue steady near 11 packets (Fig. {fig})", "~11", f"{q:.1f}", close(q, 11, 0.25)))
    for pol in ("rda_vp", "isda"):
        q = rows[("udp", pol)]["queue_mean"]
        out.append((f"{LABEL[pol]}, udp only: queue steady near 24 packets (Fig. {7 if pol == 'rda_vp' else 8})", "~24",
                    f"{q:.1f}", close(q, 24, 0.25)))
    sda, rda = rows[("mixed", "sda")], rows[("mixed", "rda")]
    out.append(("SDA and ISDA allocate bandwidth more equally than RDA and RDA/VP (Fig. 13)", "SDA, ISDA > RDA, RDA/VP",
                f"Jain SDA {sda['jain_all']:.3f}, ISDA {isda['jain_all']:.3f}, RDA {rda['jain_all']:.3f}, RDA/VP {vp['jain_all']:.3f}",
                "agrees" if min(sda["jain_all"], isda["jain_all"]) > max(rda["jain_all"], vp["jain_all"]) else "differs"))
    return out


def reproduce(out_dir: Path, quick: bool = False, progress: Callable[[str, float], None] | None = None) -> Path:
    """Runs the 15 ISDA scenarios and writes ``report.md`` and PNG figures into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    duration = QUICK_S if quick else FULL_S
    results: dict[tuple[str, str], dict[str, Any]] = {}
    todo = [(m, p) for m in MIXES for p in POLICIES]
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    seed_todo = [(p, sd) for p in ("rda_vp", "sda", "isda") for sd in seeds[1:]]
    total = len(todo) + len(seed_todo) + len(SENSITIVITY)
    done = 0

    def tick(label: str) -> None:
        if progress:
            progress(label, 0.95 * done / total)

    for mix, pol in todo:
        tick(f"{mix}/{LABEL[pol]}")
        results[(mix, pol)] = _run(mix, pol, duration)
        done += 1
    by_seed: dict[str, list[dict[str, float]]] = {p: [] for p in ("rda_vp", "sda", "isda")}
    for pol, sd in seed_todo:
        tick(f"mixed/{LABEL[pol]} seed {sd}")
        by_seed[pol].append(summarise(_run("mixed", pol, duration, seed=sd)))
        done += 1
    sens: list[tuple[str, dict[str, float]]] = []
    for label, pol, over in SENSITIVITY:
        tick(label)
        sens.append((label, summarise(_run("mixed", pol, duration, overrides=over))))
        done += 1
    if progress:
        progress("figures", 0.97)
    rows = {key: summarise(res) for key, res in results.items()}
    for pol in by_seed:
        by_seed[pol].insert(0, rows[("mixed", pol)])
    figs = _plots(results, out_dir)

    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index = pd.MultiIndex.from_tuples(table.index, names=["mix", "policy"])
    table.to_csv(out_dir / "summary.csv")

    lines = [
        "# Seed 001: drop policies for mixed TCP and UDP (RDA, RDA/FP, RDA/VP, SDA, ISDA)",
        "",
        f"Runs of {duration:.0f} s{' (quick mode: shortened)' if quick else ''}, seed 1, scenarios "
        "`scenarios/seeds/isda/{tcp,udp,mixed}_{rda,rda_fp,rda_vp,sda,isda}.toml` (their descriptions list every "
        "choice the paper leaves open). Command: `pinchpoint reproduce isda --out DIR" + (" --quick" if quick else "") + "`.",
        "Throughputs are goodputs (bytes delivered to the receiver) over the whole run; the queue mean is "
        f"time-weighted over [{WARMUP_S:.0f} s, end] at node1 -> node2.",
        "",
        "## Our numbers beside the paper's claims",
        "",
        "| claim (paper) | paper | ours | verdict |",
        "|---|---|---|---|",
    ]
    for claim, paper, ours, verdict in _claims(rows):
        lines.append(f"| {claim} | {paper} | {ours} | {verdict} |")
    lines += ["", "## Every run", "",
              "| mix | policy | TCP mean (min) Mbit/s | S10 / S11 / S12 Mbit/s | Jain all | Jain TCP | TCP share | UDP share "
              "| queue mean | drops overflow / early / policy |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for (mix, pol), r in rows.items():
        tcp = "-" if r["tcp_mean_bps"] != r["tcp_mean_bps"] else f"{_mbps(r['tcp_mean_bps'])} ({_mbps(r['tcp_min_bps'])})"
        udp = " / ".join("-" if r[f"{u}_bps"] != r[f"{u}_bps"] else _mbps(r[f"{u}_bps"]) for u in UDP_FLOWS)
        jt = "-" if r["jain_tcp"] != r["jain_tcp"] else f"{r['jain_tcp']:.3f}"
        lines.append(f"| {mix} | {LABEL[pol]} | {tcp} | {udp} | {r['jain_all']:.3f} | {jt} | {r['tcp_share']:.2f} | "
                     f"{r['udp_share']:.2f} | {r['queue_mean']:.1f} | {r['drops_overflow']:.0f} / {r['drops_early']:.0f} / "
                     f"{r['drops_policy']:.0f} |")
    lines += ["", "## Drops per flow, mixed traffic (data packets lost in the network)", "",
              "| policy | " + " | ".join(TCP_FLOWS + UDP_FLOWS) + " |", "|---" * (1 + len(TCP_FLOWS) + len(UDP_FLOWS)) + "|"]
    for pol in POLICIES:
        lost = results[("mixed", pol)]["flows"]["lost_pkts"].reindex(TCP_FLOWS + UDP_FLOWS)
        lines.append(f"| {LABEL[pol]} | " + " | ".join(f"{int(v)}" for v in lost) + " |")
    lines += ["", "## Steady-state throughput after the warm-up, mixed traffic (Mbit/s)", "",
              "| policy | " + " | ".join(TCP_FLOWS + UDP_FLOWS) + " |", "|---" * (1 + len(TCP_FLOWS) + len(UDP_FLOWS)) + "|"]
    for pol in POLICIES:
        st = results[("mixed", pol)]["steady_bps"].reindex(TCP_FLOWS + UDP_FLOWS)
        lines.append(f"| {LABEL[pol]} | " + " | ".join(_mbps(v) for v in st) + " |")
    lines += ["", f"## Spread over seeds {', '.join(map(str, seeds))}, mixed traffic (mean and range)", "",
              "| policy | Jain all | TCP mean Mbit/s | S10 | S11 | S12 | queue mean |", "|---|---|---|---|---|---|---|"]
    for pol, runs in by_seed.items():
        def spread(key: str, scale: float = 1.0, fmt: str = "{:.2f}", runs=runs) -> str:
            v = np.array([r[key] for r in runs]) / scale
            return f"{fmt.format(v.mean())} ({fmt.format(v.min())}-{fmt.format(v.max())})"
        lines.append(f"| {LABEL[pol]} | {spread('jain_all', fmt='{:.3f}')} | {spread('tcp_mean_bps', 1e6)} | "
                     f"{spread('S10_bps', 1e6)} | {spread('S11_bps', 1e6)} | {spread('S12_bps', 1e6)} | "
                     f"{spread('queue_mean', fmt='{:.1f}')} |")
    lines += ["", "## Sensitivity to the choices the paper leaves open (mixed traffic, seed 1)", "",
              "Each row changes one choice of the scenario files; the main results above do not use them.", "",
              "| variant | TCP mean (min) Mbit/s | S10 / S11 / S12 Mbit/s | Jain all | queue mean | drops early / policy |",
              "|---|---|---|---|---|---|"]
    for label, r in sens:
        lines.append(f"| {label} | {_mbps(r['tcp_mean_bps'])} ({_mbps(r['tcp_min_bps'])}) | "
                     + " / ".join(_mbps(r[f"{u}_bps"]) for u in UDP_FLOWS)
                     + f" | {r['jain_all']:.3f} | {r['queue_mean']:.1f} | {r['drops_early']:.0f} / {r['drops_policy']:.0f} |")
    lines += ["", "## Figures", ""]
    lines += [f"![{n}]({n})" for n in figs]
    lines += ["", "## Gaps and likely causes", "", *GAPS_TEXT]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines) + "\n")
    if progress:
        progress("done", 1.0)
    return report


GAPS_TEXT = [
    "- **UDP only (Figures 7-8).** The three CBR sources offer 1 + 2 + 3 = 6 Mbit/s (the paper says \"total 5 Mbps\") "
    "to a 10 Mbit/s link. With constant-rate sources no standing queue can form, so our queue stays near zero under "
    "every policy; the paper's steady queue of 24 packets cannot come from the stated parameters. We cannot tell "
    "what the authors' sources actually did (VBR, larger rates, or another bottleneck).",
    "- **ISDA and the 1 Mbit/s flow.** With 12 active flows the fair share is 10/12 = 0.83 Mbit/s, so S10's STA "
    "(1 Mbit/s) is above it and ISDA, as we read s3.5, flags and cuts S10 as well as S11 and S12. The paper says the "
    "low-rate UDP flow keeps its rate; it does not say how its fair share is set. A fair share computed otherwise "
    "(for instance max-min, or above the 1 Mbit/s flow) would spare S10; we did not change ours to get that.",
    "- **How far the high-rate flows are cut.** A flagged flow is dropped while the average queue exceeds MinQue; its "
    "measured (accepted) rate falls, it is released in a later window and is cut again. The cycle follows the 1 s "
    "window, so the cut flows settle where the on/off duty cycle puts them, not exactly at the fair share; the "
    "paper reports about 0.9 Mbit/s for both. The window length is not in the paper.",
    "- **SDA halves the heavy flows.** With the raw per-window rate, a UDP flow above the fair share is cut for a "
    "whole window, measures zero, passes the next window in full, and so on: the 1, 2 and 3 Mbit/s flows end at "
    "half their rates. That SDA over-cuts is in line with the paper's remark that SDA has difficulty guaranteeing "
    "the high-bandwidth flows, but the exact halving is a property of our reading.",
    "- **TCP flows can be flagged.** A router cannot tell TCP from UDP by rate, so TCP flows above the fair share "
    "are cut too (policy drops in the TCP-only runs). This evens out the TCP flows (higher Jain's index over TCP).",
    "- **STA/LTA = 3.** With alpha1 = 0.8 and alpha2 = 0.3 the ratio STA/LTA can never exceed 0.8/0.3 = 2.67 "
    "(see `docs/algorithms/isda.md`), so the burst test with threshold 3 never fires with the paper's numbers.",
    "- **Eq. 2.** P0 = 1.225/(R BW^0.5) is implemented as printed with R in seconds and BW in packets/s; its units "
    "do not match the TCP model it cites. With R = 48 ms and BW = 1250 packets/s it gives P0 = 0.72, a steep "
    "RDA/VP that holds the average queue just above MinQue.",
    "- **TCP details.** The paper uses ns-2 defaults without naming them; we use NewReno and the ns-2 defaults we "
    "know of (scenario descriptions). Many TCP timeouts occur with a 20-packet window and drop rates of several "
    "per cent; ns-2's Tahoe/Reno of the time would behave somewhat differently.",
]
