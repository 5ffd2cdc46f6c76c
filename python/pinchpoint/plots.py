"""Standard figures of a run (matplotlib, headless): queue, window and goodput over time, and
the end-to-end delay distribution. Each function draws on a given Axes (or a new figure) and
returns the Axes; :func:`save_all` writes the set as PNGs.

>>> r = pp.run("scenarios/examples/two_flows_newreno.toml")
>>> r.plot.queue("r1->r2")
>>> r.plot.save_all("figs/")
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

if TYPE_CHECKING:
    from .results import Results


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.2))
    return ax


def _flows_of(table, flows: list[str] | None):
    """(name, rows) per flow of an Arrow table with a ``flow`` column, in order of appearance."""
    df = table.to_pandas()
    for name, g in df.groupby("flow", sort=False):
        if flows is None or name in flows:
            yield str(name), g


def _legend(ax, n: int) -> None:
    if 0 < n <= 12:
        ax.legend(fontsize=7, ncol=2)


def _need(table, what: str, how: str) -> None:
    if table.num_rows == 0:
        raise ValueError(f"no {what} recorded: set {how} in the scenario's [metrics]")


class Plotter:
    """Figures of one :class:`Results` (available as ``results.plot``)."""

    def __init__(self, results: Results) -> None:
        self.r = results

    def queue(self, port: str | None = None, ax=None, unit: str = "pkts"):
        """Queue length of ``port`` (default: the busiest port) over time. Uses the per-change
        queue trace when the port is traced, else the sampled series."""
        ax = _axes(ax)
        if port is None:
            links = self.r.links
            port = str(links.sort_values("utilisation", ascending=False)["link"].iloc[0])
        col = "queue_pkts" if unit == "pkts" else "queue_bytes"
        qt = self.r.queue_trace.to_pandas()
        qt = qt[qt["port"] == port]
        if len(qt):
            ax.step(qt["t_s"], qt[col], where="post", lw=0.7)
        else:
            _need(self.r.port_series, "port series", "series_interval")
            ps = self.r.port_series.to_pandas()
            ps = ps[ps["port"] == port]
            ax.plot(ps["t_s"], ps[col], lw=0.8)
        ax.set(xlabel="time (s)", ylabel=f"queue ({'packets' if unit == 'pkts' else 'bytes'})", title=f"queue at {port}")
        return ax

    def window(self, flows: list[str] | None = None, ax=None):
        """Sending window, min(congestion window, advertised window), over time in kB; UDP
        flows (no window) are left out."""
        ax = _axes(ax)
        _need(self.r.flow_series, "flow series", "series_interval")
        n = 0
        for name, g in _flows_of(self.r.flow_series, flows):
            if g["cwnd_bytes"].max() == 0:
                continue  # no window (UDP)
            w = np.minimum(g["cwnd_bytes"].to_numpy(float), g["rwnd_bytes"].to_numpy(float))
            ax.plot(g["t_s"], w / 1000.0, lw=0.8, label=name)
            n += 1
        ax.set(xlabel="time (s)", ylabel="window (kB)", title="sending window: min(cwnd, rwnd)")
        _legend(ax, n)
        return ax

    def goodput(self, flows: list[str] | None = None, ax=None):
        """Goodput of each flow per sampling interval (Mbit/s)."""
        ax = _axes(ax)
        _need(self.r.flow_series, "flow series", "series_interval")
        n = 0
        for name, g in _flows_of(self.r.flow_series, flows):
            t = g["t_s"].to_numpy(float)
            b = g["delivered_bytes"].to_numpy(float)
            if len(t) < 2:
                continue
            ax.plot(t[1:], np.diff(b) * 8 / np.diff(t) / 1e6, lw=0.8, label=name)
            n += 1
        ax.set(xlabel="time (s)", ylabel="goodput (Mbit/s)", title="goodput per interval")
        _legend(ax, n)
        return ax

    def delay_cdf(self, flows: list[str] | None = None, ax=None):
        """Distribution of end-to-end delays of delivered data packets."""
        ax = _axes(ax)
        _need(self.r.packets, "packet trace", "packet_trace = true")
        n = 0
        for name, g in _flows_of(self.r.packets, flows):
            d = np.sort(g["delay_s"].to_numpy(float))
            ax.plot(d * 1e3, np.arange(1, len(d) + 1) / len(d), lw=0.9, label=name)
            n += 1
        ax.set(xlabel="end-to-end delay (ms)", ylabel="CDF", title="end-to-end delay")
        _legend(ax, n)
        return ax

    def save_all(self, out_dir: str | Path) -> list[Path]:
        """Writes every figure the recorded data allows; returns the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, fn in (("queue", self.queue), ("window", self.window), ("goodput", self.goodput),
                         ("delay_cdf", self.delay_cdf)):
            try:
                ax = fn()
            except ValueError:
                continue
            fig = ax.figure
            fig.tight_layout()
            path = out / f"{name}.png"
            fig.savefig(path, dpi=110)
            plt.close(fig)
            written.append(path)
        return written
