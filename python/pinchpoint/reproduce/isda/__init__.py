"""Seed 001 (Song, Joo, Chung): router drop policies for mixed TCP and UDP traffic.

Runs the 15 scenarios under ``scenarios/seeds/isda/`` (traffic mixes tcp, udp, mixed x policies
RDA, RDA/FP, RDA/VP, SDA, ISDA; s4.1, Figure 4), ISDA's ``drop_all`` pre-filter beside its RED-PD
one, and writes ``report.md`` with figures:

* ``queue_node1.png``, ``queue_node1_mean.png``: queue length and QueAvg at node1, every mix and
  policy, as the raw trace of the first 40 s and as 1 s means over the run (Figures 5-10);
* ``throughput_mixed.png``: per-connection throughput over time in the mixed case under RDA/VP
  and ISDA (Figures 11-12);
* ``avg_throughput_mixed.png``: average throughput per connection per policy (Figure 13).

Modules: :mod:`.scenarios` (what runs, the paper's numbers), :mod:`.analysis` (running and
reducing a run), :mod:`.report` (claims table and report). No parameter is fitted to the paper's
numbers: the scenario files fix every choice before any run, and their descriptions say why.
"""

from __future__ import annotations

from .. import scenarios_dir
from .analysis import queue_average, run, settling_time_s, summarise
from .report import Claim, claims, reproduce
from .scenarios import FULL_S, LABEL, MIXES, POLICIES, SENSITIVITY, TCP_FLOWS, UDP_FLOWS, p0_readings

__all__ = ["FULL_S", "LABEL", "MIXES", "POLICIES", "SENSITIVITY", "TCP_FLOWS", "UDP_FLOWS", "Claim", "claims", "p0_readings",
           "queue_average", "reproduce", "run", "scenarios_dir", "settling_time_s", "summarise"]
