"""A results store: run summaries in DuckDB, keyed by a hash of the resolved scenario and seed.

Every run is stored once: ``runs`` holds one row per run (key, scenario name, seed, times,
counters, simulator version, model revision, the resolved scenario text and free-form tags as
JSON); ``flows``,
``ports`` and ``links`` hold the summary tables with ``run``, ``scenario`` and ``seed`` columns
(and ``flow_rates`` the interval rates of runs that recorded them, ``metrics.rate_interval``);
``plans`` holds the sweep plans and ``plan_runs`` the runs of each (a run's tags name the plan
that first ran it). Counters are BIGINT (int64), so
differences of counters are negative numbers rather than wrapped ones.

Sharing a store (a notebook reading while a sweep or ``pinchpoint run --store`` writes):
DuckDB lets one process write a file at a time, and a writer cannot open a file another process
holds open. So a :class:`Store` holds no connection between calls: each query opens the file
read-only and closes it; each write opens it read-write, retrying with backoff while another
process holds it (up to ``timeout_s``). A finished run is first written to a spool directory
beside the store (``STORE.spool/<key>/``, atomically) and then merged into DuckDB in one
transaction; if the store stays locked past ``timeout_s`` the run stays in the spool (a warning
says so) and the next write, or :meth:`Store.merge` (``pinchpoint store merge STORE``), merges
it. A finished run is never lost to a lock. Do not keep a raw ``duckdb.connect(STORE)`` open in a
notebook while writing: use ``Store.query``.

>>> st = Store("results/pinchpoint.duckdb")
>>> key = st.put(results, tags={"cc": "reno"})
>>> st.query("SELECT r.seed, f.goodput_bps FROM flows f JOIN runs r ON f.run = r.key")
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
import tomllib
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import atomic

if TYPE_CHECKING:
    import pandas as pd

    from .results import Results

_DDL = [
    """CREATE TABLE IF NOT EXISTS runs (
    key VARCHAR PRIMARY KEY,
    scenario VARCHAR,
    seed BIGINT,
    end_time_s DOUBLE,
    wall_s DOUBLE,
    events BIGINT,
    packet_hops BIGINT,
    stored_at DOUBLE,
    version VARCHAR,
    tags JSON,
    scenario_toml VARCHAR,
    model_revision INTEGER
)""",
    """CREATE TABLE IF NOT EXISTS plans (
    id VARCHAR PRIMARY KEY,
    created DOUBLE,
    plan JSON
)""",
    # Every run of each plan, also the runs a sweep found stored by an earlier one (their tags
    # name the plan that first ran them).
    """CREATE TABLE IF NOT EXISTS plan_runs (
    plan VARCHAR,
    run VARCHAR,
    PRIMARY KEY (plan, run)
)""",
]

SUMMARIES = ("flows", "ports", "links", "transfers", "groups")
#: Tables stored in DuckDB only when the run recorded them (``metrics.rate_interval``).
OPTIONAL_TABLES = ("flow_rates",)


class NotAStore(ValueError):
    """The path given as a store exists and is not a DuckDB database (or is a directory)."""


def check_store_path(path: Path) -> None:
    """Raises :class:`NotAStore` if ``path`` exists and is not a DuckDB database file: DuckDB
    opened some other files (a ``.csv``) without complaint and the runs merged into them were
    lost. A database file holds DuckDB's magic bytes ``DUCK`` at offset 8 (DuckDB itself refuses
    an empty file). A path under a file (``data.csv/s.duckdb``) is refused too."""
    from .atomic import file_in_the_way

    blocker = file_in_the_way(path)
    if blocker is not None:
        raise NotAStore(f"{path}: {blocker} is a file, not a directory: the store cannot be created under it")
    if not path.exists():
        return
    if path.is_dir():
        raise NotAStore(f"{path}: expected a DuckDB store file, got a directory")
    with open(path, "rb") as f:
        head = f.read(12)
    if head[8:12] != b"DUCK":
        raise NotAStore(f"{path}: exists and is not a DuckDB database (no DUCK header); give a new or a "
                        "DuckDB file as the store")


class StoreLocked(RuntimeError):
    """The store stayed locked by another process for longer than the timeout."""


def canonical_scenario(scenario_toml: str) -> str:
    """The resolved scenario as canonical JSON (keys sorted, no whitespace), without its
    free-text ``description``: two files that differ only in formatting, comments, key order or
    description give the same text."""
    from . import _native

    # The native TOML reader gives the same values as tomllib (None when it cannot: then
    # tomllib), 40x faster on large scenarios (tomllib: 40 s at 10,000 flows).
    as_json = _native.toml_to_json(scenario_toml)
    d = json.loads(as_json) if as_json is not None else tomllib.loads(scenario_toml)
    d.pop("description", None)
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def run_key(scenario_toml: str, seed: int, model_revision: int | None = None) -> str:
    """The identity of a run: SHA-256 of the canonical resolved scenario
    (:func:`canonical_scenario`), the seed and the model revision (``MODEL_REVISION``, the
    simulator's by default), as 32 hex digits."""
    return key_of_canonical(canonical_scenario(scenario_toml).encode(), seed, model_revision)


def key_of_canonical(canonical: bytes, seed: int, model_revision: int | None = None) -> str:
    """The run key from the canonical scenario's UTF-8 bytes: what :func:`run_key` hashes. A
    native simulation makes these bytes from the scenario in memory
    (``_native.Simulation.canonical_scenario``), so a run need not read its resolved text back
    (that read was most of the CLI's time beyond the loop at 100,000 flows); the bytes are
    equal, so the keys of runs stored before are unchanged.

    The model revision (``pinchpoint._native.MODEL_REVISION``, listed in the Rust core's
    ``MODEL_REVISION``) is hashed from revision 2 on: a run of the same scenario and seed by a
    model that moves results has another key, so a sweep never reuses a run an older model
    stored. Revision 1 (every run stored before revisions existed) hashes as it always did, so
    an old store's keys still match its runs."""
    from . import _native

    revision = _native.MODEL_REVISION if model_revision is None else int(model_revision)
    h = hashlib.sha256()
    h.update(canonical)
    h.update(f"\nseed={int(seed)}".encode())
    if revision != 1:
        h.update(f"\nmodel={revision}".encode())
    return h.hexdigest()[:32]


def _is_lock_error(e: Exception) -> bool:
    text = str(e).lower()
    return "lock" in text or "conflicting" in text or "different configuration" in text


class Store:
    """A DuckDB file of run summaries, safe to share between a notebook and writers.

    Args:
        path: the DuckDB file (created on the first write).
        timeout_s: how long a call waits for another process to release the file.
    """

    def __init__(self, path: str | Path, *, timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        check_store_path(self.path)
        self.timeout_s = timeout_s
        self.spool = Path(str(self.path) + ".spool")
        self.series_dir = Path(str(self.path) + ".series")

    # -- connections ----------------------------------------------------------------------
    def _connect(self, write: bool, timeout_s: float | None = None):
        import duckdb

        timeout_s = self.timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout_s
        delay = 0.02
        while True:
            try:
                con = duckdb.connect(str(self.path), read_only=not write)
                if write:
                    for ddl in _DDL:
                        con.execute(ddl)
                    # Stores written by earlier versions lack these columns.
                    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS version VARCHAR")
                    # Rows of stores written before model revisions keep NULL: revision 1.
                    con.execute("ALTER TABLE runs ADD COLUMN IF NOT EXISTS model_revision INTEGER")
                return con
            except duckdb.Error as e:
                if not _is_lock_error(e):
                    raise
                if time.monotonic() >= deadline:
                    raise StoreLocked(f"{self.path}: held by another process for more than {timeout_s:g} s "
                                      f"({e})") from None
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 1.0)

    def close(self) -> None:
        """Nothing to close (no connection is held between calls); kept for ``with``."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- reading --------------------------------------------------------------------------
    def query(self, sql: str, params: list[Any] | None = None) -> pd.DataFrame:
        """Runs SQL against the store (opened read-only for the call) and returns a DataFrame.
        Runs still in the spool are merged first when the store is free."""
        if self._spooled():
            self.merge(quiet=True, timeout_s=1.0)  # opportunistic: a busy store is read as it is
        if not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no such store (nothing has been stored yet)")
        con = self._connect(write=False)
        try:
            return con.execute(sql, params or []).df()
        finally:
            con.close()

    def has(self, key: str) -> bool:
        """Whether run ``key`` is stored (or spooled, waiting to be merged)."""
        if (self.spool / key / "meta.json").exists():
            return True
        if not self.path.exists():
            return False
        con = self._connect(write=False)
        try:
            return con.execute("SELECT count(*) FROM runs WHERE key = ?", [key]).fetchone()[0] > 0
        finally:
            con.close()

    def runs(self) -> pd.DataFrame:
        return self.query("SELECT key, scenario, seed, end_time_s, wall_s, packet_hops, version, tags "
                          "FROM runs ORDER BY stored_at")

    def key_of(self, results: Results) -> str:
        return results.key

    # -- writing --------------------------------------------------------------------------
    def keys(self) -> set[str]:
        """Keys of every stored or spooled run (one read of the store)."""
        out = {p.name for p in self.spool.iterdir() if (p / "meta.json").exists()} if self.spool.is_dir() else set()
        if self.path.exists():
            con = self._connect(write=False)
            try:
                out |= {k for (k,) in con.execute("SELECT key FROM runs").fetchall()}
            finally:
                con.close()
        return out

    def put(self, results: Results, tags: dict[str, Any] | None = None, *, keep_series: bool = False,
            merge: bool = True) -> str:
        """Stores a run's summaries once (a run already stored is left as it is); returns its key.

        The run is spooled to disk first and then merged (see the module docstring). With
        ``keep_series`` the whole run (series included) is also written as Parquet to
        ``STORE.series/<key>/`` (:meth:`Results.write` layout). With ``merge=False`` the run
        stays spooled until the next :meth:`merge` (a sweep merges once at its end)."""
        import pyarrow.parquet as pq

        key = results.key
        if keep_series and not (self.series_dir / key / "meta.json").exists():
            results.write(self.series_dir / key)
        # Only the spool is checked here (the store may be locked); merging skips stored keys.
        if not (self.spool / key / "meta.json").exists():
            tables = results.tables_with_ids()
            row = {"tags": tags or {}, "stored_at": time.time()}

            def fill(d: Path) -> None:
                for name in SUMMARIES:
                    pq.write_table(tables[name], d / f"{name}.parquet")
                for name in OPTIONAL_TABLES:
                    if name in tables and tables[name].num_rows > 0:
                        pq.write_table(tables[name], d / f"{name}.parquet")
                (d / "scenario.toml").write_text(results.scenario_toml)
                (d / "store.json").write_text(json.dumps(row, sort_keys=True, default=str))
                (d / "meta.json").write_text(json.dumps(results.meta, sort_keys=True, default=str))

            self.spool.mkdir(parents=True, exist_ok=True)
            atomic.write_dir(self.spool / key, fill)
        if merge:
            self.merge()
        return key

    def put_plan(self, plan: dict[str, Any], merge: bool = True) -> str:
        """Stores a sweep plan; returns its id (a hash of its canonical JSON)."""
        text = json.dumps(plan, sort_keys=True, default=str)
        pid = hashlib.sha256(text.encode()).hexdigest()[:16]
        self.spool.mkdir(parents=True, exist_ok=True)
        p = self.spool / f"plan-{pid}.json"
        if not p.exists():
            tmp = p.with_name(f".{p.name}.tmp-{time.time_ns()}")
            tmp.write_text(json.dumps({"id": pid, "created": time.time(), "plan": json.loads(text)}))
            tmp.replace(p)
        if merge:
            self.merge()
        return pid

    def put_plan_runs(self, plan_id: str, keys: list[str], merge: bool = True) -> None:
        """Records that the runs ``keys`` belong to the plan ``plan_id`` (table ``plan_runs``)."""
        if not keys:
            return
        self.spool.mkdir(parents=True, exist_ok=True)
        p = self.spool / f"planruns-{plan_id}-{time.time_ns()}.json"
        tmp = p.with_name(f".{p.name}.tmp")
        tmp.write_text(json.dumps({"plan": plan_id, "runs": sorted(set(keys))}))
        tmp.replace(p)
        if merge:
            self.merge()

    def _spooled(self) -> bool:
        return self.spool.is_dir() and any(not p.name.startswith(".") for p in self.spool.iterdir())

    def merge(self, quiet: bool = False, timeout_s: float | None = None) -> int:
        """Merges spooled runs and plans into DuckDB in one transaction; returns how many runs.
        If the store stays locked past the timeout, they stay spooled and a warning says so."""
        if not self._spooled():
            return 0
        try:
            con = self._connect(write=True, timeout_s=timeout_s)
        except StoreLocked as e:
            if not quiet:
                n = sum(1 for p in self.spool.iterdir() if p.is_dir() and not p.name.startswith("."))
                warnings.warn(f"{e}; {n} finished run(s) stay in {self.spool} and are merged by the next write "
                              f"or 'pinchpoint store merge {self.path}'", stacklevel=2)
            return 0
        merged = 0
        done: list[Path] = []
        try:
            con.execute("BEGIN TRANSACTION")
            existing = {t for (t,) in con.execute(
                "SELECT table_name FROM information_schema.tables").fetchall()}
            for p in sorted(self.spool.iterdir()):
                if p.name.startswith("."):
                    continue
                if p.suffix == ".json" and p.name.startswith(("plan-", "planruns-")):
                    try:  # another writer may have merged and removed it meanwhile
                        d = json.loads(p.read_text())
                    except FileNotFoundError:
                        continue
                    if p.name.startswith("plan-"):
                        con.execute("INSERT INTO plans VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                    [d["id"], d["created"], json.dumps(d["plan"], sort_keys=True)])
                    else:
                        con.executemany("INSERT INTO plan_runs VALUES (?, ?) ON CONFLICT DO NOTHING",
                                        [[d["plan"], k] for k in d["runs"]])
                    done.append(p)
                    continue
                key = p.name
                try:  # another writer may have merged and removed it meanwhile
                    m = json.loads((p / "meta.json").read_text())
                    row = json.loads((p / "store.json").read_text())
                    toml_text = (p / "scenario.toml").read_text()
                except FileNotFoundError:
                    continue
                if con.execute("SELECT count(*) FROM runs WHERE key = ?", [key]).fetchone()[0] == 0:
                    con.execute(
                        "INSERT INTO runs (key, scenario, seed, end_time_s, wall_s, events, packet_hops, stored_at, "
                        "version, tags, scenario_toml, model_revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [key, m.get("scenario"), int(m.get("seed", 0)), m.get("end_time_s"), m.get("wall_s"),
                         int(m.get("events", 0)), int(m.get("packet_hops", 0)), row["stored_at"],
                         m.get("pinchpoint_version"), json.dumps(row["tags"], sort_keys=True, default=str),
                         toml_text, int(m.get("model_revision", 1))])
                    for name in SUMMARIES + tuple(t for t in OPTIONAL_TABLES if (p / f"{t}.parquet").exists()):
                        src = str(p / f"{name}.parquet").replace("'", "''")
                        if name in existing:
                            have = {c for (c,) in con.execute(
                                "SELECT column_name FROM information_schema.columns WHERE table_name = ?",
                                [name]).fetchall()}
                            for col, typ, *_ in con.execute(
                                    f"DESCRIBE SELECT * FROM read_parquet('{src}')").fetchall():
                                if col not in have:  # a column new in this version
                                    con.execute(f'ALTER TABLE {name} ADD COLUMN "{col}" {typ}')
                            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM read_parquet('{src}')")
                        else:
                            con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_parquet('{src}')")
                            existing.add(name)
                    merged += 1
                done.append(p)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        finally:
            con.close()
        for p in done:
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
        return merged
