"""pinchpoint: a fast packet-level network simulator for congestion-control research.

The simulation runs entirely in Rust (``pinchpoint._native``); this package builds scenarios,
runs them, and hands results back as pandas DataFrames and Arrow tables.

>>> import pinchpoint as pp
>>> s = pp.Scenario("two-hosts", duration="5s")
>>> s.host("a"); s.host("b")
>>> s.link("a", "b", rate="10Mbps", delay="10ms")
>>> s.flow("f", "a", "b", workload=pp.bulk())
>>> r = pp.run(s)
>>> r.flows[["flow", "goodput_bps"]]
"""

from ._native import MODEL_REVISION, ResourceLimitError, ScenarioError, __version__
from .api import load, random_parts, run, validate
from .results import Results
from .scenario import (Scenario, bernoulli_loss, bulk, cbr, file, flash_crowd, gilbert_elliott_loss, on_off,
                       poisson, poisson_arrivals, size, square_wave, webtraf)

__all__ = [
    "Scenario",
    "Results",
    "ScenarioError",
    "ResourceLimitError",
    "run",
    "load",
    "validate",
    "random_parts",
    "maxmin",
    "bulk",
    "file",
    "cbr",
    "poisson",
    "on_off",
    "square_wave",
    "bernoulli_loss",
    "gilbert_elliott_loss",
    "poisson_arrivals",
    "flash_crowd",
    "webtraf",
    "size",
    "__version__",
    "MODEL_REVISION",
]


def __getattr__(name: str):
    # The max-min calculator (dataclasses, its own parser) loads on first use, not with the
    # package (issue 13: ``import pinchpoint`` under 0.2 s).
    if name == "maxmin":
        from .optimum import maxmin

        return maxmin
    raise AttributeError(f"module 'pinchpoint' has no attribute {name!r}")
