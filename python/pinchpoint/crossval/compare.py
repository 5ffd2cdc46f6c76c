"""Both simulators on one scenario, side by side: ``pinchpoint crossval FILE`` (:func:`compare`),
``pinchpoint bench --against ns3`` (:func:`run_dumbbell`) and the CUBIC/BBR study of
``docs/crossval-cubic-bbr.md`` (``python -m pinchpoint.crossval.compare --study OUT_DIR``).
Every ns-3 run goes through :func:`.translate.translate` and :func:`.ns3_run.run_plan`."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tomllib
from pathlib import Path
from typing import Any

from .. import atomic
from ..stats import jain
from .ns3_run import available, run_plan  # noqa: F401  (re-exported for the CLI)
from .translate import CrossvalUnsupported, translate, translate_file  # noqa: F401


def _num(x: Any) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def run_ns3(path: str | Path, sim_s: float | None = None) -> dict:
    """The scenario file in ns-3 alone; refuses (:class:`CrossvalUnsupported`) before starting ns-3."""
    plan = translate_file(path)
    if sim_s is not None:
        plan["duration_s"] = float(sim_s)
    return {**run_plan(plan), "caveats": plan["caveats"]}


def compare(path: str | Path, sim_s: float | None = None) -> dict:
    """Run ``path`` on both simulators: per-flow rows (goodput, fct, losses, retransmissions, median
    window), ports that dropped on either side (drops, sampled mean queue), and a summary (aggregate
    goodput, Jain's index over the TCP flows, drops, wall times)."""
    from .. import api

    plan = translate_file(path)          # refuse early, before either run
    res = api.run(path)
    if sim_s is not None:
        plan["duration_s"] = float(sim_s)
    ns3 = run_plan(plan)
    series = res.flow_series.to_pandas() if res.flow_series is not None else None
    pp_flows = {r["flow"]: r for r in res.flows.to_dict("records")}
    flows = []
    for f in plan["flows"]:
        p, n = pp_flows[f["name"]], ns3["flows"][f["name"]]
        pp = {"goodput_bps": float(p["goodput_bps"]), "fct_s": _num(p["fct_s"]), "lost_pkts": int(p["lost_pkts"]),
              "completed": bool(p["completed"]), "delivered_bytes": int(p["delivered_bytes"]),
              "retx_pkts": int(p["retx_pkts"])}
        # Median, not mean: ns-3 3.44's TcpBbr can hold cwnd = 2^32 - 1 for a few samples (docs/crossval-cubic-bbr.md).
        if f["transport"] == "tcp" and series is not None and len(series):
            pp["cwnd_median_bytes"] = float(series.loc[series["flow"] == f["name"], "cwnd_bytes"].median())
        if n.get("cwnd_bytes"):
            n["cwnd_median_bytes"] = float(statistics.median(n["cwnd_bytes"]))
            n["cwnd_max_bytes"] = max(n["cwnd_bytes"])
        flows.append({"flow": f["name"], "transport": f["transport"], "workload": f["workload"], "cc": f.get("cc"),
                      "pinchpoint": pp, "ns3": n})
    pp_ports = {r["port"]: r for r in res.ports.to_dict("records")}
    ports = []
    for name, n in ns3["ports"].items():
        p = pp_ports.get(name, {})
        # Ports that dropped, marked or queued (a mean of a packet or more) on either side.
        if (n["drops"] or p.get("drops", 0) or n.get("marks", 0) or p.get("marks", 0)
                or max(n.get("queue_pkts_mean", 0), _num(p.get("queue_pkts_mean")) or 0) >= 1):
            ports.append({"port": name, "ns3": n, "pinchpoint": {"drops": int(p.get("drops", 0)),
                                                                 "marks": int(p.get("marks", 0)),
                                                                 "queue_pkts_mean": _num(p.get("queue_pkts_mean"))}})
    tcp = [f for f in flows if f["transport"] == "tcp"]
    ends = {"pinchpoint": float(res.meta["end_time_s"]), "ns3": float(ns3["sim_s"])}
    walls = {"pinchpoint": float(res.meta["wall_s"]), "ns3": float(ns3["wall_s"])}
    summary = {side: {
        # All bytes delivered over the run (not the sum of per-flow goodputs, whose active times differ).
        "aggregate_goodput_bps": sum(f[side]["delivered_bytes"] for f in flows) * 8.0 / ends[side],
        "jain_tcp": jain([f[side]["goodput_bps"] for f in tcp]),
        "drops": sum(p[side]["drops"] for p in ports),
        "marks": sum(p[side].get("marks", 0) for p in ports),
        "wall_s": walls[side], "sim_end_s": ends[side]} for side in ("pinchpoint", "ns3")}
    return {"scenario": str(path), "flows": flows, "ports": ports, "summary": summary,
            "wall_ratio_ns3_over_pinchpoint": walls["ns3"] / walls["pinchpoint"] if walls["pinchpoint"] > 0 else None,
            "caveats": plan["caveats"]}


def run_dumbbell(n_flows: int, sim_s: float = 30.0, per_flow_mbps: float | None = None) -> dict:
    """The benchmark dumbbell (``bench.dumbbell_scenario``) in ns-3, translated like any scenario and run
    without FlowMonitor or samplers, so ``wall_s`` is the bare ``Simulator::Run``. Returns a bench
    row: wall_s, packet_hops(_per_s), aggregate goodput, Jain's index, bottleneck (A->B) drops.
    ``per_flow_mbps``: the bottleneck grows with the flows (``bench.dumbbell_scenario``)."""
    from ..bench import bottleneck_bps, dumbbell_scenario

    sc = dumbbell_scenario(n_flows, sim_s, per_flow_mbps=per_flow_mbps)
    plan = translate(sc, f"<dumbbell-{n_flows}>")
    plan.update(flow_monitor=False, sample_s=None, duration_s=float(sim_s))
    r = run_plan(plan)
    per_flow = [r["flows"][f["name"]]["goodput_bps"] for f in plan["flows"]]
    return {"simulator": "ns3", "n_flows": n_flows, "sim_s": sim_s, "wall_s": r["wall_s"],
            "per_flow_mbps": per_flow_mbps, "bottleneck_bps": bottleneck_bps(sc),
            "packet_hops_per_s": r["packet_hops"] / r["wall_s"] if r["wall_s"] > 0 else 0.0,
            "goodput_bps": sum(per_flow), "jain": jain(per_flow), "drops": r["ports"]["A->B"]["drops"],
            "packet_hops": r["packet_hops"], "per_flow_goodput_bps": per_flow,
            "drops_other": sum(p["drops"] for k, p in r["ports"].items() if k != "A->B")}


# ---------------------------------------------------------------------------------------------
# The CUBIC / BBR study (docs/crossval-cubic-bbr.md)
# ---------------------------------------------------------------------------------------------

def dumbbell_toml(cc: str, n_flows: int, rtt_ms: float, buffer_bdp: float, rate_mbps: float = 10.0,
                  duration_s: float = 60.0) -> str:
    """A dumbbell scenario: ``n_flows`` bulk flows of ``cc`` from t = 0, access links 100 Mbit/s
    1 ms, bottleneck ``rate_mbps`` with a drop-tail buffer of ``buffer_bdp`` x BDP (at least 2
    packets), one-way bottleneck delay chosen for a base RTT of ``rtt_ms``; 10 ms series."""
    mss, wire = 1448, 1502
    bdp_pkts = rate_mbps * 1e6 * rtt_ms / 1e3 / 8 / wire
    buf = max(2, round(buffer_bdp * bdp_pkts))
    delay_ms = rtt_ms / 2 - 2                      # two 1 ms access hops each way
    cc_text = f'{{ kind = "cubic", hystart = false }}' if cc == "cubic" else f'"{cc}"'
    lines = [f'name = "xval-{cc}-{n_flows}f-{rtt_ms:g}ms-{buffer_bdp:g}bdp"',
             f"[simulation]\nduration = \"{duration_s:g}s\"\nseed = 1",
             "[metrics]\nseries_interval = \"10ms\"",
             '[[nodes]]\nname = "r1"\nkind = "router"', '[[nodes]]\nname = "r2"\nkind = "router"',
             f'[[links]]\na = "r1"\nb = "r2"\nrate = "{rate_mbps:g}Mbps"\ndelay = "{delay_ms:g}ms"\n'
             f'queue = {{ kind = "droptail", limit_pkts = {buf} }}']
    for i in range(n_flows):
        lines += [f'[[nodes]]\nname = "s{i}"', f'[[nodes]]\nname = "d{i}"',
                  f'[[links]]\na = "s{i}"\nb = "r1"\nrate = "100Mbps"\ndelay = "1ms"',
                  f'[[links]]\na = "r2"\nb = "d{i}"\nrate = "100Mbps"\ndelay = "1ms"',
                  f'[[flows]]\nname = "f{i}"\nsrc = "s{i}"\ndst = "d{i}"\ncc = {cc_text}\n'
                  f'workload = {{ kind = "bulk" }}\ntcp = {{ header_bytes = 54, ack_bytes = 54 }}']
    text = "\n\n".join(lines) + "\n"
    tomllib.loads(text)
    return text


STUDY_GRID = [(cc, n, rtt, buf) for cc in ("cubic", "bbr") for n in (2, 4) for rtt in (20, 40, 80)
              for buf in (0.5, 2.0)]


def study(out_dir: Path, grid=STUDY_GRID, duration_s: float = 60.0) -> list[dict]:
    """Runs every dumbbell of ``grid`` on both simulators; writes each scenario file and
    ``study.json`` (one row per run: per-flow goodput, retransmissions and median window, Jain's
    index, bottleneck drops and mean queue on both sides) into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for cc, n, rtt, buf in grid:
        path = out_dir / f"{cc}-{n}f-{rtt}ms-{buf:g}bdp.toml"
        path.write_text(dumbbell_toml(cc, n, rtt, buf, duration_s=duration_s))
        c = compare(path)
        bott = next((p for p in c["ports"] if p["port"] == "r1->r2"), None)
        row = {"cc": cc, "n_flows": n, "rtt_ms": rtt, "buffer_bdp": buf, "scenario": path.name, "caveats": c["caveats"]}
        for side in ("pinchpoint", "ns3"):
            row[side] = {
                "goodput_mbps": [f[side]["goodput_bps"] / 1e6 for f in c["flows"]],
                "retx_pkts": [f[side].get("retx_pkts") for f in c["flows"]],
                "cwnd_median_pkts": [(f[side].get("cwnd_median_bytes") or 0) / 1448 for f in c["flows"]],
                "cwnd_max_pkts": [(f[side].get("cwnd_max_bytes") or 0) / 1448 for f in c["flows"]],
                "jain": c["summary"][side]["jain_tcp"],
                "drops": bott[side]["drops"] if bott else 0,
                "queue_pkts_mean": bott[side].get("queue_pkts_mean") if bott else None,
                "wall_s": c["summary"][side]["wall_s"]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    atomic.write_text(out_dir / "study.json", json.dumps(rows, indent=1))
    atomic.write_text(out_dir / "study.md", study_markdown(rows))
    return rows


def study_markdown(rows: list[dict]) -> str:
    """One Markdown table row per run: pinchpoint | ns-3 for each measure."""
    def pair(r, key, fmt):
        return " | ".join(fmt(r[side][key]) for side in ("pinchpoint", "ns3"))

    flows = lambda xs: " / ".join(f"{x:.2f}" for x in xs)            # noqa: E731
    ints = lambda xs: " / ".join(str(x) for x in xs)                 # noqa: E731
    cw = lambda xs: " / ".join(f"{x:.0f}" for x in xs)               # noqa: E731
    out = ["| cc | N | RTT ms | buffer BDP | goodput Mbit/s pp | ns-3 | Jain pp | ns-3 | drops pp | ns-3 "
           "| mean queue pp | ns-3 | retx pp | ns-3 | median cwnd pp (seg) | ns-3 |", "|" + "---|" * 16]
    for r in rows:
        out.append(f"| {r['cc']} | {r['n_flows']} | {r['rtt_ms']} | {r['buffer_bdp']:g} | "
                   f"{pair(r, 'goodput_mbps', flows)} | {pair(r, 'jain', lambda x: f'{x:.3f}')} | "
                   f"{pair(r, 'drops', str)} | {pair(r, 'queue_pkts_mean', lambda x: f'{x or 0:.1f}')} | "
                   f"{pair(r, 'retx_pkts', ints)} | {pair(r, 'cwnd_median_pkts', cw)} |")
    return "\n".join(out) + "\n"


def plot_cwnd(path: Path, png: Path) -> dict:
    """Runs ``path`` on both simulators and draws every TCP flow's window (10 ms samples) from both
    into ``png``: one panel per simulator. Returns the comparison."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .. import api
    from ..plots import save_figure

    c = compare(path)
    series = api.run(path).flow_series.to_pandas()
    fig, axes = plt.subplots(2, 1, figsize=(8, 5), sharex=True, sharey=True)
    for f in c["flows"]:
        s = series[series["flow"] == f["flow"]]
        axes[0].plot(s["t_s"], s["cwnd_bytes"] / 1448, lw=0.8, label=f["flow"])
        n = f["ns3"].get("cwnd_bytes") or []
        step = c["summary"]["ns3"]["sim_end_s"] / max(len(n), 1)
        axes[1].plot([step * (k + 1) for k in range(len(n))], [x / 1448 for x in n], lw=0.8, label=f["flow"])
    for ax, title in zip(axes, ("pinchpoint", "ns-3 3.44")):
        ax.set_title(f"{title}: {Path(path).stem}", fontsize=9)
        ax.set_ylabel("cwnd (segments)")
        ax.legend(fontsize=7, loc="upper right")
    axes[1].set_xlabel("time (s)")
    save_figure(fig, png)
    return c


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="The CUBIC/BBR cross-validation study against ns-3.")
    ap.add_argument("--study", type=Path, required=True, help="output directory")
    ap.add_argument("--duration-s", type=float, default=60.0)
    ap.add_argument("--plot", type=Path, nargs="*", default=[], help="scenario files: draw their windows into "
                    "OUT_DIR/<name>-cwnd.png instead of running the grid")
    a = ap.parse_args()
    for p in a.plot:
        plot_cwnd(p, a.study / f"{p.stem}-cwnd.png")
    if not a.plot:
        study(a.study, duration_s=a.duration_s)
