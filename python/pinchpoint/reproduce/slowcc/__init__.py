"""Seed 004: slowly-responsive congestion control (TFRC(k), AIMD(a,b), binomial) under a CBR
source that comes and goes, a flash crowd of short TCP flows, and a square-wave bandwidth.

Every run uses the dumbbell of ``scenarios/seeds/slowcc/dumbbell.toml`` (15 Mbit/s RED
bottleneck, 50 ms RTT; the file says why) and adds the flows of one experiment:

* ``cbr``: 15 long-lived flows of one algorithm with start times spread over [0, 10) s and a CBR
  source on during [0, 100) and [150, 250) s: the bottleneck loss rate over time (figure 6) and
  the time each algorithm takes to halve its rate after the CBR source returns;
* ``flash``: the same 15 long-lived flows (no CBR) and 1000 TCP transfers of 10 packets arriving
  as a Poisson process of 100 flows/s from t = 20 s: aggregate throughput of long and short
  flows over time (figures 7-14);
* ``square``: 7 TCP and 7 flows of another algorithm with an on/off CBR source taking two
  thirds of the link, period swept 0.2-16 s: throughput of each kind over the fair share
  (figures 17-19);
* ``compat``: 4 TCP and 4 flows of each algorithm on the same bottleneck at several link rates:
  throughput against the TCP equation at the measured loss rate, the ratio to TCP, and the CoV of
  100 ms rates;
* ``bernoulli``: one flow of each algorithm alone on a fast link that loses packets at random
  with probability p, p swept 0.2-10%: throughput against the TCP equation at the measured
  loss-event rate and against NewReno at the same p (the TCP-compatibility figure).

The window controllers AIMD(a,b) and binomial(k,l) and the `red` queue come from other work;
variants whose controller kind is not in the scenario schema of the installed build are skipped
and listed in the report. No parameter is fitted to the seed: the seed gives shapes, not numbers.

Modules: :mod:`.scenarios` (the algorithms, what the build offers, each experiment's scenario),
:mod:`.analysis` (running an experiment and reducing it to the figures' measures), :mod:`.report`
(claims, tables, figures, notes and :func:`reproduce`).
"""

from __future__ import annotations

from .analysis import (
    equation_bps,
    halving_times,
    run_bernoulli,
    run_cbr,
    run_compat,
    run_flash,
    run_square,
    sending_rate_bps,
)
from .report import NOTES, reproduce
from .scenarios import (
    BERNOULLI_SET,
    CBR_SET,
    COMPAT_SET,
    FLASH_SET,
    PAYLOAD_BYTES,
    SQUARE_SET,
    TCP_STD,
    VARIANTS,
    Variant,
    _kind_properties,
    aimd_a,
    available,
    red_available,
)

__all__ = ["BERNOULLI_SET", "CBR_SET", "COMPAT_SET", "FLASH_SET", "NOTES", "PAYLOAD_BYTES", "SQUARE_SET", "TCP_STD",
           "VARIANTS", "Variant", "_kind_properties", "aimd_a", "available", "equation_bps", "halving_times",
           "red_available", "reproduce", "run_bernoulli", "run_cbr", "run_compat", "run_flash", "run_square",
           "sending_rate_bps"]
