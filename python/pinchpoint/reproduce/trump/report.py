"""Seed 002: the report. Per scenario and variant, our per-source table beside the thesis's,
the routers' queues and utilisation, the rates RBCC hands the TRUMP sources against the max-min
optimum (figure and table), the random topologies of chapter 10, and the chapter's claims with
verdicts."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ...report import rows_table, write_report
from ..jobs import Job, Progress, run_jobs
from .analysis import (
    SETTLE_S,
    busy_utilisation,
    drop_trace,
    first_cut_after,
    mean_of,
    optimum_reached_after_route_change,
    per_source,
    phases,
    random_gaps,
    rate_errors,
    route_change_times,
)
from .scenarios import OPTIMUM_TABLES, SCENARIOS, THESIS, TRUMP_ONLY, VARIANTS, scenario_path

#: The thesis's per-source columns (s9.4.5): ours and the thesis's rows share them.
SOURCE_COLUMNS = [("source", "{source}"), ("end s", "{end_s:.1f}"), ("avg rate bit/s", "{avg_rate_bps:.0f}"),
                  ("e2e mean s", "{e2e_mean_s:.2f}"), ("e2e std s", "{e2e_std_s:.2f}"),
                  ("rtt mean s", "{rtt_mean_s:.2f}"), ("rtt std s", "{rtt_std_s:.2f}"), ("lost", "{lost}"),
                  ("retx", "{retx}")]
#: The order of a :data:`~.scenarios.THESIS` tuple.
THESIS_KEYS = ("end_s", "avg_rate_bps", "e2e_mean_s", "e2e_std_s", "rtt_mean_s", "rtt_std_s", "lost", "retx")
PORT_COLUMNS = [("port", "{port}"), ("mean queue pkts", "{queue_pkts_mean:.2f}"), ("max queue pkts", "{queue_pkts_max:.0f}"),
                ("drops", "{drops}"), ("utilisation", "{utilisation:.3f}")]
RATE_ERROR_COLUMNS = [("phase s", "{from_s:.1f}-{to_s:.1f}"), ("flow", "{flow}"), ("optimum bit/s", "{optimum_bps:.1f}"),
                      ("median bit/s", "{measured_median_bps:.1f}"),
                      ("median gap %", lambda e: f"{100 * e['median_rel_err']:.3f}"),
                      ("worst sample gap %", lambda e: f"{100 * e['max_rel_err']:.1f}"),
                      ("samples within 1 %", lambda e: f"{100 * e['share_within_1pct']:.0f} %")]
CLAIM_COLUMNS = [("claim", "{0}"), ("thesis", "{1}"), ("ours", "{2}"), ("verdict", "{3}")]


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("holds" if ok else "does not hold")


def claims(runs: dict[tuple[str, str], Any], gaps: list[float]) -> list[tuple[str, str, str, str]]:
    """The chapter's claims and the issue's "must hold" list, each checked on our runs:
    (claim, thesis, ours, verdict)."""
    from ...optimum import maxmin

    out: list[tuple[str, str, str, str]] = []
    # Calculator against the optimum tables (instants inside each row; Off rows name the flows).
    rows = [(5.0, None), (15.0, None), (100.0, None), (150.0, None), (250.0, ["s5", "s7", "s8"]), (500.0, ["s5", "s7"])]
    for sid in ("s2", "s2a"):
        bad = []
        for (at, act), (label, want) in zip(rows, OPTIMUM_TABLES[sid]):
            got = maxmin(scenario_path(sid, "trump"), at=at, active=act).rates_bps
            bad += [f"{label} {f}: {got.get(f, math.nan):.1f}" for f, r in want.items() if round(got.get(f, math.nan), 1) != r]
        out.append((f"{sid}: the calculator reproduces the optimum table", "table s9.4.1 / s9.5",
                    "every entry to the printed digit" if not bad else "; ".join(bad), _verdict(not bad)))
    for sid in ("s2", "s2a"):
        res = runs.get((sid, "trump"))
        if res is None:
            continue
        errs = rate_errors(res, scenario_path(sid, "trump"), settle_s=SETTLE_S)
        worst = max((e["median_rel_err"] for e in errs), default=math.nan)
        share = min((e["share_within_1pct"] for e in errs), default=math.nan)
        out.append((f"{sid}: RBCC's rates within 1 % of the optimum in every steady phase",
                    "ABT table s9.5: 31,180 / 61,440 / 22,180 / 60,960 bit/s (0.04-4 % off)",
                    f"{len(errs)} phase-flow pairs; worst median gap {100 * worst:.3f} %, "
                    f"lowest share of samples within 1 % {100 * share:.0f} %", _verdict(worst <= 0.01)))
    for sid in sorted({s for s, v in runs if v == "trump"}, key=lambda x: list(SCENARIOS).index(x)):
        res = runs[(sid, "trump")]
        lost = [r["lost"] for r in per_source(res)]
        ours = f"{sum(lost)} lost ({', '.join(str(x) for x in lost)} per source)"
        if sid == "s9":
            # s9.12 contradicts the summary: with k = 1 and no quenches, router 1 loses two of
            # source 6's packets around 16 s, before source 6's lower rate arrives (16.8-17 s).
            drops = drop_trace(res)
            cut = first_cut_after(res, 10.0)
            where = "; ".join(f"{d['port']} {d['drops']} at {d['first_s']:.2f}-{d['last_s']:.2f} s" for d in drops)
            ok = bool(drops) and all(d["port"] == "r1->r2" and d["last_s"] <= cut for d in drops)
            out.append((f"{sid}: TRUMP loses packets only at router 1, before source 6's lower rate arrives",
                        "s9.12: two packets of source 6 around 16 s (the summary s9.13 says none in any scenario)",
                        f"{ours}; {where}; the cut reaches source 6 at {cut:.2f} s", _verdict(ok)))
            continue
        out.append((f"{sid}: TRUMP loses no packet", "none in any scenario (s9.13)", ours, _verdict(sum(lost) == 0)))
    for sid in SCENARIOS:
        t = runs.get((sid, "trump"))
        for v in ("reno", "vegas"):
            o = runs.get((sid, v))
            if t is None or o is None:
                continue
            ts, os_ = per_source(t), per_source(o)
            te, oe = mean_of([r["e2e_std_s"] for r in ts]), mean_of([r["e2e_std_s"] for r in os_])
            tr, orr = mean_of([r["rtt_std_s"] for r in ts]), mean_of([r["rtt_std_s"] for r in os_])
            out.append((f"{sid}: TRUMP's end-to-end and round-trip deviations are below {v.capitalize()}'s",
                        "s9.4.5, s9.7, s9.13", f"mean e2e std {te:.3f} vs {oe:.3f} s; mean RTT std {tr:.3f} vs {orr:.3f} s",
                        _verdict(te < oe and tr < orr)))
    for sid, v, n in (("s1", "reno", 18), ("s2", "reno", 108), ("s4", "reno", 782), ("s4", "vegas", 2702)):
        res = runs.get((sid, v))
        if res is not None:
            lost = sum(r["lost"] for r in per_source(res))
            out.append((f"{sid}: {v.capitalize()} loses packets", f"{n} packets", f"{lost} packets", _verdict(lost > 0)))
    for sid in ("s1",):
        res = runs.get((sid, "vegas"))
        if res is not None:
            lost = sum(r["lost"] for r in per_source(res))
            out.append((f"{sid}: Vegas loses no packet", "none (s9.3.2)", f"{lost}", _verdict(lost == 0)))
    for sid, port, want in (("s2", "r2->r3", 0.97), ("s4", "r23->r24", 0.99)):
        res = runs.get((sid, "trump"))
        if res is not None:
            u = busy_utilisation(res, port)
            out.append((f"{sid}: TRUMP keeps {port} fully used while data flows", f"{want:.2f}",
                         f"{u:.3f} (while any flow is active)", _verdict(u >= want - 0.03)))
    res = runs.get(("s8", "trump"))
    if res is not None:
        out.append(route_change_claim(res))
    quick, slow1, slow16 = (runs.get((s, "trump")) for s in ("s9k16q", "s9", "s9k16"))
    if quick is not None and slow1 is not None and slow16 is not None:
        tq, t1, t16 = (first_cut_after(r, 10.0) for r in (quick, slow1, slow16))
        out.append(("s9: Rate Quenches bring source 6 its lower rate sooner than acks, and k = 16 later than k = 1",
                    "12 s (k = 16, quench) < 16.8 s (k = 1) < 19 s (k = 16)",
                    f"{tq:.2f} s, {t1:.2f} s, {t16:.2f} s", _verdict(tq < t1 < t16)))
    if gaps:
        g = sorted(gaps)
        med = g[len(g) // 2]
        out.append((f"random scenarios: median gap between RBCC's steady rates and the optimum under 2 %",
                    "ch. 10 (issue 10 'must hold')", f"median {100 * med:.2g} % over {len(g)} flows", _verdict(med < 0.02)))
    return out


def route_change_claim(res: Any) -> tuple[str, str, str, str]:
    """Scenario 8: after the route change at 100 s, source 5 has the new path's optimum within one
    round trip and source 7 within the 5 s table time-out plus two round trips."""
    opt, t5, t7 = optimum_reached_after_route_change(res)
    limit7 = 100.0 + 5.0 + 2 * 2.4
    return ("s8: after the route change at 100 s the new optimum is reached within the detection delay",
            "source 5 at 100.24 s (512 kbit/s); source 7 at 107.6 s (62,361 bit/s) after the 5 s time-out",
            f"source 5 within 1 % of {opt['s5']:.0f} bit/s at {t5:.2f} s; source 7 within 1 % of {opt['s7']:.0f} bit/s at {t7:.2f} s",
            _verdict(t5 <= 101.0 and t7 <= limit7))


def source_rows(res: Any, sid: str, variant: str) -> list[dict[str, Any]]:
    """Our per-source rows, each followed by the thesis's row for the same source if it has one."""
    rows: list[dict[str, Any]] = []
    for r in per_source(res):
        rows.append(r)
        t = THESIS.get((sid, variant, r["source"]))
        if t:
            rows.append({"source": f"{r['source']} thesis", **dict(zip(THESIS_KEYS, t, strict=True))})
    return rows


def router_port_rows(res: Any) -> list[dict[str, Any]]:
    """Queue, drops and utilisation of every router-to-router port."""
    ports = res.ports
    util = dict(zip(res.links["link"], res.links["utilisation"]))
    return [{"port": p, "queue_pkts_mean": float(ports["queue_pkts_mean"][i]),
             "queue_pkts_max": float(ports["queue_pkts_max"][i]), "drops": int(ports["drops"][i]),
             "utilisation": float(util[p])}
            for i, p in enumerate(ports["port"]) if p.startswith("r") and "->r" in p]


def rates_figure(res: Any, sid: str, path: Path, png: Path) -> None:
    """The rates RBCC returned to each source over time, with the optimum of each phase."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...optimum import maxmin
    from ...plots import save_figure

    fs = res.flow_series.to_pandas()
    fig, ax = plt.subplots(figsize=(8, 4))
    for n, g in fs.groupby("flow"):
        ax.plot(g.t_s, g.rate_bps, label=f"{n} RBCC", lw=1)
    for a, b, act in phases(res, route_change_times(path)):
        opt = maxmin(path, at=(a + b) / 2, active=act).rates_bps
        for r in opt.values():
            ax.hlines(r, a, b, colors="k", linestyles="dotted", lw=1)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("rate (bit/s)")
    ax.set_title(f"{sid}: rates returned by RBCC (lines) and max-min optimum (dotted)")
    ax.legend(fontsize=7)
    save_figure(fig, png)


def run_section(res: Any, sid: str, variant: str, out_dir: Path) -> list[str]:
    """The report's section on one run: tables, and for TRUMP its drops, rates figure and rates
    against the optimum."""
    path = scenario_path(sid, variant)
    lines = [f"## {sid} / {variant}", ""]
    lines += rows_table(SOURCE_COLUMNS, source_rows(res, sid, variant))
    lines += [""] + rows_table(PORT_COLUMNS, router_port_rows(res)) + [""]
    if variant != "trump":
        return lines
    drops = drop_trace(res)
    if drops:
        lines += ["Drops (port, count, first and last 250 ms sample in which the count grew, largest queue): " +
                  "; ".join(f"{d['port']} {d['drops']} at {d['first_s']:.2f}-{d['last_s']:.2f} s, max queue "
                            f"{d['max_queue_pkts']:.0f}" for d in drops), ""]
    png = out_dir / f"{sid}_rates.png"
    rates_figure(res, sid, path, png)
    lines += [f"![{sid} rates]({png.name})", ""]
    if sid.startswith("s9"):
        t = first_cut_after(res, 10.0)
        lines += [f"Source 6 learns a lower rate after the 7->8 flow starts at 10 s: {t:.2f} s. Thesis: "
                  "16.8 s with k = 1, 19 s with k = 16, 12 s with k = 16 and Rate Quenches.", ""]
    errs = rate_errors(res, path, settle_s=SETTLE_S)
    if errs:
        lines += [f"RBCC's rates against the optimum, from {SETTLE_S:g} s after each phase starts:", ""]
        lines += rows_table(RATE_ERROR_COLUMNS, errs) + [""]
    return lines


def reproduce(out_dir: Path, quick: bool = False, progress: Progress | None = None) -> Path:
    """Runs the scenarios (only s2 and s2a with TRUMP when ``quick``) and writes ``report.md``."""
    from ... import _native
    from ...api import run as pp_run

    out_dir.mkdir(parents=True, exist_ok=True)
    todo = [(s, "trump") for s in ("s2", "s2a")] if quick else \
        [(s, v) for s in SCENARIOS for v in VARIANTS if v == "trump" or s not in TRUMP_ONLY]
    lines = ["# TRUMP/RBCC vs TCP Reno and Vegas (Toomey thesis ch. 9)", "",
             "Scenario files: `scenarios/seeds/trump/` (each says what is reconstructed or guessed). "
             "The chapter has nine scenarios (1-9) and the variant 2a; there is no scenario 10-12.",
             "Per-source tables: ours beside the thesis's (`thesis` rows). Columns as in the thesis: end time, "
             "average rate (goodput), one-way delay of the data packets at the receiver (mean, deviation), "
             "round trip from each acknowledgement's RTT sample (mean, deviation), data packets lost, "
             "retransmitted.", "", "Verdicts are in the section *Claims* at the end.", ""]
    # A scenario file not written yet (`vegas` before the controller existed) runs as None.
    jobs = [Job(f"{sid} {v}", lambda p=scenario_path(sid, v): pp_run(p) if p.exists() else None) for sid, v in todo]
    runs: dict[tuple[str, str], Any] = {}
    for (sid, v), o in zip(todo, run_jobs(jobs, progress, span=(0.0, 0.9), expected=(_native.ScenarioError,)),
                           strict=True):
        if not o.ok:
            lines += [f"## {sid} / {v}", "", f"Not run: {o.error}", ""]
        elif o.value is None:
            lines += [f"## {sid} / {v}", "", f"Not run: {scenario_path(sid, v).name} is not written.", ""]
        else:
            runs[(sid, v)] = o.value
            lines += run_section(o.value, sid, v, out_dir)
    # Chapter 10 style: random topologies and workloads, RBCC's steady rates against the optimum.
    seeds = range(1, 6) if quick else range(1, 101)
    per_seed = run_jobs([Job(f"random {seed}", lambda s=seed: random_gaps([s])) for seed in seeds], progress,
                        span=(0.9, 1.0))
    gaps = sorted(g for o in per_seed for g in o.value)
    q = lambda f: gaps[min(len(gaps) - 1, int(f * len(gaps)))]  # noqa: E731
    lines += [f"## Random scenarios ({len(seeds)} seeds, {len(gaps)} flows; `pinchpoint.randomnet`)", "",
              "Relative gap between each flow's steady RBCC rate (median over the second half of the run) and "
              "the calculator's optimum:", "",
              f"median {100 * q(0.5):.2g} %, 75th percentile {100 * q(0.75):.2g} %, 90th percentile {100 * q(0.9):.2g} %, "
              f"99th percentile {100 * q(0.99):.2g} %, max {100 * gaps[-1]:.2g} %", ""]
    lines += ["## Claims", ""] + rows_table(CLAIM_COLUMNS, claims(runs, gaps)) + [""]
    return write_report(out_dir, lines, progress=progress)
