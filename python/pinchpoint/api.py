"""Running scenarios from Python."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from pathlib import Path

from . import _native
from .results import Results, refuse_out_dir
from .scenario import Scenario

ScenarioLike = Scenario | str | Path


def _nonfinite(value: object, path: str = "") -> tuple[str, float] | None:
    """The field path and value of the first non-finite float in ``value``, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path, value
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for p, v in items:
        found = _nonfinite(v, p)
        if found:
            return found
    return None


def scenario_file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be read as a scenario file (a directory, nothing there), or None. The
    CLI asks before it draws a progress bar; ``_text`` raises it as a ScenarioError."""
    if path.is_dir():
        return f"{path}: expected a scenario file (TOML), got a directory"
    if not path.exists():
        return f"{path}: no such scenario file"
    return None


def _text(scenario: ScenarioLike) -> tuple[str, str, str]:
    """(text, origin, format) for the native side."""
    if isinstance(scenario, Scenario):
        data = scenario.to_dict()
        try:
            # JSON has no NaN or infinity: Python would write NaN tokens that the native reader
            # refuses as "expected value" at no field. Find the field instead (only on failure,
            # so a valid scenario is walked once, by the encoder).
            text = json.dumps(data, allow_nan=False)
        except ValueError:
            found = _nonfinite(data)
            if found is None:
                raise
            path, v = found
            raise _native.ScenarioError(f"{scenario.origin}: {path}: expected a finite number, got {v}") from None
        return text, scenario.origin, "json"
    if not isinstance(scenario, (str, Path)):
        raise TypeError(f"expected a Scenario (pinchpoint.Scenario) or the path of a scenario file, got {type(scenario).__name__}"
                        + (" (a dict: Scenario.from_dict(d) makes one)" if isinstance(scenario, dict) else ""))
    p = Path(scenario)
    problem = scenario_file_problem(p)
    if problem is not None:
        raise _native.ScenarioError(problem)
    try:
        text = p.read_text()
    except FileNotFoundError:  # removed since the check
        raise _native.ScenarioError(f"{p}: no such scenario file") from None
    except UnicodeDecodeError:
        raise _native.ScenarioError(f"{p}: not a text (UTF-8) file") from None
    return text, str(p), "toml"


_JSON_POSITION = re.compile(r" at line \d+ column \d+")


def _native_call(fn, text: str, origin: str, fmt: str, *args):
    """Calls the native side; for a builder's scenario (sent as JSON) the error keeps its
    field path but not the position inside the internal JSON text, which the user never saw."""
    try:
        return fn(text, origin, fmt, *args)
    except _native.ScenarioError as e:
        if fmt != "json":
            raise
        raise _native.ScenarioError(_JSON_POSITION.sub("", str(e))) from None


def load(scenario: ScenarioLike, seed: int | None = None) -> _native.Simulation:
    """Parses, validates and builds a scenario; raises :class:`ScenarioError` naming the file,
    the field and what was expected."""
    # bool is an int in Python: seed=True ran as seed 1.
    if seed is not None and not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**63):
        raise ValueError(f"seed: expected an integer from 0 to 2**63 - 1 (a TOML integer, and the int64 seed column of the results), got {seed!r}")
    text, origin, fmt = _text(scenario)
    return _native_call(_native.Simulation, text, origin, fmt, seed)


def validate(scenario: ScenarioLike) -> str:
    """Validates a scenario; returns it resolved (TOML with defaults filled in)."""
    text, origin, fmt = _text(scenario)
    return _native_call(_native.validate, text, origin, fmt)


def random_parts(scenario: ScenarioLike) -> list[str]:
    """The parts of a scenario that draw random numbers, so that its seed changes the run, as
    labels in the file's terms (``flows.f1.start_jitter``, ``links.r1->r2.queue=red``,
    ``flows.f2.workload=on_off``, ``arrivals.web.src``), in file order; empty when every seed
    gives the same run. Decided by each part's settings (``on_off`` draws only with
    ``distribution = "exponential"``), by the engine (``scenario::random_parts``)."""
    text, origin, fmt = _text(scenario)
    return _native_call(_native.random_parts, text, origin, fmt)


def run_key(scenario: ScenarioLike, seed: int) -> str:
    """The run key of a scenario run with ``seed``: the same key as
    :func:`pinchpoint.store.run_key` of its resolved text (:func:`validate`), hashed from the
    scenario in memory instead of writing and reading back that text (a sweep keys every point
    before running it). Raises :class:`ScenarioError` as :func:`validate` does."""
    from .store import key_of_canonical, run_key as run_key_of_text

    text, origin, fmt = _text(scenario)
    canonical = _native_call(_native.canonical_scenario, text, origin, fmt)
    if canonical is None:
        return run_key_of_text(validate(scenario), seed)
    return key_of_canonical(canonical, seed)


def run_key_of(sim: _native.Simulation, seed: int) -> str | None:
    """The run key of a built simulation, hashed from its scenario in memory (the same key as
    :func:`pinchpoint.store.run_key` of its resolved text); None when only the text path can
    make it (then :attr:`Results.key` reads the text)."""
    # The native side hashed the canonical form while it built the simulation (the same key
    # as key_of_canonical of sim.canonical_scenario(), which tests hold equal).
    return sim.run_key(seed)


def run(scenario: ScenarioLike, seed: int | None = None, *,
        progress: Callable[[float, float], None] | None = None, steps: int = 100,
        out: str | Path | None = None) -> Results:
    """Runs a scenario (a :class:`Scenario` or a path to a TOML file) to the end.

    Args:
        seed: overrides the scenario's master seed.
        progress: called as ``progress(now_s, end_s)`` after each of ``steps`` slices of
            simulated time.
        out: if given, the results are also written there (Parquet, atomically); an existing
            ``out`` that is neither empty nor a results directory raises
            :class:`FileExistsError` before the run.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps: expected a whole number of progress slices, at least 1, got {steps!r}")
    if out is not None:
        refuse_out_dir(out)
    sim = load(scenario, seed)
    end = sim.end_s
    t0 = time.perf_counter()
    if progress is None:
        sim.run_until(end)
    else:
        k = 0
        while not sim.finished:
            k += 1
            sim.run_until(end * min(k, steps) / steps)
            progress(sim.now_s, end)
            if k >= steps:
                break
    wall = time.perf_counter() - t0
    raw = sim.results()
    res = Results(raw, sim.resolved_toml_buffer(), wall_s=wall, key=run_key_of(sim, int(raw["meta"]["seed"])))
    if out is not None:
        res.write(out)
    return res
