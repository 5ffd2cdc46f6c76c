"""Reproductions of the seed documents' experiments: one module per document.

Each module defines ``reproduce(out_dir, quick=False, progress=None) -> Path``: it builds the
document's scenarios (files under ``scenarios/seeds/<name>/``), runs every variant, and writes a
one-page report (``report.md`` plus PNG figures) into ``out_dir``, returning the report's path.
``progress(label, fraction)`` is called as runs complete. ``quick`` shortens runs for tests.

Adding a reproduction: its module here and one line in ``REPRODUCTIONS``.
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
}

Progress = Callable[[str, float], None]


def names() -> list[str]:
    return sorted(REPRODUCTIONS)


def run(name: str, out_dir: Path, quick: bool = False, progress: Progress | None = None) -> Path:
    """Runs reproduction ``name`` into ``out_dir``."""
    if name not in REPRODUCTIONS:
        raise KeyError(f"unknown reproduction {name!r}; available: {', '.join(names()) or 'none'}")
    mod = importlib.import_module(REPRODUCTIONS[name][0])
    return mod.reproduce(Path(out_dir), quick=quick, progress=progress)


def scenarios_dir() -> Path:
    """The repository's ``scenarios/seeds`` directory."""
    return Path(__file__).resolve().parents[3] / "scenarios" / "seeds"
