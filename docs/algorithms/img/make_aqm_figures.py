"""Makes the validation figures of docs/algorithms/{red,codel,pie,fq_codel}.md from the project's
own runs: the dumbbell of ``crates/pinchpoint-core/tests/aqm.rs`` (four NewReno flows, 10 Mbit/s,
RTT 44 ms).

Run from the repository root after ``make build``: ``python docs/algorithms/img/make_aqm_figures.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import pinchpoint as pp
from pinchpoint.plots import save_figure

HERE = Path(__file__).resolve().parent
RATE_BPS = 10e6
PORT = "r1->r2"


def dumbbell(n: int, queue: str, duration: str, extra: str = "") -> str:
    s = (f'[simulation]\nduration = "{duration}"\n[metrics]\nqueue_trace = ["{PORT}"]\n'
         '[[nodes]]\nname = "r1"\nkind = "router"\n[[nodes]]\nname = "r2"\nkind = "router"\n'
         f'[[links]]\na = "r1"\nb = "r2"\nrate = "10Mbps"\ndelay = "20ms"\nqueue = {queue}\n')
    for i in range(n):
        s += (f'[[nodes]]\nname = "s{i}"\n[[nodes]]\nname = "d{i}"\n'
              f'[[links]]\na = "s{i}"\nb = "r1"\nrate = "1Gbps"\ndelay = "1ms"\n'
              f'[[links]]\na = "r2"\nb = "d{i}"\nrate = "1Gbps"\ndelay = "1ms"\n'
              f'[[flows]]\nname = "f{i}"\nsrc = "s{i}"\ndst = "d{i}"\nstart = "{7 * i}ms"\nworkload = {{ kind = "bulk" }}\n')
    return s + extra


def run(text: str) -> pp.Results:
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(text)
    return pp.run(f.name)


def queue_trace(r: pp.Results):
    qt = r.queue_trace.to_pandas()
    return qt[qt["port"] == PORT]


def delay_figure(name: str, queue: str, target_ms: float, title: str) -> None:
    r = run(dumbbell(4, queue, "30s"))
    qt = queue_trace(r)
    fig, ax = plt.subplots(figsize=(6.4, 2.4))
    ax.step(qt["t_s"], qt["queue_bytes"] * 8 / RATE_BPS * 1e3, where="post", lw=0.3)
    ax.axhline(target_ms, color="k", ls=":", lw=0.8, label=f"target {target_ms:g} ms")
    mean_ms = r.port(PORT)["queue_bytes_mean"] * 8 / RATE_BPS * 1e3
    ax.set(xlabel="time (s)", ylabel="queue delay (ms)", ylim=(0, max(4 * target_ms, 20)))
    ax.set_title(f"{title}: bottleneck queue delay (time mean {mean_ms:.1f} ms)", fontsize=8)
    ax.legend(fontsize=7)
    save_figure(fig, HERE / f"{name}.png", dpi=90)


def main() -> None:
    r = run(dumbbell(4, '{ kind = "red", limit_pkts = 100 }', "30s"))
    qt = queue_trace(r)
    fig, ax = plt.subplots(figsize=(6.4, 2.4))
    ax.step(qt["t_s"], qt["queue_pkts"], where="post", lw=0.3)
    for th in (5, 15):
        ax.axhline(th, color="k", ls=":", lw=0.8)
    ax.set(xlabel="time (s)", ylabel="queue (packets)")
    ax.set_title(f"RED defaults (5/15 packets), 4 TCP flows: time-mean queue {r.port(PORT)['queue_pkts_mean']:.1f} packets", fontsize=8)
    save_figure(fig, HERE / "red.png", dpi=90)

    delay_figure("codel", '{ kind = "codel" }', 5, "CoDel, 4 TCP flows")
    delay_figure("pie", '{ kind = "pie" }', 15, "PIE, 4 TCP flows")

    flood = ('[[nodes]]\nname = "u"\n[[nodes]]\nname = "ud"\n'
             '[[links]]\na = "u"\nb = "r1"\nrate = "1Gbps"\ndelay = "1ms"\n'
             '[[links]]\na = "r2"\nb = "ud"\nrate = "1Gbps"\ndelay = "1ms"\n'
             '[[flows]]\nname = "flood"\nsrc = "u"\ndst = "ud"\ntransport = "udp"\n'
             'workload = { kind = "cbr", rate = "15Mbps", packet_size = "1500B" }\n')
    fig, ax = plt.subplots(figsize=(6.4, 2.4))
    labels = []
    for k, (label, queue) in enumerate((("drop-tail 100", '{ kind = "droptail", limit_pkts = 100 }'), ("fq_codel", '{ kind = "fq_codel" }'))):
        f = run(dumbbell(1, queue, "20s", flood)).flows.set_index("flow")["goodput_bps"] / 1e6
        ax.bar([k - 0.2, k + 0.2], [f["f0"], f["flood"]], 0.4, color=["tab:blue", "tab:grey"])
        labels.append(label)
    ax.axhline(5, color="k", ls=":", lw=0.8)
    ax.set_xticks([0, 1], labels, fontsize=8)
    ax.set_ylabel("goodput (Mbit/s)", fontsize=8)
    ax.set_title("TCP (blue) beside a 15 Mbit/s CBR flood (grey) on 10 Mbit/s; dotted: fair share", fontsize=8)
    save_figure(fig, HERE / "fq_codel.png", dpi=90)


if __name__ == "__main__":
    main()
