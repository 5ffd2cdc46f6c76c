"""Seed 004: the report. The seed's claims with what we measured, one table per experiment,
the figures (6, 7-14, 17-19, TCP-compatibility) and the notes on every choice the seed leaves
open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ... import _native
from ...report import rows_table, write_report
from ..jobs import Job, Progress, run_jobs
from .analysis import run_bernoulli, run_cbr, run_compat, run_flash, run_square
from .scenarios import (
    BERNOULLI_SET,
    CBR_SET,
    COMPAT_SET,
    FLASH_SET,
    SQUARE_SET,
    VARIANTS,
    available,
    red_available,
)

#: The report's tables: (header, cell template or function of the row).
CLAIM_COLUMNS = [("claim", "{0}"), ("ours", "{1}"), ("verdict", "{2}")]
CBR_COLUMNS = [("algorithm", "{algorithm}"), ("sum of sending rates before 150 s (Mbit/s)", "{before_mbps:.2f}"),
               ("mean time to halve (s)", "{halving_s:.2f}"), ("median (s)", "{halving_median_s:.2f}"),
               ("flows that halved", "{halved_flows} / {flows}"), ("timeouts of the 15 flows (whole run)", "{timeouts}"),
               ("loss-event rate 160-250 s", "{late_loss_event_pct:.2f}%")]
FLASH_COLUMNS = [("algorithm", "{algorithm}"), ("short flows completed", "{short_done}"),
                 ("median short-flow time (s)", "{short_fct_median_s:.3f}")]
SQUARE_COLUMNS = [("algorithm", "{algorithm}"), ("period (s)", "{period_s:g}"), ("TCP", "{tcp_norm:.2f}"),
                  ("other", "{alt_norm:.2f}"), ("utilisation", "{util:.2f}")]
COMPAT_COLUMNS = [("algorithm", "{algorithm}"), ("link (Mbit/s)", lambda r: f"{r['link_bps'] / 1e6:g}"),
                  ("loss (alg / TCP)", "{alt_loss:.4f} / {tcp_loss:.4f}"),
                  ("thr / equation (alg / TCP)", "{alt_norm:.2f} / {tcp_norm:.2f}"), ("alg / TCP", "{ratio:.2f}"),
                  ("CoV 100 ms (alg / TCP)", "{alt_cov100ms:.2f} / {tcp_cov100ms:.2f}")]
BERNOULLI_COLUMNS = [("algorithm", "{algorithm}"), ("p", "{p:g}"), ("loss-event rate", "{loss_event_rate:.4f}"),
                     ("throughput (Mbit/s)", lambda r: f"{r['bps'] / 1e6:.3f}"), ("/ equation", "{norm_equation:.2f}"),
                     ("/ TCP(1/2)", "{rel_tcp:.2f}"), ("timeouts", "{timeouts}")]


def _cbr_row(name: str, v: dict[str, Any], scale: float) -> dict[str, Any]:
    """One row of the CBR table from :func:`~.analysis.run_cbr`'s measures."""
    ler = v["loss_event_rate"]
    late = float(ler[ler.index > 160 * scale].mean()) if len(ler) else float("nan")
    return {"algorithm": name, "before_mbps": v["before_bps"] / 1e6, "halving_s": v["halving_s"],
            "halving_median_s": float(v["halving"]["halving_s"].median()), "halved_flows": v["halved_flows"],
            "flows": len(v["halving"]), "timeouts": v["timeouts"], "late_loss_event_pct": late * 100}


def _plots(cbr: dict[str, Any], flash: dict[str, Any], square: dict[str, list[dict[str, float]]],
           compat: dict[str, list[dict[str, float]]], out_dir: Path,
           bernoulli: dict[str, list[dict[str, float]]] | None = None) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...plots import save_figure

    names = []
    if cbr:
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
        for label, res in cbr.items():
            ler = res["loss_event_rate"]
            ax.plot(ler.index, ler.to_numpy() * 100, lw=0.9, label=label)
            ax2.plot(res["loss"].index, res["loss"].to_numpy() * 100, lw=0.9, label=label)
        ax.set_ylabel("loss-event rate of the\nlong-lived flows (%)")
        ax2.set_ylabel("bottleneck drop rate,\nall packets (%)")
        ax2.set_xlabel("time (s)")
        ax.set_title("Loss over time, 15 long-lived flows, CBR on 0-100 s and from 150 s (cf. fig. 6)")
        ax.legend(fontsize=8)
        names.append(save_figure(fig, out_dir / "fig06_loss_rate.png").name)
    if flash:
        n = len(flash)
        cols = 2
        rows = (n + 1) // 2
        fig, axes = plt.subplots(rows, cols, figsize=(12, 2.6 * rows), sharex=True, sharey=True, squeeze=False)
        for ax, (label, res) in zip(axes.flat, flash.items(), strict=False):
            ax.plot(res["long_bps"].index, res["long_bps"] / 1e6, label="long-lived", lw=1)
            ax.plot(res["short_bps"].index, res["short_bps"] / 1e6, label="short (flash crowd)", lw=1)
            ax.set_title(label, fontsize=9)
            ax.axvline(20, color="grey", lw=0.5, ls=":")
        for ax in axes.flat[n:]:
            ax.axis("off")
        axes.flat[0].legend(fontsize=7)
        fig.supxlabel("time (s)")
        fig.supylabel("aggregate throughput (Mbit/s)")
        fig.suptitle("Flash crowd of short TCP flows from t = 20 s (cf. figs 7-14)")
        names.append(save_figure(fig, out_dir / "fig07_14_flash_crowd.png").name)
    if square:
        fig, axes = plt.subplots(1, len(square), figsize=(4.5 * len(square), 3.6), sharey=True, squeeze=False)
        for ax, (label, rows_) in zip(axes[0], square.items(), strict=True):
            df = pd.DataFrame(rows_)
            ax.semilogx(df["period_s"], df["tcp_norm"], "o-", label="TCP")
            ax.semilogx(df["period_s"], df["alt_norm"], "s-", label=label)
            ax.axhline(1.0, color="grey", lw=0.5, ls=":")
            ax.set_xlabel("CBR period (s)")
            ax.set_title(f"7 TCP + 7 {label}", fontsize=9)
            ax.legend(fontsize=8)
        axes[0][0].set_ylabel("throughput / fair share")
        fig.suptitle("Square-wave bandwidth, CBR takes 10 of 15 Mbit/s half the time (cf. figs 17-19)")
        names.append(save_figure(fig, out_dir / "fig17_19_square_wave.png").name)
    if compat:
        fig, ax = plt.subplots(figsize=(7, 4.2))
        for label, rows_ in compat.items():
            df = pd.DataFrame(rows_).sort_values("alt_loss")
            ax.semilogx(df["alt_loss"], df["alt_norm"], "o-", label=label, lw=1)
        tcp = pd.DataFrame([r for rows_ in compat.values() for r in rows_]).sort_values("tcp_loss")
        ax.semilogx(tcp["tcp_loss"], tcp["tcp_norm"], "k.", label="TCP(1/2) (all runs)")
        ax.axhline(1.0, color="grey", lw=0.5, ls=":")
        ax.set_xlabel("measured packet loss rate")
        ax.set_ylabel("throughput / TCP equation")
        ax.set_title("TCP-compatibility against the TCP equation (t_RTO = 4R)")
        ax.legend(fontsize=7)
        names.append(save_figure(fig, out_dir / "compat_equation.png").name)
    if bernoulli:
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.2), sharex=True)
        tcp = pd.DataFrame(bernoulli.get("TCP(1/2)", [])).set_index("p") if "TCP(1/2)" in bernoulli else None
        for label, rows_ in bernoulli.items():
            df = pd.DataFrame(rows_).sort_values("p").set_index("p")
            ax.semilogx(df.index, df["norm_equation"], "o-", label=label, lw=1)
            if tcp is not None:
                ax2.semilogx(df.index, df["bps"] / tcp["bps"].reindex(df.index), "o-", label=label, lw=1)
        for a in (ax, ax2):
            a.axhline(1.0, color="grey", lw=0.5, ls=":")
            a.axhspan(0.75, 1.25, color="grey", alpha=0.08)
            a.set_xlabel("Bernoulli packet loss probability p")
        ax.set_ylabel("throughput / TCP equation at the loss-event rate")
        ax2.set_ylabel("throughput / TCP(1/2) at the same p")
        ax.legend(fontsize=7)
        fig.suptitle("TCP-compatibility: one flow alone, random loss, 100 Mbit/s, 50 ms RTT")
        names.append(save_figure(fig, out_dir / "compat_bernoulli.png").name)
    return names


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("agrees" if ok else "differs")


def _jobs(quick: bool) -> list[tuple[str, str, Job]]:
    """Every run of the reproduction as (experiment, algorithm, job), in report order; the job
    returns the run's measures. ``quick`` shortens the runs for tests."""
    ok = lambda names: [n for n in names if available(VARIANTS[n])]  # noqa: E731
    scale = 0.2 if quick else 1.0
    n_short = 200 if quick else 1000
    flash_s = 30.0 if quick else 60.0
    periods = [0.2, 2.0, 16.0] if quick else [0.2, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    square_s = 40.0 if quick else 150.0
    links = [7.5e6, 15e6] if quick else [3e6, 7.5e6, 15e6, 30e6]
    compat_s = 60.0 if quick else 100.0
    loss_ps = [0.005, 0.05] if quick else [0.002, 0.005, 0.01, 0.02, 0.05, 0.1]
    bern_s, bern_warm = (60.0, 20.0) if quick else (400.0, 150.0)
    jobs: list[tuple[str, str, Job]] = []
    for name in ok(CBR_SET):
        jobs.append(("cbr", name, Job(f"cbr {name}", lambda n=name: run_cbr(VARIANTS[n], scale))))
    for name in ok(FLASH_SET):
        jobs.append(("flash", name, Job(f"flash {name}", lambda n=name: run_flash(VARIANTS[n], n_short, flash_s))))
    for name in ok(SQUARE_SET):
        for per in periods:
            jobs.append(("square", name, Job(f"square {name} {per}s",
                                             lambda n=name, p=per: run_square(VARIANTS[n], p, square_s))))
    for name in ok(COMPAT_SET):
        for lb in links:
            jobs.append(("compat", name, Job(f"compat {name} {lb / 1e6:g} Mbit/s",
                                             lambda n=name, b=lb: run_compat(VARIANTS[n], b, compat_s))))
    for name in ok(BERNOULLI_SET):
        for p in loss_ps:
            jobs.append(("bernoulli", name, Job(f"bernoulli {name} p={p:g}",
                                                lambda n=name, q=p: run_bernoulli(VARIANTS[n], q, bern_s, bern_warm))))
    return jobs


#: Experiments whose algorithms have one run each (the others have a list of runs per algorithm).
SINGLE_RUN = ("cbr", "flash")


def reproduce(out_dir: Path, quick: bool = False, progress: Progress | None = None) -> Path:
    """Runs the seed-004 experiments and writes ``report.md`` and figures into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    skipped = sorted({k for k, v in VARIANTS.items() if not available(v)})
    scale = 0.2 if quick else 1.0
    jobs = _jobs(quick)
    outcomes = run_jobs([j for _, _, j in jobs], progress, span=(0.0, 0.95), expected=(_native.ScenarioError,))
    results: dict[str, dict[str, Any]] = {e: {} for e in ("cbr", "flash", "square", "compat", "bernoulli")}
    failed: list[str] = []
    for (experiment, name, _), o in zip(jobs, outcomes, strict=True):
        if not o.ok:
            # A controller kind whose fields this module guessed wrong: report it, run the rest.
            failed.append(f"{o.label}: {o.error}")
        elif experiment in SINGLE_RUN:
            results[experiment][name] = o.value
        else:
            results[experiment].setdefault(name, []).append(o.value)
    cbr, flash, square, compat, bernoulli = (results[e] for e in ("cbr", "flash", "square", "compat", "bernoulli"))
    figs = _plots(cbr, flash, square, compat, out_dir, bernoulli)
    lines = _report_lines(cbr, flash, square, compat, skipped, quick, scale, failed, bernoulli)
    return write_report(out_dir, lines, figs, progress)


def _report_lines(cbr: dict[str, Any], flash: dict[str, Any], square: dict[str, list[dict[str, float]]],
                  compat: dict[str, list[dict[str, float]]], skipped: list[str], quick: bool, scale: float,
                  failed: list[str] | None = None,
                  bernoulli: dict[str, list[dict[str, float]]] | None = None) -> list[str]:
    red = ("RED (ns-2 2001 defaults: 5/15 packets, w_q 0.002, max_p 0.1, gentle)" if red_available() else
           "**drop-tail, 100 packets** (the `red` queue kind is not in this build; see Notes)")
    lines = [
        "# Seed 004: slowly-responsive congestion control",
        "",
        f"Command: `pinchpoint reproduce slowcc --out DIR{' --quick' if quick else ''}`. Dumbbell of "
        f"`scenarios/seeds/slowcc/dumbbell.toml`: 15 Mbit/s bottleneck with {red}, 50 ms RTT, 1000 B payload "
        "packets. TCP(1/2) is the project's NewReno with SACK.",
        "",
    ]
    if quick:
        lines += [f"Quick mode: the CBR timeline is scaled by {scale} (CBR on 0-{100 * scale:g} s and from "
                  f"{150 * scale:g} s), 200 short flows instead of 1000, shorter square-wave and compatibility runs.", ""]
    if skipped:
        lines += ["**Skipped variants** (their controller kind is not in this build's scenario schema): "
                  + ", ".join(skipped) + ".", ""]
    if failed:
        lines += ["**Runs refused by the scenario validator** (left out of every table):", "",
                  *[f"- {f}" for f in failed], ""]
    claims: list[tuple[str, str, str]] = []
    # Claims of the seed's text, each with what we measured.
    if cbr:
        off = {k: float(v["loss"][(v["loss"].index > 100 * scale) & (v["loss"].index <= 130 * scale)].mean()) for k, v in cbr.items()}
        on = {k: float(v["loss"][(v["loss"].index > 160 * scale)].mean()) for k, v in cbr.items()}
        claims.append(("Drop rate negligible during 100-130 s, after the CBR stops (s III)",
                       ", ".join(f"{k} {off[k] * 100:.2f}%" for k in off),
                       _verdict(all(off[k] < 0.2 * max(on[k], 1e-9) for k in off))))
        claims.append(("Drop rate rises again when the CBR returns at 150 s (s III, fig. 6)",
                       ", ".join(f"{k} {on[k] * 100:.2f}%" for k in on), _verdict(all(on[k] > off[k] for k in on))))
        tcp_h = cbr.get("TCP(1/2)", {}).get("halving_s", float("nan"))
        slow = {k: v["halving_s"] for k, v in cbr.items() if k != "TCP(1/2)"}
        claims.append(("Slower variants take longer than TCP to halve their rate after the CBR returns (issue 12; "
                       "per flow, from 150 s to its first rate at or below half its 140-150 s mean, averaged)",
                       f"TCP(1/2) {tcp_h:.2f} s; " + ", ".join(f"{k} {h:.2f} s" for k, h in slow.items()),
                       _verdict(all(h > tcp_h for h in slow.values()) if slow and tcp_h == tcp_h else None)))
    if flash:
        pre = {k: float(v["long_bps"][(v["long_bps"].index > 12) & (v["long_bps"].index <= 20)].mean()) for k, v in flash.items()}
        dur = {k: float(v["long_bps"][(v["long_bps"].index > 21) & (v["long_bps"].index <= 30)].mean()) for k, v in flash.items()}
        drop = {k: 1 - dur[k] / pre[k] for k in pre}
        sc = [k for k in drop if k.endswith("+SC") or k.startswith(("SQRT", "IIAD"))]
        others = [k for k in drop if k not in sc and k != "TCP(1/2)"]
        claims.append(("TFRC with self-clocking, SQRT and IIAD give way to the flash crowd earlier (s III)",
                       "long-lived rate cut during the crowd: " + ", ".join(f"{k} {drop[k] * 100:.0f}%" for k in drop),
                       _verdict(bool(sc) and bool(others) and min(drop[k] for k in sc) > max(drop[k] for k in others))
                       if sc and others else "n/a"))
    if square:
        for name, rows_ in square.items():
            df = pd.DataFrame(rows_).set_index("period_s")
            mid = df[(df.index >= 1) & (df.index <= 10)]
            if len(mid):
                claims.append((f"Periods 1-10 s favour TCP over {name} (s IV, figs 17-19)",
                               ", ".join(f"{p:g}s: TCP {r.tcp_norm:.2f} / {name} {r.alt_norm:.2f}" for p, r in mid.iterrows()),
                               _verdict(bool((mid["tcp_norm"] > mid["alt_norm"]).all()))))
    if compat:
        for name, rows_ in compat.items():
            df = pd.DataFrame(rows_)
            what = " (control: TCP against TCP)" if name == "TCP(1/2)" else ""
            claims.append((f"{name} within 25% of TCP on a shared bottleneck (issue 12){what}",
                           ", ".join(f"{r['link_bps'] / 1e6:g} Mbit/s: {r['ratio']:.2f}" for r in rows_),
                           _verdict(bool(((df["ratio"] - 1).abs() <= 0.25).all()))))
        for name, rows_ in compat.items():
            if name.startswith("TFRC"):
                claims.append((f"{name}: 100 ms rate CoV lower than TCP's (issue 12)",
                               ", ".join(f"{r['alt_cov100ms']:.2f} vs {r['tcp_cov100ms']:.2f}" for r in rows_),
                               _verdict(all(r["alt_cov100ms"] < r["tcp_cov100ms"] for r in rows_))))
    if bernoulli and "TCP(1/2)" in bernoulli:
        ref = {r["p"]: r["bps"] for r in bernoulli["TCP(1/2)"]}
        for name, rows_ in bernoulli.items():
            if name == "TCP(1/2)":
                continue
            ratios = [(r["p"], r["bps"] / ref[r["p"]]) for r in sorted(rows_, key=lambda r: r["p"]) if ref.get(r["p"])]
            # Two regimes, each with its own verdict: the compatibility rules come from models
            # without timeouts, which TCP's throughput is dominated by from a few percent loss on.
            for regime, sel in (("p <= 2%", lambda p: p <= 0.02), ("p >= 5%, where timeouts dominate", lambda p: p > 0.02)):
                part = [(p, x) for p, x in ratios if sel(p)]
                if part:
                    claims.append((f"{name} within 25% of TCP(1/2) under the same random loss, alone, {regime} (issue 12)",
                                   ", ".join(f"p {p:g}: {x:.2f}" for p, x in part),
                                   _verdict(all(abs(x - 1) <= 0.25 for _, x in part))))
    lines += ["## Claims of the seed's text and of issue 12", ""] + rows_table(CLAIM_COLUMNS, claims)
    if cbr:
        lines += ["", "## CBR on/off (fig. 6)", "",
                  "Sending rate of a flow: cwnd / srtt (TCP) or X (TFRC), sampled every 100 ms. Time to halve: per "
                  "flow, from the CBR's return at 150 s to the first sample at or below half the flow's mean over "
                  "140-150 s; the mean over the flows that halved within the run, and the median. Loss-event rate: "
                  "the engine's `loss_events` table (RFC 5348 s5.2 events, from each sender's view) of the 15 "
                  "long-lived flows together, 160-250 s.", ""]
        lines += rows_table(CBR_COLUMNS, [_cbr_row(k, v, scale) for k, v in cbr.items()])
    if flash:
        lines += ["", "## Flash crowd (figs 7-14)", ""]
        lines += rows_table(FLASH_COLUMNS, [{"algorithm": k, **v} for k, v in flash.items()])
    if square:
        lines += ["", "## Square wave (figs 17-19): throughput / fair share", ""]
        lines += rows_table(SQUARE_COLUMNS, [{"algorithm": k, **r} for k, rows_ in square.items() for r in rows_])
    if compat:
        lines += ["", "## TCP-compatibility (4 TCP + 4 of each algorithm)", ""]
        lines += rows_table(COMPAT_COLUMNS, [{"algorithm": k, **r} for k, rows_ in compat.items() for r in rows_])
    if bernoulli:
        ref = {r["p"]: r["bps"] for r in bernoulli.get("TCP(1/2)", [])}
        lines += ["", "## TCP-compatibility under random loss (one flow alone)", "",
                  "One flow on a 100 Mbit/s bottleneck (50 ms RTT, drop-tail queue that never fills) with Bernoulli "
                  "loss p in both directions; throughput over the run after the warm-up against the TCP equation "
                  "(RFC 5348 s3.1, t_RTO = 4R, b = 1) at the loss-event rate the engine counted, and against "
                  "TCP(1/2) at the same p and seed.", ""]
        lines += rows_table(BERNOULLI_COLUMNS, [
            {"algorithm": k, **r, "rel_tcp": r["bps"] / ref[r["p"]] if ref.get(r["p"]) else float("nan")}
            for k, rows_ in bernoulli.items() for r in sorted(rows_, key=lambda r: r["p"])])
    lines += ["", "## Notes", "", *NOTES]
    return lines


NOTES = [
    "- Without the `red` queue kind the bottleneck is drop-tail (100 packets). The RED-like `rda_vp` with the same "
    "thresholds was tried as a stand-in and rejected: it has no gentle region, drops every arrival while the "
    "average exceeds 15 packets, and at 7.5 Mbit/s and below late-starting flows lost every packet for tens of "
    "seconds. Under drop-tail a paced TFRC flow sees a higher loss rate than bursty TCP (about 2-3x here), so "
    "TFRC gets less than TCP even though each follows the equation at its own loss rate; the within-25% claim "
    "assumes both see the same loss, which RED's random drops give.",
    "- The seed's figures did not survive in its text; the claims above come from its prose. Its numbers are "
    "few, so every comparison is of shape or ordering, not of values.",
    "- Not in the seed and chosen here (scenario file comments): 15 Mbit/s for every experiment, RTT 50 ms, "
    "a 10 Mbit/s CBR for fig. 6 (the same two thirds as the square wave), start times spread over 10 s, a "
    "100-packet buffer.",
    "- The flash crowd is the `flash_crowd` arrival process (Poisson arrivals at 100/s from 20 s); each "
    "short transfer is a TCP flow of 10 packets (10 000 B) created at its arrival and freed when done, and "
    "its response time runs from its arrival to its last byte acknowledged. The short flows' throughput over "
    "time spreads each transfer's bytes evenly from its first to its last byte at the receiver.",
    "- The CBR on/off and square-wave sources are CBR UDP flows with a start time and a duration, one per "
    "on-period.",
    "- Loss rates in the compatibility table are packet loss rates (lost / sent) of each group; the "
    "equation is RFC 5348's with t_RTO = 4R and b = 1, evaluated at the group's mean RTT.",
    "- TFRC runs with history discounting on (ns-2 `discount_ 1`, GAPS.md).",
    "- AIMD and binomial apply ns-2's exceptions to a slow decrease (`tcp/tcp.cc`, `TcpAgent::slowdown`): the "
    "first decrease of a connection and every decrease in slow start halve the window whatever b is, and the "
    "ssthresh after a timeout is half the window (docs/algorithms/aimd.md). Before this, TCP(1/256) left slow start "
    "keeping 255/256 of the window that overshot.",
    "- What the seed's rule a = 4(2b - b^2)/3 predicts (docs/algorithms/aimd.md): under the deterministic sawtooth "
    "that gives TCP's sqrt(3/(2p)), AIMD(a, b) sends 2(2 - b)/3 times TCP's rate at the same loss-event rate, 1.25 "
    "for TCP(1/8) and 1.33 for TCP(1/256) (the rule equates the window at the loss, not the mean window); under "
    "independent random loss sqrt(a/(2b)), 1.12 and 1.15. A TCP(1/8) ratio of about 1.2-1.3 on RED, whose drops "
    "are spread out more evenly than independent ones, is therefore the rule's prediction, not a modelling error; "
    "the rule is the seed's and is kept.",
    "- TCP(1/256) at a shared bottleneck needs 1/b = 256 loss events to shed a factor e of excess window and gains "
    "only 0.0104 segment per RTT: 100 s runs measure it before it converges, from wherever slow start and the "
    "first timeouts left it. Alone under random loss at p >= 2%, timeouts dominate: each one restarts slow start, "
    "a loss in that slow start halves (ns-2), and the 0.01 segment/RTT increase never wins the window back, so "
    "it gets much less than TCP. At p <= 0.5% its ratio lies between the rule's random-loss and sawtooth "
    "predictions (1.15, 1.33); how much slow-start overshoot is left after the warm-up was not separated.",
    "- Why TCP(1/256) halves as fast as TCP after the CBR returns: with 15 flows on 15 Mbit/s each flow has a "
    "window of 6-9 segments before 150 s. The CBR's 10 Mbit/s pushes RED's average past max_th within about "
    "0.1 s; the drop rate of all packets goes from 2-3% to 20-40% per 100 ms interval. Several losses in a window "
    "of 6-9 segments leave too few duplicate ACKs (or lose the retransmission), so flows time out and restart "
    "from one segment whatever their b: in one seeded run, 21 timeouts and 39 fast retransmits among the 15 "
    "TCP(1/256) flows in 150-151 s. The slow decrease only acts on losses that fast retransmit repairs; the "
    "window-based variants keep TCP's timeout, i.e. the packet conservation the seed's source concludes is "
    "needed for safety (GAPS.md seed 004 s1). SQRT(1/256) does the same. TFRC(8) with self-clocking halves "
    "fastest of all because after a loss its rate is capped at the receive rate the receiver reports (ns-2 "
    "`conservative_`); rate-based TFRC(8) without it has no such floor and takes longer than TCP.",
    "- Figure 6 shows the loss-event rate of the 15 long-lived flows (RFC 5348 s5.2 events counted by the engine "
    "from each sender's view, `loss_events` table) above the bottleneck drop rate of all packets (CBR included).",
    "- The random-loss compatibility runs put Bernoulli loss on the bottleneck link in both directions (the "
    "link loss model's), so acknowledgements and TFRC feedback are lost at the same p.",
]
