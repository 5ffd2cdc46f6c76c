"""Seed 002 (Toomey, thesis ch. 9): TRUMP/RBCC against TCP Reno and TCP Vegas.

Three variants per scenario: ``trump`` (TRUMP sources, RBCC on every port), ``reno`` and
``vegas`` (TCP with that congestion controller, plain drop-tail routers).

:func:`reproduce` runs them and writes ``report.md`` with, per scenario and variant, the thesis's
per-source table beside ours (end time, average rate, end-to-end mean and deviation, round-trip
mean and deviation, packets lost, packets retransmitted), router queue lengths, link utilisation, and a figure of
the rates RBCC hands the TRUMP sources against the max-min optimum of
:func:`pinchpoint.optimum.maxmin`.

Modules: :mod:`.scenarios` (the builders, the scenario files written from them, the thesis's
tables), :mod:`.analysis` (reducing a run to the thesis's measures), :mod:`.report` (tables,
figures, claims and :func:`reproduce`). ``python -m pinchpoint.reproduce.trump`` rewrites the
scenario files from the builders.
"""

from __future__ import annotations

from .analysis import (
    SETTLE_S,
    busy_utilisation,
    drop_trace,
    first_cut_after,
    optimum_reached_after_route_change,
    per_source,
    phases,
    random_gaps,
    rate_errors,
    route_change_times,
)
from .report import claims, reproduce
from .scenarios import (
    OPTIMUM_TABLES,
    SCENARIOS,
    THESIS,
    TRUMP_ONLY,
    VARIANTS,
    scenario_dict,
    scenario_path,
    vegas_available,
    write_scenarios,
)

__all__ = ["OPTIMUM_TABLES", "SCENARIOS", "SETTLE_S", "THESIS", "TRUMP_ONLY", "VARIANTS", "busy_utilisation", "claims",
           "drop_trace", "first_cut_after", "optimum_reached_after_route_change", "per_source", "phases",
           "random_gaps", "rate_errors", "reproduce", "route_change_times", "scenario_dict", "scenario_path",
           "vegas_available", "write_scenarios"]
