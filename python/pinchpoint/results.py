"""Results of a run: summary DataFrames, time series as Arrow tables, atomic writing to disk.

numpy, pandas and pyarrow are imported when a result is first made, not when ``pinchpoint`` is
imported (issue 13: ``import pinchpoint`` stays under 0.2 s).
"""

from __future__ import annotations

import json
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import atomic

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from typing_extensions import Buffer  # collections.abc.Buffer from Python 3.12 on

#: Summary tables (one row per flow / port / link), returned as pandas DataFrames.
SUMMARY_TABLES = ("flows", "ports", "links", "transfers", "groups")
#: Time-series and trace tables, returned as Arrow tables.
SERIES_TABLES = ("flow_series", "port_series", "packets", "queue_trace", "capture", "loss_events", "loss_events_total",
                 "flow_rates")


class DamagedResultsError(ValueError):
    """A results directory (it has ``meta.json``) whose files are missing or unreadable: the
    message names the file."""


#: Columns that identify the run in every Parquet table written by :meth:`Results.write`.
ID_COLUMNS = ("run", "scenario", "seed")


def _to_arrow(cols: list[tuple[str, str, Any]]) -> pa.Table:
    """Arrow table from the native module's (name, dtype, data) columns, wrapped as Arrow
    buffers without a pass over the rows or a copy: each ``data`` exports the native column's
    memory through the buffer protocol, and the Arrow buffer keeps it alive (and ``pa.array``,
    which imports pandas, 0.3 s of CPU that ``pinchpoint run`` does not need, is not used). The native side counts in u64; every counter
    leaves here as int64 so that differences of counters (``retx_pkts - sent_pkts``) are
    negative numbers, not 1.8e19, in pandas and DuckDB (a column with a value above 2**63-1
    arrives as "u64" and is refused)."""
    import pyarrow as pa

    types = {"f64": (pa.float64(), 8), "i64": (pa.int64(), 8)}
    arrays, names = [], []
    for name, dtype, data in cols:
        if dtype == "u64":
            raise OverflowError(f"column {name!r}: a counter above 2**63-1 cannot be exported as int64")
        if dtype == "utf8":  # int32 offsets and the UTF-8 bytes
            offsets, values = data
            a = pa.Array.from_buffers(pa.string(), len(offsets) // 4 - 1,
                                      [None, pa.py_buffer(offsets), pa.py_buffer(values)])
        elif dtype == "bits":  # (rows, bitmap with the least significant bit first)
            rows, bits = data
            a = pa.Array.from_buffers(pa.bool_(), rows, [None, pa.py_buffer(bits)])
        elif dtype == "str":  # more than 2 GiB of text: one Python string per row
            a = pa.array(data, type=pa.string())
        else:
            typ, width = types[dtype]
            a = pa.Array.from_buffers(typ, len(data) // width, [None, pa.py_buffer(data)])
        arrays.append(a)
        names.append(name)
    return pa.Table.from_arrays(arrays, names=names)


def _repeated_string(value: str, n: int) -> pa.Array:
    """A string column holding ``value`` n times, made from its buffers (``pa.array`` and
    ``pa.scalar`` import pandas)."""
    import pyarrow as pa

    data = value.encode()
    offsets = array("i", range(0, len(data) * (n + 1), len(data))) if data else array("i", [0]) * (n + 1)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data * n)])


def _version() -> str:
    from ._native import __version__

    return __version__


#: What :meth:`Results.write` replaces, in its refusal's words.
RESULTS_DIR_WHAT = "an empty or results directory (no meta.json)"


def is_replaceable_results_dir(d: Path) -> bool:
    """True if :meth:`Results.write` may replace the existing directory ``d``: it is empty, or
    it holds ``meta.json`` (a previous run's results)."""
    return (d / "meta.json").exists() or not any(d.iterdir())


def refuse_out_dir(out: str | Path) -> None:
    """Raises :class:`FileExistsError` if :meth:`Results.write` would refuse ``out`` (a file, or
    a directory neither empty nor of results): for callers that check before a run."""
    atomic.refuse_to_replace(out, is_replaceable_results_dir, RESULTS_DIR_WHAT)


class Results:
    """What one run produced.

    Attributes:
        flows, ports, links: summary DataFrames (see the README for their columns).
        transfers, groups: one row per transfer of the arrival processes, and aggregates per
            group label (see ``docs/traffic/arrivals.md``).
        flow_series, port_series, packets, queue_trace, capture, flow_rates: Arrow tables (empty
            unless enabled).
        loss_events, loss_events_total: loss events (RFC 5348 s5.2) per flow and of all flows, per
            series interval (empty without ``metrics.series_interval``).
        meta: scenario name, seed, end time, event and packet-hop counts, wall time of the event
            loop (``wall_s``; a second thread writes the resolved scenario and the run key's hash
            meanwhile, about a second at 100,000 flows, so on a machine with every core busy
            the loop's wall time includes that share: ``pinchpoint bench`` waits for it first), the run key,
            the simulator version (``pinchpoint_version``) and the model revision
            (``model_revision``, see :func:`pinchpoint.store.key_of_canonical`).
        scenario_toml: the resolved scenario that produced them (a run keeps the native
            module's UTF-8 text and makes the string when this is first read).

    ``flows``, ``ports`` and ``links`` are converted from Arrow once and cached: every access
    returns the same DataFrame, so copy it (``r.flows.copy()``) before changing it in place.
    """

    def __init__(self, raw: dict[str, Any], scenario_toml: str | Buffer, wall_s: float | None = None, *,
                 key: str | None = None) -> None:
        """``scenario_toml`` is the resolved scenario as a string, or as UTF-8 bytes behind the
        buffer protocol (``Simulation.resolved_toml_buffer()``: written to ``scenario.toml``
        as they are, decoded only if :attr:`scenario_toml` is read)."""
        self.meta: dict[str, Any] = dict(raw["meta"])
        if key is not None:
            self._key = key
        if wall_s is not None:
            self.meta["wall_s"] = wall_s
        self.meta.setdefault("pinchpoint_version", _version())
        if isinstance(scenario_toml, str):
            self.scenario_toml = scenario_toml
        else:
            self._scenario_utf8 = scenario_toml
        self.tables: dict[str, pa.Table] = {name: _to_arrow(raw.get(name, [])) for name in SUMMARY_TABLES + SERIES_TABLES}

    @classmethod
    def from_tables(cls, meta: dict[str, Any], scenario_toml: str, tables: dict[str, pa.Table]) -> Results:
        """A Results from already converted parts (what a sweep worker sends back)."""
        r = cls.__new__(cls)
        r.meta, r.scenario_toml, r.tables = dict(meta), scenario_toml, dict(tables)
        return r

    @property
    def scenario_toml(self) -> str:
        """The resolved scenario (TOML) that produced these results."""
        text = self.__dict__.get("_scenario_toml")
        if text is None:
            # Decoded once; the native text is let go then, rather than kept beside the string.
            text = self._scenario_toml = str(memoryview(self.__dict__.pop("_scenario_utf8")), "utf-8")
        return text

    @scenario_toml.setter
    def scenario_toml(self, text: str) -> None:
        self._scenario_toml = text
        self.__dict__.pop("_scenario_utf8", None)

    def __getstate__(self) -> dict[str, Any]:
        # The native text buffer does not pickle: a pickled Results carries the string (decoded
        # by the property, once, so the object keeps the string too).
        _ = self.scenario_toml
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickled before scenario_toml became a property, the string is under its own name.
        if "scenario_toml" in state:
            state = dict(state)
            state["_scenario_toml"] = state.pop("scenario_toml")
        self.__dict__.update(state)

    @property
    def key(self) -> str:
        """The run key: hash of the canonical resolved scenario and the seed (see :func:`pinchpoint.store.run_key`)."""
        if "run" not in self.meta:
            key = self.__dict__.get("_key")  # made from the scenario in memory (api.run)
            if key is None:
                from .store import run_key

                # Results read back from disk keep the revision of the model that made them
                # (none recorded: revision 1, before revisions existed).
                key = run_key(self.scenario_toml, int(self.meta["seed"]), int(self.meta.get("model_revision", 1)))
            self.meta["run"] = key
        return self.meta["run"]

    def _frame(self, name: str) -> pd.DataFrame:
        cache = self.__dict__.setdefault("_frames", {})
        if name not in cache:
            cache[name] = self.tables[name].to_pandas()
        return cache[name]

    # Summaries as DataFrames (cached: see the class docstring).
    @property
    def flows(self) -> pd.DataFrame:
        return self._frame("flows")

    @property
    def ports(self) -> pd.DataFrame:
        return self._frame("ports")

    @property
    def links(self) -> pd.DataFrame:
        return self._frame("links")

    @property
    def transfers(self) -> pd.DataFrame:
        """One row per transfer of the ``[[arrivals]]`` processes (finished or still running)."""
        return self._frame("transfers")

    @property
    def groups(self) -> pd.DataFrame:
        """Aggregates per group label: static flows with a ``group`` and arrival processes."""
        return self._frame("groups")

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
    def capture(self) -> pa.Table:
        """Packets the ports in ``metrics.capture`` transmitted, with header fields (see
        :mod:`pinchpoint.pcap`)."""
        return self.tables["capture"]

    @property
    def loss_events(self) -> pa.Table:
        """Loss events per flow and series interval: ``t_s`` (end of the interval), ``flow``,
        ``sent_pkts``, ``lost_pkts``, ``loss_events``, ``loss_event_rate`` (events / sent). A loss
        joins the event of an earlier loss whose packet was sent at most one sender RTT before
        its own (RFC 5348 s5.2); flows that neither sent nor lost in an interval have no row."""
        return self.tables["loss_events"]

    @property
    def loss_events_total(self) -> pa.Table:
        """The same counts summed over all flows, one row per series interval, with
        ``loss_rate`` (lost / sent) beside ``loss_event_rate``."""
        return self.tables["loss_events_total"]

    @property
    def flow_rates(self) -> pa.Table:
        """Bytes each flow delivered in every ``metrics.rate_interval`` (columns ``flow``,
        ``interval_start_s``, ``bytes``, ``rate_bps``); empty unless the interval is set. The
        flows table's ``rate_cov`` summarises it (see ``docs/metrics.md``)."""
        return self.tables["flow_rates"]

    def write_pcap(self, port: str, path: str | Path) -> Path:
        """Writes the packets captured at ``port`` as a pcapng file (see :mod:`pinchpoint.pcap`)."""
        from .pcap import write_pcapng

        return write_pcapng(self, port, path)

    @property
    def plot(self):
        """Standard figures of this run (see :mod:`pinchpoint.plots`)."""
        from .plots import Plotter

        return Plotter(self)

    def jain(self, column: str = "goodput_bps", flows: list[str] | None = None) -> float:
        """Jain's fairness index over the flows' ``column`` (all flows, or those named). Raises
        KeyError for a name that is not a flow of the run (left out, it would change the index
        silently: a misspelt name gave the index of the others, or NaN)."""
        df = self.flows
        if flows is not None:
            if isinstance(flows, str):  # isin("f1") would test its characters
                flows = [flows]
            known = [str(f) for f in df["flow"]]
            unknown = [f for f in flows if f not in known]
            if unknown:
                raise KeyError(f"no flow named {', '.join(map(repr, unknown))}; flows are {known}")
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
            raise KeyError(f"no flow named {name!r}; flows are {[str(f) for f in df['flow']]}")
        return rows.iloc[0]

    def tables_with_ids(self) -> dict[str, pa.Table]:
        """Every table with ``run``, ``scenario`` and ``seed`` as its first columns (as written
        to Parquet), so that tables of several runs can be concatenated and still be told apart."""
        import pyarrow as pa

        out = {}
        ids = {"run": self.key, "scenario": str(self.meta.get("scenario")), "seed": int(self.meta.get("seed", 0))}
        for name, t in self.tables.items():
            for col in ID_COLUMNS:
                if col in t.column_names:
                    t = t.drop_columns([col])
            n = t.num_rows
            front = [_repeated_string(ids["run"], n), _repeated_string(ids["scenario"], n),
                     pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(array("q", [ids["seed"]]) * n)])]
            out[name] = pa.table(front + list(t.columns), names=list(ID_COLUMNS) + t.column_names)
        return out

    def write(self, out_dir: str | Path) -> Path:
        """Writes every table as Parquet (each with ``run``, ``scenario`` and ``seed``
        columns), the resolved scenario and ``meta.json`` into ``out_dir``. An existing
        ``out_dir`` is replaced only if it is empty or a results directory (it holds
        ``meta.json``); anything else raises :class:`FileExistsError` and is left untouched.

        The directory appears whole or not at all (see :mod:`pinchpoint.atomic`): files go to
        a temporary directory beside it, which is renamed into place at the end. Leftovers of
        a writer that was killed are removed by the next write or read of the same directory."""
        import pyarrow.parquet as pq

        self.key  # noqa: B018 (fills meta["run"])
        tables = self.tables_with_ids()

        def fill(tmp: Path) -> None:
            # Each file is encoded on its own thread (pyarrow releases the GIL), largest
            # first, as many at once as Arrow's CPU pool allows (pa.set_cpu_count, or
            # OMP_NUM_THREADS): at 100,000 flows two threads write in 0.23-0.30 s what one
            # writes in 0.55-0.63 s. The files are those one thread writes.
            from concurrent.futures import ThreadPoolExecutor

            import pyarrow as pa

            order = sorted(tables, key=lambda name: -tables[name].nbytes)
            pool = ThreadPoolExecutor(max(1, min(len(order), pa.cpu_count())))
            try:
                for done in [pool.submit(pq.write_table, tables[name], tmp / f"{name}.parquet") for name in order]:
                    done.result()
            finally:
                # After a failure (a full disk, Ctrl-C) the files not yet begun are not written.
                pool.shutdown(wait=True, cancel_futures=True)
            utf8 = self.__dict__.get("_scenario_utf8")
            (tmp / "scenario.toml").write_bytes(utf8 if utf8 is not None else self.scenario_toml.encode())
            (tmp / "meta.json").write_text(json.dumps(self.meta, indent=2, sort_keys=True) + "\n")

        return atomic.write_dir(out_dir, fill, replaces=is_replaceable_results_dir, what=RESULTS_DIR_WHAT)

    @classmethod
    def read(cls, out_dir: str | Path) -> Results:
        """Reads a directory written by :meth:`write` (or ``pinchpoint run --out``). The
        ``run``, ``scenario`` and ``seed`` columns of the files are left out of the tables
        (they are in ``meta``), so a result read back equals the one written."""
        import pyarrow.parquet as pq

        d = atomic.recover(Path(out_dir))
        if not (d / "meta.json").exists():
            raise FileNotFoundError(f"{d}: not a results directory (no meta.json)")
        damaged = "the results directory is damaged; write it again with 'pinchpoint run FILE --out DIR'"
        r = cls.__new__(cls)
        try:
            r.meta = json.loads((d / "meta.json").read_text())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise DamagedResultsError(f"{d / 'meta.json'}: not readable as JSON ({e}): {damaged}") from None
        if not isinstance(r.meta, dict):
            raise DamagedResultsError(f"{d / 'meta.json'}: expected a JSON object: {damaged}")
        try:
            r.scenario_toml = (d / "scenario.toml").read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise DamagedResultsError(f"{d / 'scenario.toml'}: cannot be read ({e.strerror if isinstance(e, OSError) else e}): {damaged}") from None
        r.tables = {}
        import pyarrow as pa

        # A directory this version wrote holds every table; one of an earlier version may lack
        # the newer ones (read as empty). A table missing from this version's is damage, not
        # "no series recorded".
        this_version = r.meta.get("pinchpoint_version") == _version()
        for name in SUMMARY_TABLES + SERIES_TABLES:
            path = d / f"{name}.parquet"
            if not path.exists():
                if name in SERIES_TABLES + ("transfers", "groups") and not this_version:
                    r.tables[name] = pa.table({})  # written by an earlier version
                    continue
                raise DamagedResultsError(f"{path}: missing: {damaged}")
            try:
                t = pq.read_table(path)
            except (OSError, pa.ArrowException) as e:
                raise DamagedResultsError(f"{path}: not a readable Parquet table ({e}): {damaged}") from None
            r.tables[name] = t.drop_columns([c for c in ID_COLUMNS if c in t.column_names])
        return r

    def __repr__(self) -> str:
        m = self.meta
        return (f"Results({m.get('scenario')!r}, seed={m.get('seed')}, t={m.get('end_time_s'):.3f}s, "
                f"{self.tables['flows'].num_rows} flows, {m.get('packet_hops')} packet-hops)")
