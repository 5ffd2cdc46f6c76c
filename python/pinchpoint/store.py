"""A results store: run summaries in DuckDB, keyed by a hash of the resolved scenario and seed.

Every run is stored once: ``runs`` holds one row per run (key, scenario name, seed, times,
counters, the resolved scenario text and free-form tags as JSON); ``flows``, ``ports`` and
``links`` hold the summary tables with a ``run`` column. Writes happen in one transaction, so a
crash leaves either the whole run or nothing. Time series stay in Parquet (``Results.write``).

>>> st = Store("results/pinchpoint.duckdb")
>>> key = st.put(results, tags={"cc": "reno"})
>>> st.query("SELECT r.seed, f.goodput_bps FROM flows f JOIN runs r ON f.run = r.key")
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from .results import Results

_RUNS_DDL = """
CREATE TABLE IF NOT EXISTS runs (
    key VARCHAR PRIMARY KEY,
    scenario VARCHAR,
    seed UBIGINT,
    end_time_s DOUBLE,
    wall_s DOUBLE,
    events UBIGINT,
    packet_hops UBIGINT,
    stored_at DOUBLE,
    tags JSON,
    scenario_toml VARCHAR
)
"""


def run_key(scenario_toml: str, seed: int) -> str:
    """The identity of a run: SHA-256 of the resolved scenario text and the seed."""
    h = hashlib.sha256()
    h.update(scenario_toml.encode())
    h.update(f"\nseed={seed}".encode())
    return h.hexdigest()[:32]


class Store:
    """A DuckDB file of run summaries."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect(str(self.path))
        self.con.execute(_RUNS_DDL)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def key_of(self, results: Results) -> str:
        return run_key(results.scenario_toml, int(results.meta["seed"]))

    def has(self, key: str) -> bool:
        return self.con.execute("SELECT count(*) FROM runs WHERE key = ?", [key]).fetchone()[0] > 0

    def put(self, results: Results, tags: dict[str, Any] | None = None) -> str:
        """Stores a run's summaries (once: a run already stored is left as it is)."""
        key = self.key_of(results)
        if self.has(key):
            return key
        m = results.meta
        self.con.execute("BEGIN TRANSACTION")
        try:
            self.con.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [key, m.get("scenario"), int(m.get("seed", 0)), m.get("end_time_s"), m.get("wall_s"),
                 int(m.get("events", 0)), int(m.get("packet_hops", 0)), time.time(),
                 json.dumps(tags or {}, sort_keys=True, default=str), results.scenario_toml],
            )
            for name in ("flows", "ports", "links"):
                df = results.tables[name].to_pandas()
                df.insert(0, "run", key)
                self.con.register("_incoming", df)
                exists = self.con.execute(
                    "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]).fetchone()[0]
                if exists:
                    self.con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM _incoming")
                else:
                    self.con.execute(f"CREATE TABLE {name} AS SELECT * FROM _incoming")
                self.con.unregister("_incoming")
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        return key

    def query(self, sql: str, params: list[Any] | None = None) -> pd.DataFrame:
        """Runs SQL against the store and returns a DataFrame."""
        return self.con.execute(sql, params or []).df()

    def runs(self) -> pd.DataFrame:
        return self.query("SELECT key, scenario, seed, end_time_s, wall_s, packet_hops, tags FROM runs ORDER BY stored_at")
