"""Results of a run: summary DataFrames, time series as Arrow tables, atomic writing to disk."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

_DTYPES = {"f64": np.float64, "u64": np.uint64, "i64": np.int64, "bool": np.bool_}

#: Summary tables (one row per flow / port / link), returned as pandas DataFrames.
SUMMARY_TABLES = ("flows", "ports", "links")
#: Time-series and trace tables, returned as Arrow tables.
SERIES_TABLES = ("flow_series", "port_series", "packets", "queue_trace")


def _to_arrow(cols: list[tuple[str, str, Any]]) -> pa.Table:
    arrays = {}
    for name, dtype, data in cols:
        if dtype == "str":
            arrays[name] = pa.array(data, type=pa.string())
        else:
            arrays[name] = pa.array(np.frombuffer(data, dtype=_DTYPES[dtype]))
    return pa.table(arrays)


class Results:
    """What one run produced.

    Attributes:
        flows, ports, links: summary DataFrames (see the README for their columns).
        flow_series, port_series, packets, queue_trace: Arrow tables (empty unless enabled).
        meta: scenario name, seed, end time, event and packet-hop counts, wall time.
        scenario_toml: the resolved scenario that produced them.
    """

    def __init__(self, raw: dict[str, Any], scenario_toml: str, wall_s: float | None = None) -> None:
        self.meta: dict[str, Any] = dict(raw["meta"])
        if wall_s is not None:
            self.meta["wall_s"] = wall_s
        self.scenario_toml = scenario_toml
        self.tables: dict[str, pa.Table] = {name: _to_arrow(raw[name]) for name in SUMMARY_TABLES + SERIES_TABLES}

    # Summaries as DataFrames.
    @property
    def flows(self) -> pd.DataFrame:
        return self.tables["flows"].to_pandas()

    @property
    def ports(self) -> pd.DataFrame:
        return self.tables["ports"].to_pandas()

    @property
    def links(self) -> pd.DataFrame:
        return self.tables["links"].to_pandas()

    # Series as Arrow tables.
    @property
    def flow_series(self) -> pa.Table:
        return self.tables["flow_series"]

    @property
    def port_series(self) -> pa.Table:
        return self.tables["port_series"]

    @property
    def packets(self) -> pa.Table:
        return self.tables["packets"]

    @property
    def queue_trace(self) -> pa.Table:
        return self.tables["queue_trace"]

    @property
    def plot(self):
        """Standard figures of this run (see :mod:`pinchpoint.plots`)."""
        from .plots import Plotter

        return Plotter(self)

    def jain(self, column: str = "goodput_bps", flows: list[str] | None = None) -> float:
        """Jain's fairness index over the flows' ``column`` (all flows, or those named)."""
        df = self.flows
        if flows is not None:
            df = df[df["flow"].isin(flows)]
        from .stats import jain

        return jain(df[column].to_numpy(dtype=float))

    def port(self, name: str) -> pd.Series:
        """The summary row of port ``name`` (like ``"A->B"``)."""
        df = self.ports
        rows = df[df["port"] == name]
        if rows.empty:
            raise KeyError(f"no port named {name!r}; ports are {list(df['port'])}")
        return rows.iloc[0]

    def flow(self, name: str) -> pd.Series:
        """The summary row of flow ``name``."""
        df = self.flows
        rows = df[df["flow"] == name]
        if rows.empty:
            raise KeyError(f"no flow named {name!r}")
        return rows.iloc[0]

    def write(self, out_dir: str | Path) -> Path:
        """Writes every table as Parquet, the resolved scenario and ``meta.json`` into
        ``out_dir``. The directory appears whole or not at all: files go to a temporary
        directory beside it, which is renamed into place at the end (an existing directory is
        replaced only after the new one is complete)."""
        out = Path(out_dir)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
        try:
            for name, table in self.tables.items():
                pq.write_table(table, tmp / f"{name}.parquet")
            (tmp / "scenario.toml").write_text(self.scenario_toml)
            (tmp / "meta.json").write_text(json.dumps(self.meta, indent=2, sort_keys=True) + "\n")
            if out.exists():
                old = out.with_name(f".{out.name}.old-{os.getpid()}")
                os.replace(out, old)
                os.replace(tmp, out)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return out

    @classmethod
    def read(cls, out_dir: str | Path) -> Results:
        """Reads a directory written by :meth:`write`."""
        d = Path(out_dir)
        r = cls.__new__(cls)
        r.meta = json.loads((d / "meta.json").read_text())
        r.scenario_toml = (d / "scenario.toml").read_text()
        r.tables = {name: pq.read_table(d / f"{name}.parquet") for name in SUMMARY_TABLES + SERIES_TABLES}
        return r

    def __repr__(self) -> str:
        m = self.meta
        return (f"Results({m.get('scenario')!r}, seed={m.get('seed')}, t={m.get('end_time_s'):.3f}s, "
                f"{self.tables['flows'].num_rows} flows, {m.get('packet_hops')} packet-hops)")
