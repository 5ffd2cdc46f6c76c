"""The job loop the reproductions share: run labelled jobs in order, report progress before
each, time each one, and keep going past the errors a reproduction expects (a scenario the
installed build refuses), recording them instead of stopping the report.

A reproduction lists its runs as :class:`Job` values and hands them to :func:`run_jobs`; its
report then reads the outcomes (value, error, wall time) by label.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Progress = Callable[[str, float], None]


@dataclass(frozen=True)
class Job:
    """One unit of a reproduction: a progress label and the work."""

    label: str
    run: Callable[[], Any]


@dataclass
class Outcome:
    """What a job gave: its value, or the expected error it raised, and its wall time, s."""

    label: str
    value: Any = None
    error: BaseException | None = None
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


def run_jobs(jobs: Sequence[Job], progress: Progress | None = None, span: tuple[float, float] = (0.0, 1.0),
             expected: tuple[type[BaseException], ...] = ()) -> list[Outcome]:
    """Runs ``jobs`` in order. Before job k of n, ``progress(label, a + (b - a) k / n)`` with
    ``span = (a, b)``. An exception of a type in ``expected`` is recorded in the job's outcome
    and the next job runs; any other propagates."""
    a, b = span
    out: list[Outcome] = []
    for k, job in enumerate(jobs):
        if progress:
            progress(job.label, a + (b - a) * k / len(jobs))
        t0 = time.time()
        try:
            o = Outcome(job.label, value=job.run())
        except expected as e:
            o = Outcome(job.label, error=e)
        o.wall_s = time.time() - t0
        out.append(o)
    return out
