"""Seed 001: the report, our numbers beside the paper's claims (s4.2, Figures 5-13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ... import atomic
from ...report import Claim, claims_table, write_report
from ...stats import binned_time_means
from ..jobs import Job, run_jobs
from .analysis import run, summarise
from .scenarios import (
    BIN_S,
    DROP_ALL,
    FAIR_SHARE_BPS,
    FULL_S,
    LABEL,
    LINK_BPS,
    MAX_QUE_PKTS,
    MIN_QUE_PKTS,
    MIXES,
    PAPER_SETTLE_S,
    POLICIES,
    QUICK_S,
    SEEDS_FULL,
    SEEDS_QUICK,
    SENSITIVITY,
    TCP_FLOWS,
    UDP_FLOWS,
    UDP_RATE_BPS,
    WARMUP_S,
    p0_readings,
)

ZOOM_S = 40.0
#: Tolerances of the claims table (relative to the paper's value unless stated).
TOL_LEVEL = 0.25  # queue levels and rates the paper reads off a figure ("about", "around")
TOL_UDP_KEEPS = 0.85  # "UDP maintains its rate": at least this fraction of the offered rate
TOL_SETTLE_S = 4.0  # settling time within this many seconds of the paper's 8 s
STARVED_FRAC = 0.25  # "lose all their capabilities": some flow below this fraction of the fair share
EARLY_DETECTION_S = 10.0
EARLY_DETECTION_FRAC = 0.9  # "detection only at the beginning": this share of policy drops by 10 s




def _mbps(x: float) -> str:
    return "n/a" if x != x else f"{x / 1e6:.2f}"


def _near(ours: float, paper: float, tol: float = TOL_LEVEL) -> bool:
    return abs(ours - paper) <= tol * abs(paper)


def claims(rows: dict[tuple[str, str], dict[str, float]], early: dict[str, float]) -> list[Claim]:
    """The paper's claims beside our numbers. ``rows`` maps (mix, policy) to :func:`summarise`
    rows; ``early`` holds the policy-drop counts of ISDA with TCP only at 10 s and at the end."""
    out: list[Claim] = []
    vp, isda = rows[("mixed", "rda_vp")], rows[("mixed", "isda")]
    udp_vp = [vp[f"{u}_bps"] for u in UDP_FLOWS]
    tol_keep = f">= {TOL_UDP_KEEPS:.0%} of offered"
    tol_lvl = f"+-{TOL_LEVEL:.0%}"
    out.append(Claim("vp_udp_keeps", "RDA/VP, mixed: UDP flows keep their 1/2/3 Mbit/s (Fig. 11, l.158)", "1 / 2 / 3",
                     " / ".join(_mbps(u) for u in udp_vp), tol_keep,
                     all(u >= TOL_UDP_KEEPS * UDP_RATE_BPS[n] for u, n in zip(udp_vp, UDP_FLOWS, strict=True))))
    out.append(Claim("vp_tcp_half", "RDA/VP, mixed: TCP flows share the rest, ~0.5 Mbit/s each (Fig. 11)", "~0.5",
                     _mbps(vp["tcp_mean_bps"]) + f" (min {_mbps(vp['tcp_min_bps'])})", tol_lvl,
                     _near(vp["tcp_mean_bps"], 0.5e6)))
    out.append(Claim("vp_starves_low", "RDA/VP, mixed: low-bandwidth flows 'lose all their capabilities' (l.160)",
                     "some flow ~0", f"lowest flow {_mbps(vp['min_flow_bps'])} (fair share {_mbps(FAIR_SHARE_BPS)})",
                     f"lowest < {STARVED_FRAC:.0%} of fair share", vp["min_flow_bps"] < STARVED_FRAC * FAIR_SHARE_BPS))
    hi = [isda["S11_bps"], isda["S12_bps"]]
    out.append(Claim("isda_cuts_high", "ISDA, mixed: 2 and 3 Mbit/s UDP cut toward ~0.9 Mbit/s (Fig. 12, l.174)",
                     "~0.9 / ~0.9", " / ".join(_mbps(h) for h in hi), tol_lvl, all(_near(h, 0.9e6) for h in hi)))
    out.append(Claim("isda_s10_a", "ISDA, mixed, S10 (reading A, l.174: all three UDP flows converge to ~0.9)", "~0.9",
                     _mbps(isda["S10_bps"]), tol_lvl, _near(isda["S10_bps"], 0.9e6)))
    out.append(Claim("isda_s10_b", "ISDA, mixed, S10 (reading B, l.178: low-rate UDP is guaranteed its 1 Mbit/s)", "1.0",
                     _mbps(isda["S10_bps"]), ">= 0.9", isda["S10_bps"] >= 0.9e6))
    out.append(Claim("isda_tcp_fair", "ISDA, mixed: TCP flows keep a fair share (Fig. 12-13)", "~0.8-0.9 (inferred)",
                     _mbps(isda["tcp_mean_bps"]) + f" (min {_mbps(isda['tcp_min_bps'])})", ">= 0.7",
                     isda["tcp_mean_bps"] >= 0.7e6))
    out.append(Claim("isda_fairer", "ISDA fairer than RDA/VP (Jain, all 12 flows; Fig. 13)", "ISDA > RDA/VP",
                     f"{isda['jain_all']:.3f} vs {vp['jain_all']:.3f}", "strictly greater", isda["jain_all"] > vp["jain_all"]))
    sda, rda = rows[("mixed", "sda")], rows[("mixed", "rda")]
    out.append(Claim("sda_isda_equal", "SDA and ISDA allocate bandwidth more equally than RDA and RDA/VP (Fig. 13)",
                     "SDA, ISDA > RDA, RDA/VP",
                     f"Jain SDA {sda['jain_all']:.3f}, ISDA {isda['jain_all']:.3f}, RDA {rda['jain_all']:.3f}, RDA/VP {vp['jain_all']:.3f}",
                     "strictly greater", min(sda["jain_all"], isda["jain_all"]) > max(rda["jain_all"], vp["jain_all"])))
    sda_hi, isda_hi = sda["S11_bps"] + sda["S12_bps"], isda["S11_bps"] + isda["S12_bps"]
    out.append(Claim("sda_overcuts", "SDA drops more of the high-rate UDP traffic than ISDA (l.178)", "SDA < ISDA",
                     f"S11 + S12: SDA {_mbps(sda_hi)}, ISDA {_mbps(isda_hi)}", "strictly less", sda_hi < isda_hi))
    # Queue: Figures 5-10. Fig. 5's 11 is a maximum; Figs. 7-10 give levels.
    tcp_vp = rows[("tcp", "rda_vp")]
    out.append(Claim("fig5_max", "RDA/VP, TCP only: maximum queue 11 after 8 s (Fig. 5)", "max 11",
                     f"max {tcp_vp['queue_max_after_settle']:.0f} (QueAvg max {tcp_vp['queue_avg_max_after_settle']:.1f}, "
                     f"QueAvg mean {tcp_vp['queue_avg_mean']:.1f}, queue mean {tcp_vp['queue_mean']:.1f})",
                     f"instantaneous max {tol_lvl}",
                     _near(tcp_vp["queue_max_after_settle"], 11)))
    tcp_is = rows[("tcp", "isda")]
    out.append(Claim("fig6_like5", "ISDA, TCP only: queue very similar to RDA/VP's (Fig. 6 vs 5)", "similar",
                     f"mean {tcp_is['queue_mean']:.1f} vs {tcp_vp['queue_mean']:.1f}; max {tcp_is['queue_max_after_settle']:.0f} "
                     f"vs {tcp_vp['queue_max_after_settle']:.0f}", f"means {tol_lvl}",
                     _near(tcp_is["queue_mean"], tcp_vp["queue_mean"])))
    total, by10 = early["total"], early["by_10s"]
    out.append(Claim("fig6_early", "ISDA, TCP only: high-bandwidth detection only at the beginning (Fig. 6, l.134)",
                     "beginning only", f"{by10:.0f} of {total:.0f} policy drops in the first {EARLY_DETECTION_S:.0f} s",
                     f">= {EARLY_DETECTION_FRAC:.0%} by {EARLY_DETECTION_S:.0f} s",
                     total == 0 or by10 >= EARLY_DETECTION_FRAC * total))
    for pol, fig in (("rda_vp", 7), ("isda", 8)):
        r = rows[("udp", pol)]
        out.append(Claim(f"fig{fig}_level", f"{LABEL[pol]}, UDP only: queue steady near 24 packets (Fig. {fig})", "~24",
                         f"mean {r['queue_mean']:.1f}, QueAvg {r['queue_avg_mean']:.1f}", tol_lvl, _near(r["queue_mean"], 24)))
    for pol, fig in (("rda_vp", 9), ("isda", 10)):
        r = rows[("mixed", pol)]
        out.append(Claim(f"fig{fig}_level", f"{LABEL[pol]}, TCP + UDP: 'stable at the threshold of 11' (Fig. {fig})", "~11",
                         f"QueAvg mean {r['queue_avg_mean']:.1f}, queue mean {r['queue_mean']:.1f}, max "
                         f"{r['queue_max_after_settle']:.0f}", f"QueAvg mean {tol_lvl}", _near(r["queue_avg_mean"], 11)))
    for mix, pol in (("tcp", "rda_vp"), ("mixed", "rda_vp"), ("mixed", "isda")):
        r = rows[(mix, pol)]
        out.append(Claim(f"settle_{mix}_{pol}", f"{LABEL[pol]}, {mix}: settles after about 8 s (s4.2)", "8 s",
                         (f"{r['settle_s']:.0f} s" if r["settle_s"] > 0 else "< 5 s (first 5 s bin)")
                         + " (QueAvg's 5 s means within 25 % of its level)", f"+-{TOL_SETTLE_S:.0f} s",
                         abs(r["settle_s"] - PAPER_SETTLE_S) <= TOL_SETTLE_S))
    return out


def _plots(results: dict[tuple[str, str], dict[str, Any]], out_dir: Path, dpi: int = 110) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...plots import save_figure

    names = []
    # Figures 5-10: queue at node1, every mix and policy: the raw trace over the first ZOOM_S
    # seconds with QueAvg on top (the transient the paper describes), then 1 s time-weighted means.
    for fname, zoom in (("queue_node1.png", True), ("queue_node1_mean.png", False)):
        fig, axes = plt.subplots(len(MIXES), len(POLICIES), figsize=(16, 7.5), sharex=True, sharey=True)
        for i, mix in enumerate(MIXES):
            for j, pol in enumerate(POLICIES):
                ax = axes[i][j]
                res = results[(mix, pol)]
                q, qa = res["queue"], res["queue_avg"]
                if len(q) and zoom:
                    keep = q[:, 0] <= ZOOM_S
                    ax.step(q[keep, 0], q[keep, 1], where="post", lw=0.4, color="tab:blue")
                    if len(qa):
                        k = qa[:, 0] <= ZOOM_S
                        ax.plot(qa[k, 0], qa[k, 1], lw=1.2, color="tab:red")
                elif len(q):
                    edges = np.arange(0.0, res["duration_s"] + 1e-9, BIN_S)
                    ax.plot(edges[1:], binned_time_means(q[:, 0], q[:, 1], edges), lw=0.6, color="tab:blue")
                    if len(qa):
                        ax.plot(edges[1:], binned_time_means(qa[:, 0], qa[:, 1], edges), lw=0.8, color="tab:red")
                ax.axhline(MIN_QUE_PKTS, color="grey", lw=0.6, ls=":")
                ax.axhline(MAX_QUE_PKTS, color="grey", lw=0.6, ls=":")
                ax.axhline(11, color="tab:green", lw=0.6, ls="--")
                ax.set_ylim(0, 52)
                if i == 0:
                    ax.set_title(LABEL[pol])
                if j == 0:
                    ax.set_ylabel(f"{mix}\nqueue (pkts)")
                if i == len(MIXES) - 1:
                    ax.set_xlabel("time (s)")
        what = f"every change, first {ZOOM_S:.0f} s" if zoom else f"{BIN_S:.0f} s time-weighted means"
        fig.suptitle(f"Queue at node1 -> node2 (blue) and QueAvg (red), {what}; MinQue 10, MaxQue 25 dotted, "
                     "the paper's 11 dashed; cf. Figures 5-10")
        save_figure(fig, out_dir / fname, dpi=dpi)
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
    save_figure(fig, out_dir / "throughput_mixed.png", dpi=dpi)
    names.append("throughput_mixed.png")

    # Figure 13: average throughput per connection per policy, mixed traffic.
    fig, ax = plt.subplots(figsize=(12, 4.2))
    flows = TCP_FLOWS + UDP_FLOWS
    x = np.arange(len(flows))
    pols = [*POLICIES, "isda_drop_all"]
    wdt = 0.8 / len(pols)
    for k, pol in enumerate(pols):
        g = results[("mixed", pol)]["flows"]["goodput_bps"].reindex(flows)
        ax.bar(x + (k - (len(pols) - 1) / 2) * wdt, g.to_numpy() / 1e6, wdt, label=LABEL[pol])
    ax.axhline(LINK_BPS / 12 / 1e6, color="k", lw=0.7, ls=":", label="fair share 0.83")
    ax.set_xticks(x, flows)
    ax.set_ylabel("average throughput (Mbit/s)")
    ax.set_title("Average throughput per connection, TCP + UDP (cf. Figure 13)")
    ax.legend(ncol=3, fontsize=8)
    save_figure(fig, out_dir / "avg_throughput_mixed.png", dpi=dpi)
    names.append("avg_throughput_mixed.png")
    return names


def reproduce(out_dir: Path, quick: bool = False, progress: Callable[[str, float], None] | None = None) -> Path:
    """Runs the 15 ISDA scenarios (and ISDA's drop_all option per mix, seeds, sensitivity) and
    writes ``report.md`` and PNG figures into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    duration = QUICK_S if quick else FULL_S
    results: dict[tuple[str, str], dict[str, Any]] = {}
    todo = [(m, p, None) for m in MIXES for p in POLICIES] + [(m, "isda_drop_all", DROP_ALL) for m in MIXES]
    seeds = SEEDS_QUICK if quick else SEEDS_FULL
    seed_todo = [(p, sd) for p in ("rda_vp", "sda", "isda") for sd in seeds[1:]]
    sens_todo = SENSITIVITY[:2] if quick else SENSITIVITY
    jobs = [Job(f"{mix}/{LABEL[pol]}", lambda mix=mix, pol=pol, over=over:
                run(mix, "isda" if pol == "isda_drop_all" else pol, duration, overrides=over))
            for mix, pol, over in todo]
    jobs.append(Job("ISDA, TCP only, first 10 s",
                    lambda: float(run("tcp", "isda", min(duration, 10.0))["port"]["drops_policy"])))
    jobs += [Job(f"mixed/{LABEL[pol]} seed {sd}", lambda pol=pol, sd=sd: summarise(run("mixed", pol, duration, seed=sd)))
             for pol, sd in seed_todo]
    jobs += [Job(label, lambda pol=pol, over=over: summarise(run("mixed", pol, duration, overrides=over)))
             for label, pol, over in sens_todo]
    out = iter(o.value for o in run_jobs(jobs, progress, span=(0.0, 0.95)))
    for mix, pol, _ in todo:
        results[(mix, pol)] = next(out)
    early = {"total": float(results[("tcp", "isda")]["port"]["drops_policy"]), "by_10s": next(out)}
    by_seed: dict[str, list[dict[str, float]]] = {p: [] for p in ("rda_vp", "sda", "isda")}
    for pol, _ in seed_todo:
        by_seed[pol].append(next(out))
    sens: list[tuple[str, dict[str, float]]] = [(label, next(out)) for label, _, _ in sens_todo]
    if progress:
        progress("figures", 0.97)
    rows = {key: summarise(res) for key, res in results.items()}
    for pol in by_seed:
        by_seed[pol].insert(0, rows[("mixed", pol)])
    figs = _plots(results, out_dir, dpi=40 if quick else 110)

    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index = pd.MultiIndex.from_tuples(table.index, names=["mix", "policy"])
    atomic.write_file(out_dir / "summary.csv", lambda tmp: table.to_csv(tmp))
    cl = claims(rows, early)
    agree = sum(c.agrees for c in cl)

    lines = [
        "# Seed 001: drop policies for mixed TCP and UDP (RDA, RDA/FP, RDA/VP, SDA, ISDA)",
        "",
        f"Runs of {duration:.0f} s{' (quick mode: shortened)' if quick else ''}, seed 1, scenarios "
        "`scenarios/seeds/isda/{tcp,udp,mixed}_{rda,rda_fp,rda_vp,sda,isda}.toml` (their descriptions list every "
        "choice the paper leaves open). Command: `pinchpoint reproduce isda --out DIR" + (" --quick" if quick else "") + "`.",
        "Throughputs are goodputs (bytes delivered to the receiver) over the whole run. Queue figures are at "
        f"node1 -> node2: 'queue' is the instantaneous number of waiting packets, 'QueAvg' the RED average "
        f"(weight 0.002) the policies act on, reconstructed from the queue trace; means are time-weighted over "
        f"[{WARMUP_S:.0f} s, end], maxima over [{PAPER_SETTLE_S:.0f} s, end].",
        "",
        "ISDA's pre-filter is RED-PD (s4.2 calls the stage a 'pre-filtering mechanism' and cites RED-PD, [7]): a "
        "window is congested if QueAvg exceeded MinQue during the previous window, and a flagged flow's packet is "
        "then dropped with probability max(0, 1 - fair share / its STA), STA measured on arriving bytes. The "
        "earlier reading, 'drop every flagged arrival while QueAvg > MinQue' (rates on accepted bytes), is the "
        "named option `prefilter = \"drop_all\"`, shown as ISDA (drop_all). RDA, SDA and both ISDA stages use one "
        "congestion test: QueAvg strictly above MinQue (10).",
        "",
        f"## Our numbers beside the paper's claims ({agree} of {len(cl)} agree)",
        "",
        *claims_table(cl),
    ]
    lines += ["", "## Every run", "",
              "| mix | policy | TCP mean (min) Mbit/s | S10 / S11 / S12 Mbit/s | Jain all | Jain TCP | TCP share | UDP share "
              "| queue mean / max | QueAvg mean / max | settles (s) | drops overflow / early / policy |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (mix, pol), r in rows.items():
        tcp = "-" if r["tcp_mean_bps"] != r["tcp_mean_bps"] else f"{_mbps(r['tcp_mean_bps'])} ({_mbps(r['tcp_min_bps'])})"
        udp = " / ".join("-" if r[f"{u}_bps"] != r[f"{u}_bps"] else _mbps(r[f"{u}_bps"]) for u in UDP_FLOWS)
        jt = "-" if r["jain_tcp"] != r["jain_tcp"] else f"{r['jain_tcp']:.3f}"
        lines.append(f"| {mix} | {LABEL[pol]} | {tcp} | {udp} | {r['jain_all']:.3f} | {jt} | {r['tcp_share']:.2f} | "
                     f"{r['udp_share']:.2f} | {r['queue_mean']:.1f} / {r['queue_max_after_settle']:.0f} | "
                     f"{r['queue_avg_mean']:.1f} / {r['queue_avg_max_after_settle']:.1f} | {r['settle_s']:.0f} | "
                     f"{int(r['drops_overflow'])} / {int(r['drops_early'])} / {int(r['drops_policy'])} |")
    lines += ["", "## Drops per flow, mixed traffic (data packets lost in the network)", "",
              "| policy | " + " | ".join(TCP_FLOWS + UDP_FLOWS) + " |", "|---" * (1 + len(TCP_FLOWS) + len(UDP_FLOWS)) + "|"]
    for pol in [*POLICIES, "isda_drop_all"]:
        lost = results[("mixed", pol)]["flows"]["lost_pkts"].reindex(TCP_FLOWS + UDP_FLOWS)
        lines.append(f"| {LABEL[pol]} | " + " | ".join(f"{int(v)}" for v in lost) + " |")
    lines += ["", "## Steady-state throughput after the warm-up, mixed traffic (Mbit/s)", "",
              "| policy | " + " | ".join(TCP_FLOWS + UDP_FLOWS) + " |", "|---" * (1 + len(TCP_FLOWS) + len(UDP_FLOWS)) + "|"]
    for pol in [*POLICIES, "isda_drop_all"]:
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
    readings = "; ".join(f"{k}: {v:.4f}" for k, v in p0_readings().items())
    lines += ["", "## Sensitivity to the choices the paper leaves open (mixed traffic, seed 1)", "",
              "Each row changes one choice of the scenario files; the main results above do not use them. Eq. 2 "
              f"gives no units; its readings give P0 = {readings}.", "",
              "| variant | TCP mean (min) Mbit/s | S10 / S11 / S12 Mbit/s | Jain all | queue mean | QueAvg mean | drops early / policy |",
              "|---|---|---|---|---|---|---|"]
    for label, r in sens:
        lines.append(f"| {label} | {_mbps(r['tcp_mean_bps'])} ({_mbps(r['tcp_min_bps'])}) | "
                     + " / ".join(_mbps(r[f"{u}_bps"]) for u in UDP_FLOWS)
                     + f" | {r['jain_all']:.3f} | {r['queue_mean']:.1f} | {r['queue_avg_mean']:.1f} | "
                       f"{int(r['drops_early'])} / {int(r['drops_policy'])} |")
    lines += ["", "## Figures", ""]
    lines += [f"![{n}]({n})" for n in figs]
    lines += ["", "## Why the others differ (likely causes)", "", *gaps_text(rows)]
    return write_report(out_dir, lines, progress=progress)


def gaps_text(rows: dict[tuple[str, str], dict[str, float]]) -> list[str]:
    isda, drop_all = rows[("mixed", "isda")], rows[("mixed", "isda_drop_all")]
    tcp_vp, tcp_is, sda = rows[("tcp", "rda_vp")], rows[("tcp", "isda")], rows[("mixed", "sda")]
    vp = rows[("mixed", "rda_vp")]
    return [
        f"- **Fig. 5's maximum of 11.** Our instantaneous queue with TCP only under RDA/VP reaches "
        f"{tcp_vp['queue_max_after_settle']:.0f} packets after 8 s (QueAvg {tcp_vp['queue_avg_max_after_settle']:.1f}): "
        "nine TCP senders with 20-packet windows put bursts into the queue that the slow average lets through. "
        "A maximum of 11 would need a much shorter queue or paced sources; nothing in the paper says which.",
        f"- **Detection not only at the beginning (Fig. 6).** With TCP only, ISDA keeps flagging: TCP flows on the "
        f"short paths run above the 10/9 Mbit/s share for whole windows, so policy drops continue all run "
        f"({tcp_is['drops_policy']:.0f} in all). The paper's queue calms after the start; its TCP flows may have "
        "been more even (ns-2's Reno of the time, other window limits).",
        f"- **Settling.** Our QueAvg reaches its level within the first seconds in every case we checked; the "
        "paper's 8 s transient is longer. Its sources start at 0 s with 100 Mbit/s access links as ours do; a "
        "longer initial RTO or slow start from one packet would lengthen the start-up.",
        f"- **Low-rate flows under RDA/VP (l.160).** The lowest flow keeps {vp['min_flow_bps'] / 1e6:.2f} Mbit/s; "
        "no flow loses all its capacity, because RDA/VP's drops are independent of the flow and every flow's "
        "share of the drops matches its share of the arrivals.",
        f"- **SDA against ISDA (l.178).** SDA halves every UDP flow, the 1 Mbit/s one included "
        f"(S10 {sda['S10_bps'] / 1e6:.2f} Mbit/s), so it does over-cut UDP; but it leaves the two high-rate flows "
        f"more ({(sda['S11_bps'] + sda['S12_bps']) / 1e6:.2f} Mbit/s together) than RED-PD does "
        f"({(isda['S11_bps'] + isda['S12_bps']) / 1e6:.2f}), which holds each near the fair share.",
        "- **UDP only (Figures 7-8).** The three CBR sources offer 1 + 2 + 3 = 6 Mbit/s (the paper says \"total 5 "
        "Mbps\") to a 10 Mbit/s link. With constant-rate sources no standing queue can form, so our queue stays near "
        "zero under every policy; the paper's steady queue of 24 packets cannot come from the stated parameters. We "
        "cannot tell what the authors' sources actually did (VBR, larger rates, or another bottleneck).",
        "- **Fig. 5's 11 is a maximum, Figs. 9-10's a level.** s4.2 says the RDA/VP queue with TCP only is stable "
        "'with the maximum queue length of 11', and with TCP + UDP 'stable at the threshold of 11'. We compare "
        "the first with our instantaneous maximum after 8 s and the second with QueAvg, the quantity the policies "
        "act on; a mean of the instantaneous queue is neither.",
        "- **S10 under ISDA.** The paper can be read two ways: l.174 says the UDP flows 'oscillatory converge to "
        "0.9Mbps' (all three), l.178 that ISDA 'guarantees TCP and low bandwidth UDP traffics'. With 12 active flows "
        f"the fair share is 10/12 = 0.83 Mbit/s, S10's 1 Mbit/s is above it, and RED-PD cuts it toward the fair "
        f"share ({_mbps(isda['S10_bps'])} Mbit/s): reading A. A max-min share would not spare it either: with nine "
        "greedy TCP flows max-min gives every flow 10/12 Mbit/s.",
        f"- **The two pre-filters.** RED-PD cuts each flagged flow toward the fair share (S11 / S12: "
        f"{_mbps(isda['S11_bps'])} / {_mbps(isda['S12_bps'])} Mbit/s); drop_all cuts each in proportion to its own "
        f"rate, for whole windows ({_mbps(drop_all['S11_bps'])} / {_mbps(drop_all['S12_bps'])} Mbit/s), because a "
        "cut flow's accepted rate falls, its flag clears and it returns at full rate.",
        "- **Why SDA halves.** With the raw per-window rate on accepted bytes, a UDP flow above the fair share is "
        "cut for a whole window, measures zero, passes the next window in full, and so on.",
        "- **TCP flows can be flagged.** A router cannot tell TCP from UDP by rate, so TCP flows above the fair share "
        "are cut too (policy drops in the TCP-only runs). This evens out the TCP flows (higher Jain's index over TCP).",
        "- **STA/LTA = 3.** With alpha1 = 0.8 and alpha2 = 0.3 the ratio STA/LTA can never exceed 0.8/0.3 = 2.67 "
        "(see `docs/algorithms/isda.md`), so the burst test with threshold 3 never fires with the paper's numbers.",
        "- **Eq. 2.** P0 = 1.225/(R BW^0.5) is implemented as printed with R in seconds and BW in packets/s; its units "
        "do not match the TCP model it cites. The sensitivity table shows its other readings.",
        "- **TCP details.** The paper uses ns-2 defaults without naming them; we use NewReno and the ns-2 defaults we "
        "know of (scenario descriptions). Many TCP timeouts occur with a 20-packet window and drop rates of several "
        "per cent; ns-2's Tahoe/Reno of the time would behave somewhat differently.",
    ]
