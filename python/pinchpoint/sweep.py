"""Parameter sweeps: every combination of a grid of overrides times a list of seeds, run in a
local process pool (default) or on a Dask cluster, each run stored once in a DuckDB store.

>>> from pinchpoint.sweep import sweep
>>> table = sweep("scenarios/examples/two_flows_newreno.toml",
...               {"flows.0.cc": ["reno", "newreno"], "links.2.rate": ["10Mbps", "20Mbps"]},
...               seeds=[1, 2], store="results/sweep.duckdb")
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import pandas as pd

from .scenario import Scenario
from .stats import jain
from .store import Store, run_key


def grid_points(grid: dict[str, Iterable[Any]]) -> list[dict[str, Any]]:
    """All combinations of the grid, as {dotted path: value} dicts (in a stable order)."""
    keys = list(grid)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(grid[k]) for k in keys))]


def _run_point(scenario: dict[str, Any], origin: str, seed: int) -> tuple[dict, str, dict]:
    """Runs one point in a worker; returns what the parent needs to store it (picklable)."""
    from . import api

    res = api.run(Scenario.from_dict(scenario, origin=origin), seed=seed)
    raw_tables = {name: t for name, t in res.tables.items() if name in ("flows", "ports", "links")}
    return res.meta, res.scenario_toml, raw_tables


def sweep(base: Scenario | str | Path, grid: dict[str, Iterable[Any]], seeds: Iterable[int] = (1,),
          store: str | Path | Store = "results/sweep.duckdb", scheduler: str | None = None,
          workers: int | None = None, progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Runs every grid point for every seed; returns one row per run with its parameters, the
    run key, aggregate goodput and Jain's index. Runs already in the store are not run again.

    Args:
        scheduler: a Dask scheduler address (``tcp://host:8786``) to run on a cluster; by
            default a local process pool of ``workers`` processes (default: CPU count).
    """
    from .results import Results

    sc = base if isinstance(base, Scenario) else Scenario.from_file(base)
    st = store if isinstance(store, Store) else Store(store)
    seeds = list(seeds)
    jobs = []
    for point in grid_points(grid):
        s = Scenario.from_dict(sc.to_dict(), origin=sc.origin)
        for path, value in point.items():
            s.set(path, value)
        for seed in seeds:
            jobs.append((point, s, seed))

    rows: list[dict[str, Any]] = []
    done = 0

    def record(point: dict[str, Any], seed: int, meta: dict, toml: str, tables: dict) -> None:
        res = Results.__new__(Results)
        res.meta, res.scenario_toml, res.tables = meta, toml, tables
        key = st.put(res, tags={**point, "seed": seed})
        flows = tables["flows"].to_pandas()
        x = flows["goodput_bps"].to_numpy(dtype=float)
        rows.append({**point, "seed": seed, "run": key, "goodput_bps": float(x.sum()), "jain": jain(x),
                     "wall_s": meta.get("wall_s")})

    pending = []
    for point, s, seed in jobs:
        # Already stored? The key needs the resolved scenario, which the native side produces.
        from . import api
        resolved = api.load(s, seed).resolved_toml
        key = run_key(resolved, seed)
        if st.has(key):
            flows = st.query("SELECT goodput_bps FROM flows WHERE run = ?", [key])
            x = flows["goodput_bps"].to_numpy(dtype=float)
            rows.append({**point, "seed": seed, "run": key, "goodput_bps": float(x.sum()), "jain": jain(x), "wall_s": None})
            done += 1
            if progress:
                progress(done, len(jobs))
        else:
            pending.append((point, s, seed))

    def collect(completed: Iterable[Any], futs: dict[Any, tuple[dict[str, Any], int]]) -> None:
        nonlocal done
        for fut in completed:
            point, seed = futs[fut]
            record(point, seed, *fut.result())
            done += 1
            if progress:
                progress(done, len(jobs))

    if pending and scheduler:
        from dask.distributed import Client, as_completed as dask_completed

        with Client(scheduler) as client:
            futs = {client.submit(_run_point, s.to_dict(), s.origin, seed, pure=False): (point, seed)
                    for point, s, seed in pending}
            collect(dask_completed(futs), futs)
    elif pending:
        n = workers or min(len(pending), os.cpu_count() or 1)
        with ProcessPoolExecutor(max_workers=n) as pool:
            futs = {pool.submit(_run_point, s.to_dict(), s.origin, seed): (point, seed) for point, s, seed in pending}
            collect(as_completed(futs), futs)
    if not isinstance(store, Store):
        st.close()
    cols = list(grid) + ["seed", "run", "goodput_bps", "jain", "wall_s"]
    return pd.DataFrame(rows, columns=cols).sort_values(list(grid) + ["seed"]).reset_index(drop=True)
