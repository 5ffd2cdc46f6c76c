"""Parameter sweeps: every point of a plan (grid, paired lists, random or Sobol draws; see
:mod:`pinchpoint.plan`) times a list of seeds, run in a local process pool (default) or on a
Dask cluster, each run stored once in a DuckDB store (:mod:`pinchpoint.store`).

>>> from pinchpoint.sweep import sweep
>>> table = sweep("scenarios/examples/two_flows_newreno.toml",
...               {"flows.f1.cc": ["reno", "newreno"],
...                "links.r1->r2.queue": [{"kind": "droptail", "limit_pkts": 20},
...                                       {"kind": "droptail", "limit_pkts": 40}]},
...               zip={"links.r1->r2.rate": ["5Mbps", "10Mbps"], "links.r1->r2.delay": ["10ms", "20ms"]},
...               seeds=[1, 2], store="results/sweep.duckdb")

Parameters are dotted paths into the scenario; list elements are addressed by index
(``flows.0``), by name (``flows.f1``, ``nodes.r1``) or, for links, by ``a->b``
(``links.r1->r2``). Values may be anything a scenario field takes, tables included.

The returned table has one row per run: a column per parameter (tables as JSON text), typed
columns beside quantities (``links.r1->r2.rate_bps``, ``..._s``, ``..._bytes``) and beside the
fields of table values (``links.r1->r2.queue.limit_pkts``), then ``seed``, ``run`` (the store
key), ``goodput_bps`` and ``jain`` (aggregate goodput and Jain's index of the scenario's
``[[flows]]``; NaN without any), ``transfers``, ``transfers_completed``, ``transfer_bytes`` and
``response_time_p50_s`` (the transfers of its ``[[arrivals]]``), ``wall_s`` (None when the run
was already stored), ``seed_sources`` (the scenario's random components; empty when the seed
changes nothing) and ``seeds_differ`` (whether the seeds of this point gave different results:
flows, transfers or ports).

Sources of variation between seeds are the parts whose settings draw random numbers
(:func:`pinchpoint.api.random_parts`): a flow's ``start_jitter``, ``poisson`` workloads,
``on_off`` with exponential periods, probabilistic drop policies (``red``, ``pie``, ``rda_fp``,
...), random loss, BBR, random arrivals. A scenario with none of them is deterministic: every
seed gives the same run, and a sweep over seeds says so (a warning and the two columns above)
rather than showing identical rows as replications.
"""

from __future__ import annotations

import ctypes
import functools
import json
import math
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import units
from .plan import Plan, PlanError
from .scenario import Scenario, set_path
from .store import OPTIONAL_TABLES, SUMMARIES, Store

class SchedulerError(ValueError):
    """The Dask scheduler given to a sweep could not be reached."""


class SeedWarning(UserWarning):
    """Seeds that change nothing were given as if they were replications."""


def grid_points(grid: dict[str, Iterable[Any]]) -> list[dict[str, Any]]:
    """All combinations of the grid, as {dotted path: value} dicts (in a stable order)."""
    return Plan(grid={k: list(v) for k, v in grid.items()}).points()


# -- values on the command line -------------------------------------------------------------

def _split_top(text: str) -> list[str]:
    """Splits at commas that are not inside braces, brackets or quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_value(text: str) -> Any:
    """One value from the command line: JSON, else a TOML value (inline tables
    ``{kind = "droptail", limit_pkts = 20}``), else the text itself (``10Mbps``, ``reno``)."""
    import tomllib

    t = text.strip()
    try:
        return json.loads(t)
    except json.JSONDecodeError:
        pass
    try:
        return tomllib.loads(f"v = {t}")["v"]
    except tomllib.TOMLDecodeError:
        return t


def parse_values(text: str) -> list[Any]:
    """The values of ``--set PATH=VALUES``: a JSON or TOML array (``[{...}, {...}]``), or a
    comma-separated list whose items are plain values or tables (commas inside braces,
    brackets and quotes do not separate). A single table is one value."""
    t = text.strip()
    if not t:
        return []  # `--set PATH=`: the plan refuses a parameter without values, naming it
    if t.startswith("["):
        v = parse_value(t)
        if isinstance(v, list):
            return v
    return [parse_value(p) for p in _split_top(t)]


# -- columns ---------------------------------------------------------------------------------

def _cell(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


_KIND_OF_DEFINITION = {"Rate": "rate", "Duration": "duration", "Bytes": "size"}


def _kinds_at(node: dict[str, Any], parts: tuple[str, ...], defs: dict[str, Any], depth: int = 0) -> set[str]:
    """The quantity kinds (rate, duration, size; "" for anything else) of the fields that
    ``parts`` reaches from the schema ``node``, over every branch of its alternatives."""
    if depth > 64:
        return set()
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if not parts:
            return {_KIND_OF_DEFINITION.get(name, "")}
        return _kinds_at(defs.get(name, {}), parts, defs, depth + 1)
    found: set[str] = set()
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in node.get(key, []):
            if branch.get("type") != "null":
                found |= _kinds_at(branch, parts, defs, depth + 1)
    if not parts:
        return found or {""}
    if "items" in node:
        # A list element is named by an index, a name or a->b, which may hold dots itself.
        for used in range(1, len(parts)):
            found |= _kinds_at(node["items"], parts[used:], defs, depth + 1)
    props = node.get("properties", {})
    if parts[0] in props:
        found |= _kinds_at(props[parts[0]], parts[1:], defs, depth + 1)
    return found


@functools.lru_cache(maxsize=None)
def field_kind(path: str) -> str | None:
    """The quantity a parameter path holds by the scenario schema: ``"rate"``, ``"duration"``,
    ``"size"``, or None (another kind of field, or paths that disagree), so that a bare number
    gets its typed column in the field's base unit (bit/s, s, bytes) as a value with a unit does."""
    from .scenario import schema

    sch = schema()
    kinds = _kinds_at(sch, tuple(path.split(".")), sch.get("$defs", {}))
    return next(iter(kinds)) or None if len(kinds) == 1 else None


def typed_columns(path: str, value: Any) -> dict[str, Any]:
    """Numeric columns beside a parameter: a quantity in base units under ``path`` + ``_bps``
    / ``_s`` / ``_bytes`` (given with a unit, or as a bare number of the field's base unit); the
    scalar fields of a table value under ``path.field``."""
    out: dict[str, Any] = {}
    q = units.parse(value) if isinstance(value, str) else None
    if q is None and (isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, str)):
        # A bare number ("0.01" or 0.01) is in the field's base unit, as the scenario reads it.
        try:
            number = float(value)
        except ValueError:
            number = None
        kind = field_kind(path) if number is not None and math.isfinite(number) else None
        if kind is not None:
            q = (kind, number)
    if q is not None:
        out[path + units.SUFFIX[q[0]]] = q[1]
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                continue
            out[f"{path}.{k}"] = v
            out.update({c: x for c, x in typed_columns(f"{path}.{k}", v).items() if c != f"{path}.{k}"})
    return out


def _where(point: dict[str, Any]) -> str:
    """A sweep point as the parameters that make it, for error messages."""
    return ", ".join(f"{k}={_cell(v)}" for k, v in point.items()) or "the base scenario"


def seed_sources(data: dict[str, Any], origin: str = "<dict>") -> list[str]:
    """The parts of a scenario (as a dict) that draw random numbers, so that the seed changes
    results, as readable labels (:func:`pinchpoint.api.random_parts`: decided by each part's
    settings, e.g. ``on_off`` only with exponential periods). Raises ScenarioError for an
    invalid scenario (naming ``origin``)."""
    from .api import random_parts

    return random_parts(Scenario.from_dict(data, origin=origin))


# -- workers ---------------------------------------------------------------------------------

def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(0.25)
        if os.getppid() != parent_pid:
            os._exit(1)


def _worker_init(parent_pid: int) -> None:
    """Makes a worker end with its sweep: the kernel kills it when the sweep process dies
    (Linux ``PR_SET_PDEATHSIG``), and a watchdog thread exits when its parent changes."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover (not Linux)
        pass
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()


def _run_point(scenario: dict[str, Any], origin: str, seed: int, keep_series: bool = False) -> tuple[dict, str, dict]:
    """Runs one point in a worker; returns what the parent needs to store it (picklable)."""
    from . import api

    # In slices, so that the watchdog thread gets the interpreter between them.
    res = api.run(Scenario.from_dict(scenario, origin=origin), seed=seed, progress=lambda now, end: None, steps=20)
    # What the store keeps of every run (its summaries, and the optional tables it stores when a
    # run recorded them, as `pinchpoint run --store` does); everything with --keep series.
    keep = SUMMARIES + OPTIONAL_TABLES if not keep_series else tuple(res.tables)
    res.key  # noqa: B018 (meta["run"], hashed here from the scenario in memory, not from the text in the parent)
    return res.meta, res.scenario_toml, {name: t for name, t in res.tables.items() if name in keep}


#: What a sweep row summarises from each table of a run, and what tells two runs apart (the
#: fingerprint behind ``seeds_differ``): the scenario's flows, the transfers of its arrival
#: processes and the ports, so that a scenario of arrivals alone (no ``[[flows]]``) is summarised
#: and compared too. Integer counters and times that are never NaN, so that a run read back from
#: the store gives the same fingerprint as the run itself.
_FINGERPRINT = {
    "flows": (["flow"], ["goodput_bps", "sent_pkts", "delivered_bytes"]),
    "transfers": (["arrival", "transfer"], ["start_s", "size_bytes", "delivered_bytes", "completed"]),
    "ports": (["port"], ["tx_pkts", "drops"]),
}
#: The summary columns of a sweep row, in order.
SUMMARY_COLUMNS = ("goodput_bps", "jain", "transfers", "transfers_completed", "transfer_bytes", "response_time_p50_s")
#: The columns of a sweep row after its parameter columns (each swept path, then the typed
#: columns beside them), in order: how :func:`pinchpoint.plots.mean_ci` tells the parameters
#: (the columns before these) from the results.
RESULT_COLUMNS = ("seed", "run", *SUMMARY_COLUMNS, "wall_s", "seed_sources", "seeds_differ")


def _summary(tables: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The summary columns of one run and its fingerprint, from its flows, transfers and ports
    (DataFrames; a table or column missing, from an old store, counts as empty)."""
    import hashlib

    from .stats import jain as jain_index

    flows, transfers = tables.get("flows"), tables.get("transfers")
    x = flows["goodput_bps"].to_numpy(dtype=float) if flows is not None and "goodput_bps" in flows else []
    n_t = len(transfers) if transfers is not None and "delivered_bytes" in transfers else 0
    done = transfers[transfers["completed"].astype(bool)] if n_t else None
    summary = {
        # Over the scenario's [[flows]]: NaN without any (0 would read as "carried nothing").
        "goodput_bps": float(sum(x)) if len(x) else float("nan"),
        "jain": jain_index(x) if len(x) else float("nan"),
        "transfers": n_t,
        "transfers_completed": len(done) if n_t else 0,
        "transfer_bytes": int(transfers["delivered_bytes"].sum()) if n_t else 0,
        "response_time_p50_s": float(done["response_time_s"].median()) if n_t and len(done) else float("nan"),
    }
    parts = []
    for name, (order, cols) in _FINGERPRINT.items():
        t = tables.get(name)
        if t is None or not len(t) or not all(c in t for c in order + cols):
            parts.append((name, []))
            continue
        t = t.sort_values(order, kind="stable")
        parts.append((name, [t[c].tolist() for c in cols]))
    # As text: NaN != NaN would make two equal runs differ.
    return summary, hashlib.sha256(repr(parts).encode()).hexdigest()


#: File suffixes (lower case) of the sweep table ``--out`` and the formats they select.
TABLE_FORMATS = (".csv", ".parquet")
#: Columns every sweep table has had: how a previous table, which ``--out`` may replace, is told
#: from any other file, which it must not.
_TABLE_MARK = {"seed", "run", "goodput_bps", "jain", "wall_s"}


def is_sweep_table(path: str | Path) -> bool:
    """True if ``path`` is a sweep table in the format its suffix names (``.csv`` or
    ``.parquet``, in any case): a file that a new sweep table may replace."""
    import csv

    p = Path(path)
    fmt = p.suffix.lower()
    try:
        if fmt == ".parquet":
            import pyarrow.parquet as pq

            cols = pq.read_schema(p).names
        elif fmt == ".csv":
            with p.open(newline="") as fh:
                cols = next(csv.reader(fh), [])
        else:
            return False
    except (OSError, ValueError, UnicodeDecodeError, csv.Error):  # ArrowInvalid is a ValueError
        return False
    return _TABLE_MARK <= set(cols)


def write_table(table: Any, path: str | Path) -> Path:
    """Writes a sweep table atomically, as Parquet or CSV by the suffix of ``path`` (in any
    case: ``t.Parquet`` is Parquet)."""
    from . import atomic

    p = Path(path)
    fmt = p.suffix.lower()
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"{p}: expected a file name ending in .csv or .parquet")
    return atomic.write_file(p, lambda tmp: table.to_parquet(tmp) if fmt == ".parquet" else table.to_csv(tmp, index=False))


def _stored_tables(st: Store, key: str) -> dict[str, Any]:
    """The tables :func:`_summary` reads of a run already stored: from its spool directory if
    it has not been merged yet (the store was locked), else from the store."""
    import duckdb
    import pandas as pd

    out = {}
    for name in _FINGERPRINT:
        try:
            out[name] = pd.read_parquet(st.spool / key / f"{name}.parquet")
        except FileNotFoundError:
            try:
                out[name] = st.query(f"SELECT * FROM {name} WHERE run = ?", [key])
            except duckdb.CatalogException:  # a store written before this table existed
                out[name] = pd.DataFrame()
    return out


def _stop_workers(pool: Any) -> None:
    """Ends a local pool's worker processes now: leaving the pool's ``with`` block would wait for
    the runs in progress (minutes, perhaps) only to discard them. Their runs are lost; finished
    runs are stored already."""
    kill = getattr(pool, "kill_workers", None)  # Python 3.14
    if kill is not None:
        kill()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.kill()


def _run_pending(pending: list, scheduler: str | None, scheduler_timeout_s: float | None, workers: int | None,
                 keep_series: bool, collect: Callable[[Iterable[Any], dict[Any, tuple]], None]) -> None:
    """Runs the points not in the store, on the scheduler or a local process pool, handing each
    finished future to ``collect``."""
    if pending and scheduler:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed

        try:
            client = Client(scheduler, **({"timeout": scheduler_timeout_s} if scheduler_timeout_s is not None else {}))
        except (OSError, ValueError) as e:  # OSError: nothing answered within the connect timeout
            raise SchedulerError(f"scheduler {scheduler!r}: the address could not be reached ({e})") from None
        with client:
            futs = {client.submit(_run_point, s.to_dict(), s.origin, seed, keep_series, pure=False): (point, seed, src)
                    for point, s, seed, src in pending}
            collect(dask_completed(futs), futs)
    elif pending:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        n = workers or min(len(pending), os.cpu_count() or 1)
        # fork: workers are children of this process (so the death signal reaches them) and a
        # script that calls sweep() needs no `if __name__ == "__main__"` guard.
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        with ProcessPoolExecutor(max_workers=n, mp_context=ctx,
                                 initializer=_worker_init, initargs=(os.getpid(),)) as pool:
            futs = {pool.submit(_run_point, s.to_dict(), s.origin, seed, keep_series): (point, seed, src)
                    for point, s, seed, src in pending}
            try:
                collect(as_completed(futs), futs)
            except BaseException:
                for f in futs:
                    f.cancel()
                _stop_workers(pool)
                raise


def sweep(base: Scenario | str | Path, grid: dict[str, Iterable[Any]] | None = None, seeds: Iterable[int] | None = None,
          store: str | Path | Store = "results/sweep.duckdb", scheduler: str | None = None,
          workers: int | None = None, progress: Callable[[int, int], None] | None = None, *,
          zip: dict[str, Iterable[Any]] | None = None, plan: Plan | str | Path | None = None,
          keep: Iterable[str] = (), scheduler_timeout_s: float | None = None) -> Any:
    """Runs every point of the plan for every seed; returns a DataFrame with one row per run
    (see the module docstring). Runs already in the store are not run again.

    Args:
        grid: {parameter: values}, every combination.
        zip: {parameter: values} varied together (lists of one length), crossed with the grid.
        plan: a :class:`~pinchpoint.plan.Plan` or plan file; its grid, zip groups and draws
            are crossed with ``grid`` and ``zip``; its seeds are used unless ``seeds`` is given.
            The plan is stored in the store's ``plans`` table and each run's tags name it.
        seeds: seeds for every point (default ``[1]``).
        keep: ``{"series"}`` to also keep each run's series (all its tables) as Parquet in
            ``STORE.series/<run>/``.
        scheduler: a Dask scheduler address (``tcp://host:8786``) to run on a cluster; by
            default a local process pool of ``workers`` processes (default: CPU count). Local
            workers end with the sweep, even when it is killed.
        scheduler_timeout_s: how long to wait for the scheduler to answer before giving up
            (default: Dask's ``distributed.comm.timeouts.connect``, 30 s unless configured).
    """
    import pandas as pd

    from . import _native, api
    from .results import Results

    keep = set(keep)
    if keep - {"series"}:
        raise ValueError(f"keep: unknown item(s) {sorted(keep - {'series'})}; expected 'series'")
    if scheduler_timeout_s is not None:
        if scheduler is None:
            raise ValueError("scheduler_timeout_s: has no effect without a scheduler (local processes need no "
                             "connection); expected scheduler='tcp://host:port' or no timeout")
        if isinstance(scheduler_timeout_s, bool) or not isinstance(scheduler_timeout_s, (int, float)) \
                or not math.isfinite(scheduler_timeout_s) or scheduler_timeout_s <= 0:
            raise ValueError(f"scheduler_timeout_s: expected a positive number of seconds, got {scheduler_timeout_s!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers: expected at least 1 worker process, got {workers!r}")
    if workers is not None and scheduler is not None:
        raise ValueError("workers: has no effect with a scheduler (the cluster's workers run the sweep); "
                         "expected one of workers (local processes) or scheduler")
    p = plan if isinstance(plan, Plan) else Plan.from_file(plan) if plan is not None else Plan()
    own_grid = {k: list(v) for k, v in (grid or {}).items()}
    own_zip = [{k: list(v) for k, v in zip.items()}] if zip else []
    origin = p.origin
    if own_grid or own_zip:
        # The caller's own grid and zip first, so that their errors are not blamed on the plan file.
        Plan(grid=own_grid, zip=own_zip, origin="the sweep's grid/zip (--set/--zip)").check()
        origin = f"{p.origin} with the sweep's grid/zip (--set/--zip)" if plan is not None \
            else "the sweep's grid/zip (--set/--zip)"
        both = [k for k in own_grid if k in p.grid]
        if both:  # the merged grid below would keep one of the two silently
            raise PlanError(f"{origin}: parameter {both[0]!r} appears twice (grid)")
    if seeds is not None:
        Plan(seeds=list(seeds), origin="sweep seeds").check()
    p = Plan(grid={**p.grid, **own_grid}, zip=p.zip + own_zip,
             draw=p.draw, draw_n=p.draw_n, draw_seed=p.draw_seed, draw_params=p.draw_params,
             seeds=list(seeds) if seeds is not None else p.seeds, origin=origin)
    p.check()
    params = p.parameters

    sc = base if isinstance(base, Scenario) else Scenario.from_file(base)
    st = store if isinstance(store, Store) else Store(store)

    jobs = []
    for point in p.points():
        s = Scenario.from_dict(sc.to_dict(), origin=sc.origin)
        for path, value in point.items():
            set_path(s.data, path, value)
        try:
            sources = seed_sources(s.data, s.origin)
        except _native.ScenarioError as e:
            raise _native.ScenarioError(f"sweep point {_where(point)}: {e}") from None
        for seed in p.seeds:
            s_seed = Scenario.from_dict(s.to_dict(), origin=s.origin)
            s_seed.data["simulation"]["seed"] = int(seed)
            jobs.append((point, s_seed, int(seed), sources))
    if len(p.seeds) > 1 and jobs and not any(j[3] for j in jobs):
        warnings.warn(f"seeds {', '.join(map(str, p.seeds))}: the scenario has no random component (no start_jitter, "
                      f"and no part whose settings draw random numbers: `pinchpoint validate` lists them), so every seed gives the same run; the rows are "
                      f"not replications. Add a source of variation (e.g. flows.NAME.start_jitter) to replicate.",
                      SeedWarning, stacklevel=2)

    rows: list[dict[str, Any]] = []
    done = 0

    def row(point: dict[str, Any], seed: int, key: str, tables: dict[str, Any], wall_s, sources: list[str]) -> None:
        summary, fp = _summary(tables)
        r: dict[str, Any] = {k: _cell(v) for k, v in point.items()}
        for k, v in point.items():
            r.update(typed_columns(k, v))
        r.update({"seed": seed, "run": key, **summary, "wall_s": wall_s, "seed_sources": ",".join(sources), "_fp": fp})
        rows.append(r)

    pending = []
    stored = st.keys()
    for point, s, seed, sources in jobs:
        try:
            key = api.run_key(s, seed)  # as store.run_key(api.validate(s), seed), without the text
        except _native.ScenarioError as e:
            raise _native.ScenarioError(f"sweep point {_where(point)}: {e}") from None
        if key in stored and ("series" not in keep or (st.series_dir / key / "meta.json").exists()):
            row(point, seed, key, _stored_tables(st, key), None, sources)
            done += 1
            if progress:
                progress(done, len(jobs))
        else:
            pending.append((point, s, seed, sources))
    # Every point is valid: store the plan (merged with the runs at the end).
    plan_id = st.put_plan(p.to_dict(), merge=False) if params or len(p.seeds) > 1 else None
    tags_base = {"plan": plan_id} if plan_id else {}

    def collect(completed: Iterable[Any], futs: dict[Any, tuple]) -> None:
        nonlocal done
        for fut in completed:
            point, seed, sources = futs[fut]
            try:
                meta, toml, tables = fut.result()
            except _native.ScenarioError as e:  # and ResourceLimitError: name the run that failed
                raise type(e)(f"sweep point {_where(point)}, seed {seed}: {e}") from None
            res = Results.from_tables(meta, toml, tables)
            key = st.put(res, tags={**tags_base, **{k: _cell(v) for k, v in point.items()}, "seed": seed},
                         keep_series="series" in keep, merge=False)
            row(point, seed, key, {name: res.tables[name].to_pandas() for name in _FINGERPRINT}, meta.get("wall_s"),
                sources)
            done += 1
            if progress:
                progress(done, len(jobs))

    keep_series = "series" in keep
    if progress:
        progress(done, len(jobs))  # the total is known before the first run ends
    try:
        _run_pending(pending, scheduler, scheduler_timeout_s, workers, keep_series, collect)
    finally:
        if plan_id:
            st.put_plan_runs(plan_id, [r["run"] for r in rows], merge=False)
        # Runs that finished are spooled on disk already; one transaction puts them in DuckDB,
        # also when a run failed or the sweep was interrupted (a rerun then reuses them).
        st.merge()
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    # Did the seeds of each point give different runs?
    pkey = [k for k in params]
    groups = table.groupby([table[k].astype(str) for k in pkey], sort=False) if pkey else [(None, table)]
    differ = pd.Series(pd.NA, index=table.index, dtype="boolean")
    same_points = 0
    for _, g in groups:
        if len(g) > 1:
            d = len(set(g["_fp"])) > 1
            differ.loc[g.index] = d
            same_points += not d
    table["seeds_differ"] = differ
    table = table.drop(columns=["_fp"])
    if same_points and len(p.seeds) > 1 and any(j[3] for j in jobs):
        warnings.warn(f"{same_points} point(s) gave identical results for every seed (column seeds_differ): "
                      f"their rows are not replications", SeedWarning, stacklevel=2)
    tail = list(RESULT_COLUMNS)
    typed = [c for c in table.columns if c not in params and c not in tail]
    sort_cols = []
    for k in params:
        num = [c for c in typed if c.startswith(k) and c != k and c[len(k)] in "._"]
        sort_cols += num if num else [k]
    order = params + typed + tail
    table = table[order]
    sortable = [c for c in sort_cols + ["seed"] if c in table.columns]
    try:
        table = table.sort_values(sortable, kind="stable")
    except TypeError:
        table = table.sort_values([c for c in sortable if c == "seed"] or ["run"], kind="stable")
    return table.reset_index(drop=True)
