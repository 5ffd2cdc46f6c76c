"""Makes the validation figures of docs/algorithms/{isda,rda_vp}.md from the project's own runs.

Run from the repository root after ``maturin develop``: ``python docs/algorithms/img/make_isda_figures.py``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from pinchpoint.plots import save_figure
from pinchpoint.reproduce import isda as rep
from pinchpoint.stats import time_weighted_mean

HERE = Path(__file__).resolve().parent
FLOWS = [f"S{i}" for i in range(1, 13)]


def main() -> None:
    res = {pol: rep.run("mixed", pol, rep.FULL_S) for pol in ("rda_vp", "isda")}
    # isda.png: average throughput per connection, RDA/VP vs ISDA (the comparison of Figure 13).
    fig, ax = plt.subplots(figsize=(6.4, 2.8))
    x = np.arange(len(FLOWS))
    for k, (pol, colour) in enumerate((("rda_vp", "tab:grey"), ("isda", "tab:blue"))):
        g = res[pol]["flows"]["goodput_bps"].reindex(FLOWS) / 1e6
        ax.bar(x + (k - 0.5) * 0.4, g, 0.4, label=rep.LABEL[pol], color=colour)
    ax.axhline(10 / 12, color="k", ls=":", lw=0.8, label="fair share")
    ax.set_xticks(x, FLOWS, fontsize=7)
    ax.set_ylabel("Mbit/s", fontsize=8)
    ax.set_title("Seed 001 s4.1, TCP (S1-S9) + UDP 1/2/3 Mbit/s (S10-S12), 400 s", fontsize=8)
    ax.legend(fontsize=7)
    save_figure(fig, HERE / "isda.png", dpi=90)
    # rda_vp.png: queue at node1 with TCP only, first 40 s (Figure 5).
    r = rep.run("tcp", "rda_vp", 40.0)
    q = r["queue"]
    fig, ax = plt.subplots(figsize=(6.4, 2.4))
    ax.step(q[:, 0], q[:, 1], where="post", lw=0.3)
    ax.axhline(10, color="grey", ls=":", lw=0.8)
    ax.axhline(25, color="grey", ls=":", lw=0.8)
    ax.set_xlabel("time (s)", fontsize=8)
    ax.set_ylabel("queue (packets)", fontsize=8)
    ax.set_title(f"RDA/VP, 9 TCP flows: queue at node1 (mean after 10 s: {time_weighted_mean(q[:, 0], q[:, 1], 10, 40):.1f})", fontsize=8)
    save_figure(fig, HERE / "rda_vp.png", dpi=90)


if __name__ == "__main__":
    main()
