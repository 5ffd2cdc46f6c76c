"""Reproductions of the seed documents' experiments: one package per document, split into
``scenarios`` (what runs, the document's numbers), ``analysis`` (running and reducing a run) and
``report`` (tables through :func:`pinchpoint.report.rows_table`, figures, claims), running its
work through :func:`pinchpoint.reproduce.jobs.run_jobs`; ``eca`` is split by experiment instead
(parking lot, HTTP, LAN).

Each package defines ``reproduce(out_dir, quick=False, progress=None) -> Path``: it builds the
document's scenarios (files under ``scenarios/seeds/<name>/``), runs every variant, and writes a
one-page report (``report.md`` plus PNG figures) into ``out_dir``; :func:`run` renders it
again as ``report.html`` (figures embedded) and ``pinchpoint reproduce all`` writes an
``index.html`` linking them, returning the report's path.
``progress(label, fraction)`` is called as runs complete. ``quick`` shortens runs for tests.

Adding a reproduction: its package here and one line in ``REPRODUCTIONS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

#: name -> (module, one-line description)
REPRODUCTIONS: dict[str, tuple[str, str]] = {
    "isda": ("pinchpoint.reproduce.isda", "Mixed TCP/UDP drop policies: RDA, RDA/FP, RDA/VP, SDA, ISDA"),
    "atn": ("pinchpoint.reproduce.atn", "ATN WP/267 exercises 1-6"),
    "trump": ("pinchpoint.reproduce.trump", "TRUMP/RBCC vs TCP Reno and Vegas (Toomey thesis ch. 9)"),
    "slowcc": ("pinchpoint.reproduce.slowcc", "Slowly-responsive congestion control: TFRC(k), AIMD, binomial"),
    "eca": ("pinchpoint.reproduce.eca", "Explicit Congestion Avoidance: parking-lot grid, TCP vs ECN/RED vs ECA/WTP"),
}

Progress = Callable[[str, float], None]


def names() -> list[str]:
    return sorted(REPRODUCTIONS)


def run(name: str, out_dir: Path, quick: bool = False, progress: Progress | None = None) -> Path:
    """Runs reproduction ``name`` into ``out_dir``."""
    if name not in REPRODUCTIONS:
        raise KeyError(f"unknown reproduction {name!r}; available: {', '.join(names()) or 'none'}")
    mod = importlib.import_module(REPRODUCTIONS[name][0])
    report = mod.reproduce(Path(out_dir), quick=quick, progress=progress)
    # The same report as one HTML page, figures embedded (pinchpoint.report).
    if Path(report).suffix == ".md":
        from ..report import write_html

        write_html(report)
    return report


def write_index(out_dir: Path, reports: dict[str, Path]) -> Path:
    """``index.html`` in ``out_dir`` linking the HTML report of each reproduction."""
    from ..report import write_index as _write

    return _write(out_dir, {n: Path(p).with_suffix(".html") for n, p in reports.items()},
                  {n: REPRODUCTIONS[n][1] for n in reports if n in REPRODUCTIONS})


def scenarios_dir() -> Path:
    """The repository's ``scenarios/seeds`` directory."""
    return Path(__file__).resolve().parents[3] / "scenarios" / "seeds"
