"""Standard figures of a run: queue, window and goodput over time, and the end-to-end delay
distribution; and, for sweeps, means over seeds with confidence intervals
(:func:`mean_ci`). Each function draws on a given Axes (or a new figure) and returns the Axes;
:meth:`Plotter.save_all` writes the set as PNG, SVG or PDF.

The user's matplotlib backend is never changed: figures made here for files are
``matplotlib.figure.Figure`` objects drawn by the Agg canvas directly; a figure made for an Axes
the caller did not give uses ``pyplot`` only when the caller has already imported it (so it shows
inline in Jupyter), else a bare ``Figure``.

Styles: ``paper`` (the default for files) draws at one-column width (3.4 x 2.1 in), 8 pt text,
no title inside the axes (the caption says what it is); ``screen`` draws larger with titles.

>>> r = pp.run("scenarios/examples/two_flows_newreno.toml")
>>> r.plot.queue("r1->r2")
>>> r.plot.save_all("figs/", formats=["pdf", "png"])
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .results import Results

FORMATS = ("png", "svg", "pdf")
#: Figure size (inches) and rc settings per style.
STYLES: dict[str, dict[str, Any]] = {
    "paper": {"figsize": (3.4, 2.1), "titles": False,
              "rc": {"font.size": 8, "axes.labelsize": 8, "legend.fontsize": 6.5, "xtick.labelsize": 7,
                     "ytick.labelsize": 7, "lines.linewidth": 1.0, "axes.linewidth": 0.6,
                     "savefig.bbox": "tight", "savefig.pad_inches": 0.02, "pdf.fonttype": 42,
                     "svg.fonttype": "none"}},
    "screen": {"figsize": (7, 3.2), "titles": True, "rc": {"font.size": 10}},
}


def new_figure(figsize=(7, 3.2)):
    """A new Figure: through pyplot when the caller has imported it (to display inline),
    else a bare ``matplotlib.figure.Figure`` that touches no backend."""
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=figsize)
    from matplotlib.figure import Figure

    return Figure(figsize=figsize)


def save_figure(fig, path: str | Path, dpi: int = 110, *, layout: bool = True, close: bool = True) -> Path:
    """Writes ``fig`` to ``path`` (format from its suffix) and returns ``path``: the one way every
    figure of the package and its reproductions is saved.

    ``layout`` runs ``tight_layout`` first; ``dpi`` is the resolution of raster formats (110 by
    default, the screen figures'; a caller passes its own); ``close`` closes the figure afterwards
    (a pyplot figure leaves pyplot's list, so a loop of reports does not keep every figure
    alive), also when writing fails. The file is written whole or not at all
    (:func:`pinchpoint.atomic.write_file`: a sibling temporary file renamed over ``path``), so
    an interrupted report never leaves a truncated PNG under the real name. Drawn through the
    Agg canvas (vector formats by their own backends) without changing the current backend."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from .atomic import write_file

    path = Path(path)
    try:
        if fig.canvas is None or type(fig.canvas).__name__ == "FigureCanvasBase":
            FigureCanvasAgg(fig)
        if layout:
            fig.tight_layout()
        fmt = path.suffix.lstrip(".").lower() or matplotlib.rcParams["savefig.format"]
        write_file(path, lambda tmp: fig.savefig(tmp, dpi=dpi, format=fmt))
    finally:
        if close and "matplotlib.pyplot" in sys.modules:
            import matplotlib.pyplot as plt

            plt.close(fig)
    return path


def _axes(ax, figsize=(7, 3.2)):
    if ax is None:
        ax = new_figure(figsize).subplots()
    return ax


def _title(ax, text: str, show: bool) -> None:
    if show:
        ax.set_title(text)


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
    """Figures of one :class:`Results` (available as ``results.plot``). ``titles`` puts a
    title inside the axes (off in the ``paper`` style)."""

    def __init__(self, results: Results, titles: bool = True, figsize=(7, 3.2)) -> None:
        self.r = results
        self.titles = titles
        self.figsize = figsize

    def queue(self, port: str | None = None, ax=None, unit: str = "pkts"):
        """Queue length of ``port`` (default: the busiest port) over time. Uses the per-change
        queue trace when the port is traced, else the sampled series."""
        ax = _axes(ax, self.figsize)
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
        ax.set(xlabel="time (s)", ylabel=f"queue ({'packets' if unit == 'pkts' else 'bytes'})")
        _title(ax, f"queue at {port}", self.titles)
        return ax

    def window(self, flows: list[str] | None = None, ax=None):
        """Sending window, min(congestion window, advertised window), over time in kB; UDP
        flows (no window) are left out."""
        ax = _axes(ax, self.figsize)
        _need(self.r.flow_series, "flow series", "series_interval")
        n = 0
        for name, g in _flows_of(self.r.flow_series, flows):
            if g["cwnd_bytes"].max() == 0:
                continue  # no window (UDP)
            w = np.minimum(g["cwnd_bytes"].to_numpy(float), g["rwnd_bytes"].to_numpy(float))
            ax.plot(g["t_s"], w / 1000.0, lw=0.8, label=name)
            n += 1
        ax.set(xlabel="time (s)", ylabel="window (kB)")
        _title(ax, "sending window: min(cwnd, rwnd)", self.titles)
        _legend(ax, n)
        return ax

    def goodput(self, flows: list[str] | None = None, ax=None):
        """Goodput of each flow per sampling interval (Mbit/s)."""
        ax = _axes(ax, self.figsize)
        _need(self.r.flow_series, "flow series", "series_interval")
        n = 0
        for name, g in _flows_of(self.r.flow_series, flows):
            t = g["t_s"].to_numpy(float)
            b = g["delivered_bytes"].to_numpy(float)
            if len(t) < 2:
                continue
            ax.plot(t[1:], np.diff(b) * 8 / np.diff(t) / 1e6, lw=0.8, label=name)
            n += 1
        ax.set(xlabel="time (s)", ylabel="goodput (Mbit/s)")
        _title(ax, "goodput per interval", self.titles)
        _legend(ax, n)
        return ax

    def delay_cdf(self, flows: list[str] | None = None, ax=None):
        """Distribution of end-to-end delays of delivered data packets."""
        ax = _axes(ax, self.figsize)
        _need(self.r.packets, "packet trace", "packet_trace = true")
        n = 0
        for name, g in _flows_of(self.r.packets, flows):
            d = np.sort(g["delay_s"].to_numpy(float))
            ax.plot(d * 1e3, np.arange(1, len(d) + 1) / len(d), lw=0.9, label=name)
            n += 1
        ax.set(xlabel="end-to-end delay (ms)", ylabel="CDF")
        _title(ax, "end-to-end delay", self.titles)
        _legend(ax, n)
        return ax

    def save_all(self, out_dir: str | Path, formats: list[str] | tuple[str, ...] = ("png",),
                 style: str = "paper") -> list[Path]:
        """Writes every figure the recorded data allows, in each of ``formats`` (png, svg,
        pdf), in ``style`` (``paper`` or ``screen``); returns the paths. A figure whose data
        was not recorded is skipped with a warning naming the setting that records it (the
        delay CDF needs ``packet_trace = true``; window and goodput need ``series_interval``)."""
        import matplotlib

        formats = [f.lower() for f in formats]
        for f in formats:
            if f not in FORMATS:
                raise ValueError(f"format {f!r}: expected one of {', '.join(FORMATS)}")
        if style not in STYLES:
            raise ValueError(f"style {style!r}: expected one of {', '.join(STYLES)}")
        st = STYLES[style]
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        with matplotlib.rc_context(st["rc"]):
            from matplotlib.figure import Figure

            p = Plotter(self.r, titles=st["titles"], figsize=st["figsize"])
            for name, fn in (("queue", p.queue), ("window", p.window), ("goodput", p.goodput),
                             ("delay_cdf", p.delay_cdf)):
                fig = Figure(figsize=st["figsize"])
                try:
                    fn(ax=fig.subplots())
                except ValueError as e:
                    warnings.warn(f"{name} figure skipped: {e}", stacklevel=2)
                    continue
                for f in formats:
                    written.append(save_figure(fig, out / f"{name}.{f}", dpi=300 if style == "paper" else 110,
                                               layout=style == "screen", close=False))
        return written


# -- sweeps: means over seeds ----------------------------------------------------------------

def t95(dof: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``dof`` degrees of freedom (the 0.975
    quantile, :func:`pinchpoint.stats.student_t_quantile`: exact for every ``dof``, not the
    normal 1.960 beyond a table); NaN below 1."""
    from .stats import student_t_quantile

    if dof < 1:
        return float("nan")
    return student_t_quantile(0.975, dof)


def _parameter_columns(table) -> list[str]:
    """The columns of a sweep table that describe its points: each swept parameter and the typed
    columns beside it. A sweep writes them first, before ``seed``, and names them by dotted paths
    into the scenario, which no result column has (:data:`pinchpoint.sweep.RESULT_COLUMNS`); a
    column added after the results (a metric derived by the user) is not one."""
    from .sweep import RESULT_COLUMNS

    cols = [str(c) for c in table.columns]
    before_seed = set(cols[:cols.index("seed")]) if "seed" in cols else set()
    return [c for c in cols if c not in RESULT_COLUMNS and ("." in c or c in before_seed)]


def _same_quantity(column: str) -> set[str]:
    """``column`` and the columns of the same quantity in other units of the sweep's typing:
    ``links.r1->r2.rate`` and ``links.r1->r2.rate_bps`` (``10Mbps`` and ``10000kbps`` are one
    value, the same runs, in one ``rate_bps`` group)."""
    from .units import SUFFIX

    out = {column} | {column + sfx for sfx in SUFFIX.values()}
    out |= {column[:-len(sfx)] for sfx in SUFFIX.values() if column.endswith(sfx) and len(column) > len(sfx)}
    return out


def mean_ci(table, x: str, y: str, by: str | None = None):
    """Mean of ``y`` over the rows (seeds) of each ``x`` (and ``by``) value, with the half-width
    of its 95 % confidence interval (Student's t, ``t * s / sqrt(n)``; NaN for one seed).
    Returns a DataFrame with columns ``[by,] x, mean, ci95, n``.

    The mean is over seeds only. Raises ValueError, rather than pool rows of different points as
    if they were seeds (a parameter's effect taken for seed noise, and n too large), when another
    parameter of a sweep table (:func:`pinchpoint.sweep.sweep`; its typed columns included, those
    of ``x`` and ``by`` themselves not) varies within one ``x`` (and ``by``) value, naming it:
    keep one of its values, or pass it as ``by``. Also when a seed appears twice in one value
    (duplicate rows of one run)."""
    keys = [by, x] if by else [x]
    for k in [*keys, y]:
        if k not in table.columns:
            raise KeyError(f"{k!r}: no such column; expected one of {[str(c) for c in table.columns]}")
    where = f"{x!r}" + (f" and {by!r}" if by else "")
    own = set().union(*(_same_quantity(k) for k in keys)) | {y}
    others = [c for c in _parameter_columns(table) if c not in own]
    if others and len(table):
        # dropna=False: NaN (a field that one table value has and another lacks) is a value too.
        counts = table.groupby(keys, sort=True)[others].nunique(dropna=False)
        varying = [c for c in others if (counts[c] > 1).any()]
        if varying:
            cell = counts[counts[varying[0]] > 1].index[0]
            cell = dict(zip(keys, cell if isinstance(cell, tuple) else (cell,)))
            rows = table
            for k, v in cell.items():
                rows = rows[rows[k] == v]
            numeric = [c for c in varying if rows[c].dtype.kind in "iuf"]
            ex = (numeric or varying)[0]
            first = rows[ex].iloc[0]
            first = first.item() if hasattr(first, "item") else first
            # A parameter's own typed columns (queue and queue.limit_pkts) are one parameter.
            params = [c for c in varying if not any(r != c and (c.startswith(r + ".") or c in _same_quantity(r))
                                                    for r in varying)]
            keep = f"table[table[{ex!r}] == {first!r}]"
            if len(params) > 1:
                hint = f"Keep one value of each (e.g. {keep}), or pass one as by= and keep one value of the others"
            elif by is None:
                hint = f"Keep one value (e.g. {keep}), or pass it as by= (by={ex!r}: one line per value)"
            else:
                hint = f"Keep one value (e.g. {keep}), or pass it as by= (by={ex!r}) and keep one value of {by!r}"
            raise ValueError(
                f"mean over seeds of {y!r} at each {where}: the parameter column(s) "
                f"{', '.join(map(repr, varying))} also vary within one value (e.g. at "
                f"{', '.join(f'{k}={v}' for k, v in cell.items())}: {len(rows)} rows, {rows[ex].nunique(dropna=False)} "
                f"values of {ex!r}), so rows of different points would be pooled as if they were seeds; expected "
                f"one row per seed. {hint}")
    if "seed" in table.columns and len(table):
        repeats = table.groupby(keys, sort=True)["seed"].apply(lambda s: sorted(set(s[s.duplicated()])))
        repeats = repeats[repeats.map(len) > 0]
        if len(repeats):
            cell = repeats.index[0]
            cell = dict(zip(keys, cell if isinstance(cell, tuple) else (cell,)))
            raise ValueError(
                f"mean over seeds of {y!r} at each {where}: seed(s) {', '.join(map(str, repeats.iloc[0]))} appear "
                f"more than once at {', '.join(f'{k}={v}' for k, v in cell.items())} (duplicate rows of one run, "
                f"e.g. a table concatenated with itself); expected one row per seed: drop the repeats "
                f"(table.drop_duplicates('run'))")
    g = table.groupby(keys, sort=True)[y]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["ci95"] = [t95(int(n) - 1) * s / math.sqrt(n) if n > 1 else float("nan")
                   for s, n in zip(out["std"], out["count"])]
    return out.rename(columns={"count": "n"}).drop(columns=["std"])


def sweep_plot(table, x: str, y: str, by: str | None = None, ax=None, xlabel: str | None = None,
               ylabel: str | None = None):
    """Mean of ``y`` against ``x`` over the seeds of a sweep table, one line per ``by`` value,
    with 95 % confidence intervals as error bars (none when there is one seed, or when the seeds
    gave identical runs: see the sweep's ``seeds_differ`` column). Every other parameter of the
    sweep must have one value per point drawn (:func:`mean_ci` raises ValueError naming it)."""
    stats = mean_ci(table, x, y, by)  # first: its errors leave no empty figure behind
    ax = _axes(ax)
    for label, g in (stats.groupby(by, sort=False) if by else [(None, stats)]):
        ax.errorbar(g[x], g["mean"], yerr=g["ci95"].fillna(0), marker="o", ms=3, capsize=2,
                    label=None if label is None else f"{by}={label}")
    ax.set(xlabel=xlabel or x, ylabel=ylabel or f"{y} (mean, 95% CI)")
    if by:
        ax.legend()
    return ax
