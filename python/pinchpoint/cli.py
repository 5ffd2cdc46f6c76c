"""The ``pinchpoint`` command line: run, validate, bench."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import _native, api

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="pinchpoint: packet-level simulation for congestion-control research.")
store_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Maintain a DuckDB results store.")
app.add_typer(store_app, name="store")


def _version_callback(value: bool) -> None:
    if value:
        print(f"pinchpoint {_native.__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version_callback, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """pinchpoint: packet-level simulation for congestion-control research."""
console = Console(stderr=True)
# Tables keep their columns when piped to a file (rich would otherwise fold them to 80 columns).
out_console = Console() if Console().is_terminal else Console(width=160)


def _fail(msg: str, code: int = 2) -> None:
    console.print(f"[bold red]error:[/] {escape(msg)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _fmt(x: float, unit: str = "") -> str:
    if x != x:  # NaN
        return "-"
    for div, pre in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{pre}{unit}"
    return f"{x:.3g}{unit}"


def _progress(disable: bool) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                    TextColumn("{task.fields[now]:.2f}/{task.total:.2f} s sim"), TimeElapsedColumn(),
                    console=console, disable=disable, transient=False)


def _import_pyarrow_meanwhile() -> None:
    """Imports pyarrow, which every run's results need (0.35-0.45 s of CPU), on a second thread:
    the native side reads and builds the scenario without holding the GIL, so the import
    proceeds while it does. Not a daemon thread: the interpreter waits for the import to end
    before it exits, rather than stopping it half done."""
    import threading

    def work() -> None:
        try:
            import pyarrow.compute  # noqa: F401
            import pyarrow.parquet  # noqa: F401
        except Exception:  # noqa: BLE001 (the import is retried where it is needed, and fails there with its traceback)
            pass

    threading.Thread(target=work, name="pinchpoint-import-pyarrow").start()


def run_with_progress(path: Path, seed: Optional[int], quiet: bool, label: str | None = None) -> "api.Results":
    """Runs one scenario file with a progress bar on stderr (rich draws it only on a terminal)."""
    with _progress(quiet) as prog:

        def cb(now: float, end: float) -> None:
            prog.update(task, total=end, completed=now, now=now)

        task = prog.add_task(label or path.name, total=1.0, now=0.0)
        return api.run(path, seed=seed, progress=cb)


def summary_tables(res) -> list[Table]:
    """The flows and busiest-ports tables `pinchpoint run` prints, read from the Arrow tables
    with pyarrow's compute kernels: converting the whole ports and links tables to pandas and
    merging them took about a second at 100,000 flows (400,000 ports) to print 28 rows."""
    import pyarrow.compute as pc

    flows = res.tables["flows"]
    t = Table(title=f"flows ({res.meta['scenario']}, seed {res.meta['seed']}, {res.meta['end_time_s']:.3f} s simulated)")
    for c in ("flow", "goodput", "fct_s", "sent", "retx", "lost", "delay mean", "delay p99"):
        t.add_column(c, justify="right" if c != "flow" else "left")
    shown = flows.slice(0, 20).to_pylist()
    for r in shown:
        t.add_row(str(r["flow"]), _fmt(r["goodput_bps"], "bps"), _fmt(r["fct_s"], "s"), str(r["sent_pkts"]),
                  str(r["retx_pkts"]), str(r["lost_pkts"]), _fmt(r["delay_mean_s"], "s"), _fmt(r["delay_p99_s"], "s"))
    if flows.num_rows > len(shown):
        t.add_row(f"... {flows.num_rows - len(shown)} more", "", "", "", "", "", "", "")
    p = Table(title="busiest ports")
    for c in ("port", "utilisation", "queue mean (pkts)", "queue p99 (B)", "drops", "marks"):
        p.add_column(c, justify="right" if c != "port" else "left")
    # Each simplex link is named after the port that sends onto it, so the 8 most utilised
    # links (a stable sort: ties keep the links table's order) name the busiest ports.
    links, ports = res.tables["links"], res.tables["ports"]
    top = links.take(pc.sort_indices(links, sort_keys=[("utilisation", "descending")]).slice(0, 8))
    rows = pc.index_in(top["link"], value_set=ports["port"]).to_pylist()
    for util, row in zip(top["utilisation"].to_pylist(), rows):
        if row is not None:
            r = ports.slice(row, 1).to_pylist()[0]
            p.add_row(str(r["port"]), f"{util:.3f}", f"{r['queue_pkts_mean']:.2f}", _fmt(r["queue_bytes_p99"], "B"),
                      str(r["drops"]), str(r["marks"]))
    return [t, p]


def transfers_line(res) -> str | None:
    """One line on the arrival processes' transfers (None without any): how many, how many
    completed, and the completed ones' median and 95th percentile response time (linear
    interpolation, as pandas' ``median`` and ``quantile``)."""
    import pyarrow.compute as pc

    t = res.tables["transfers"]
    if t.num_rows == 0:
        return None
    done = t.filter(t["completed"])["response_time_s"]
    # pyarrow's quantile skips NaN as pandas does, and gives null where pandas gives NaN.
    median, p95 = (float("nan") if q is None else q for q in
                   ([None, None] if len(done) == 0 else pc.quantile(done, q=[0.5, 0.95]).to_pylist()))
    return (f"{t.num_rows} transfers, {len(done)} completed, response time median {median:.4g} s, p95 {p95:.4g} s "
            f"({res.meta['transfer_slots']} flow slots used)")


@app.command()
def run(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write Parquet tables and the resolved scenario here.")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Override the scenario's master seed.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or summary.")] = False,
    store: Annotated[Optional[Path], typer.Option(help="Also store the summaries in this DuckDB file.")] = None,
    pcap: Annotated[Optional[list[str]], typer.Option("--pcap", help="Capture the packets this port transmits (like "
                    "r1->r2) into a pcapng file in --out (or the current directory); repeatable.")] = None,
) -> None:
    """Run a scenario: progress bar, summary table, results written atomically to --out."""
    if seed is not None and not (0 <= seed < 2**63):
        _fail(f"--seed: expected an integer from 0 to 2^63 - 1, got {seed}")
    if store is not None:
        from .store import NotAStore, check_store_path

        try:
            check_store_path(store)  # before the run, not after it
        except NotAStore as e:
            _fail(f"--store: {e}")
    if out is not None:
        from .results import refuse_out_dir

        try:
            refuse_out_dir(out)  # before the run: writing replaces --out, which must not be someone's folder
        except FileExistsError as e:
            _fail(f"--out: {e}")
        _refuse_unwritable_parent(out, "--out")  # before the run, not after it
    problem = api.scenario_file_problem(scenario)  # before the progress bar is drawn
    if problem is not None:
        _fail(problem)
    _import_pyarrow_meanwhile()  # after the options' checks: a refused option does not wait for it
    try:
        if pcap:
            from .scenario import Scenario

            api.validate(scenario)  # errors with the file's lines and columns
            sc = Scenario.from_file(scenario)
            ports = {f"{a}->{b}" for link in sc.data.get("links", []) for a, b in ((link["a"], link["b"]), (link["b"], link["a"]))}
            for port in pcap:
                if port not in ports:
                    _fail(f"--pcap: unknown port '{port}' of {scenario} (ports are named 'from->to', one each way of a link)")
            sc.data["metrics"]["capture"] = sorted(set(sc.data["metrics"].get("capture", [])) | set(pcap))
            with _progress(quiet) as prog:
                task = prog.add_task(scenario.name, total=1.0, now=0.0)
                res = api.run(sc, seed=seed, progress=lambda now, end: prog.update(task, total=end, completed=now, now=now))
        else:
            res = run_with_progress(scenario, seed, quiet)
    except _native.ScenarioError as e:
        _fail(str(e))
        return
    if out is not None:
        try:
            res.write(out)
        except OSError as e:
            _fail(f"--out: {out}: cannot write the results ({e.strerror or e}); nothing was written")
    if pcap:
        from .pcap import file_name

        for port in pcap:
            try:
                path = res.write_pcap(port, (out or Path(".")) / file_name(port))
            except OSError as e:
                _fail(f"--pcap: cannot write the capture of {port} in {out or Path('.')} ({e.strerror or e})")
            console.print(f"pcap: {path}", highlight=False)
    if store is not None:
        import warnings

        from .store import Store

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Store(store).put(res, tags={"file": str(scenario)})
        for w in caught:
            console.print(f"[yellow]warning:[/] {escape(str(w.message))}", highlight=False, soft_wrap=True)
    if not quiet:
        for t in summary_tables(res):
            out_console.print(t)
        line = transfers_line(res)
        if line is not None:
            out_console.print(line)
        hops = res.meta["packet_hops"]
        wall = res.meta.get("wall_s", float("nan"))
        out_console.print(f"{hops} packet-hops in {wall:.3f} s wall ({_fmt(hops / wall if wall else float('nan'))} hops/s)"
                          + (f"; results in {out}" if out else ""))


@app.command()
def plot(
    results_dir: Annotated[Path, typer.Argument(help="A directory written by 'pinchpoint run --out'.")],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Where to write the figures (default: RESULTS_DIR/figures).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="Comma-separated formats: png, svg, pdf.")] = "png",
    style: Annotated[str, typer.Option(help="'paper' (column width, no titles) or 'screen' (larger, titled).")] = "paper",
) -> None:
    """Draw the standard figures of a stored run: queue, window, goodput, delay CDF."""
    import warnings

    from .plots import FORMATS, STYLES
    from .results import Results

    from .plan import _first_duplicate

    formats = [f.strip().lower() for f in fmt.split(",")]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        _fail(f"--format: expected one or more of {', '.join(FORMATS)}, comma-separated, got {fmt!r}")
    if _first_duplicate(formats) is not None:
        _fail(f"--format: {_first_duplicate(formats)} is given twice (each figure would be written twice)")
    if style not in STYLES:
        _fail(f"--style: expected one of {', '.join(STYLES)}, got {style!r}")
    if not (results_dir / "meta.json").exists():
        _fail(f"{results_dir}: not a results directory (no meta.json); write one with 'pinchpoint run FILE --out DIR'")
    if out is not None and out.exists() and not out.is_dir():
        _fail(f"--out: {out} exists and is not a directory; expected a directory for the figures")
    fig_dir = out or results_dir / "figures"
    from .results import DamagedResultsError

    try:
        res = Results.read(results_dir)  # before the figures' directory is made
    except (DamagedResultsError, FileNotFoundError) as e:
        _fail(str(e))
    _make_parent(fig_dir, "--out", itself=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        paths = res.plot.save_all(fig_dir, formats=formats, style=style)
    for w in caught:
        console.print(f"[yellow]note:[/] {escape(str(w.message))}", highlight=False, soft_wrap=True)
    for p in paths:
        out_console.print(str(p))


def _summarise_parts(parts: list[str], listed: int = 3) -> str:
    """The random parts, comma-separated; the parts that differ only in the element they name
    (``flows.f7.start_jitter`` for each of 100,000 flows) as one ``flows.*.start_jitter`` with
    their count and the first few names, once there are more than ``listed`` of them."""
    groups: dict[str, list[str]] = {}
    for p in parts:
        family, name, rest = (p.split(".", 2) + ["", ""])[:3]
        key = f"{family}.*.{rest}" if rest else p
        groups.setdefault(key, []).append(name if rest else p)
    if all(len(names) <= listed for names in groups.values()):
        return ", ".join(parts)  # as the engine lists them
    out = []
    for key, names in groups.items():
        if len(names) > listed:
            family = key.split(".", 1)[0]
            out.append(f"{key} ({len(names):,} {family}: {', '.join(names[:listed])}, ...)")
        else:
            out += [key.replace(".*.", f".{n}.", 1) if ".*." in key else key for n in names]
    return ", ".join(out)


@app.command()
def validate(files: Annotated[list[Path], typer.Argument(help="Scenario files (TOML).")],
             show: Annotated[bool, typer.Option(help="Print the resolved scenario.")] = False) -> None:
    """Check scenario files; errors name the file, the field and what was expected. For a valid
    file, says which of its parts draw random numbers (so that the seed changes the run)."""
    bad = 0
    for f in files:
        try:
            resolved = api.validate(f)
            random = api.random_parts(f)
        except _native.ScenarioError as e:
            console.print(f"[bold red]invalid:[/] {escape(str(e))}", highlight=False, soft_wrap=True)
            bad += 1
            continue
        out_console.print(f"[green]ok[/] {f}")
        seed = (f"the seed changes: {_summarise_parts(random)}" if random
                else "the seed changes nothing (no part draws random numbers)")
        out_console.print(f"   {escape(seed)}", highlight=False, soft_wrap=True)
        if show:
            out_console.print(resolved, highlight=False, markup=False)
    if bad:
        raise typer.Exit(2)


@app.command()
def maxmin(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML).")],
    at: Annotated[float, typer.Option("--at", help="Instant, s: routes then in force; flows started by then are active.")] = 0.0,
    active: Annotated[Optional[str], typer.Option(help="Comma-separated flow names to count as active (overrides start times).")] = None,
) -> None:
    """Max-min fair rates of the scenario's flows at an instant (ack overhead, desired rates and shaper rates included)."""
    from .optimum import ArgumentError
    from .optimum import maxmin as calc

    if not (0 <= at < float("inf")):
        _fail(f"--at: expected an instant of 0 s or later, got {at!r}")
    names = None
    if active is not None:
        names = [a.strip() for a in active.split(",")]
        if any(not a for a in names):
            _fail(f"--active: expected comma-separated flow names, got {active!r} (an empty name)")
        if len(set(names)) < len(names):
            dup = next(a for a in names if names.count(a) > 1)
            _fail(f"--active: flow '{dup}' is named twice")
    try:
        res = calc(scenario, at=at, active=names)
    except _native.ScenarioError as e:
        _fail(str(e))
        return
    except ArgumentError as e:
        # Name the option the value came from (the library names its argument).
        _fail(f"{e.origin}: --{e.argument}" + ("" if e.value is None else f" {e.value}") + f": {e.detail}")
        return
    t = Table(title=f"max-min fair rates at t = {at:g} s ({res.iterations} fixed-point iterations)")
    for c in ("flow", "rate (bit/s)", "limited by"):
        t.add_column(c, justify="right" if c.startswith("rate") else "left")
    for f, r, why in res.table():
        t.add_row(f, f"{r:,.1f}", why)
    out_console.print(t)


@app.command()
def bench(
    flows: Annotated[str, typer.Option(help="Comma-separated flow counts.")] = "10,100",
    sim_s: Annotated[float, typer.Option("--sim-s", help="Simulated seconds per run.")] = 30.0,
    against: Annotated[Optional[str], typer.Option(help="Also run the same scenario on this simulator (ns3).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines instead of a table.")] = False,
    repeat: Annotated[int, typer.Option(help="Runs per size for pinchpoint (the fastest is kept).")] = 3,
    start_jitter_ms: Annotated[Optional[float], typer.Option(
        "--start-jitter-ms", help="Each flow starts at a seeded uniform time in [0, this) ms; default 100 from "
        "1,000 flows up, 0 below (comparable with ns-3, whose flows all start at 0).")] = None,
    per_flow_mbps: Annotated[Optional[float], typer.Option(
        "--per-flow-mbps", help="Grow the bottleneck with the flows: N x this many Mbit/s and 10 packets of "
        "buffer per flow, so every N gives each flow the same share (10: the 10-flow dumbbell at every N); "
        "default: a fixed 100 Mbit/s, 100-packet bottleneck.")] = None,
) -> None:
    """Benchmark the dumbbell (N TCP NewReno flows over a 100 Mbit/s bottleneck, or one that grows with N)."""
    from . import bench as bench_mod

    sizes = _bench_sizes(flows)
    if not (0 < sim_s < float("inf")):
        _fail(f"--sim-s: expected a positive number of simulated seconds, got {sim_s!r}")
    if repeat < 1:
        _fail(f"--repeat: expected at least 1 run per size, got {repeat}")
    if against not in (None, "ns3"):
        _fail(f"--against: expected 'ns3', got {against!r}")
    if per_flow_mbps is not None and not (0 < per_flow_mbps < float("inf")):
        _fail(f"--per-flow-mbps: expected a positive number of Mbit/s, got {per_flow_mbps!r}")
    if start_jitter_ms is not None and not (start_jitter_ms >= 0):
        _fail(f"--start-jitter-ms: expected a non-negative number of milliseconds, got {start_jitter_ms!r}")
    if against == "ns3" and any((bench_mod.default_jitter_ms(n) if start_jitter_ms is None else start_jitter_ms) > 0
                                for n in sizes):
        _fail("--against ns3: the ns-3 side starts every flow at t = 0; use fewer than "
              f"{bench_mod.JITTER_FROM_FLOWS} flows or --start-jitter-ms 0")
    if against == "ns3":
        from .crossval import compare as xval
        if not xval.available():
            _fail("ns-3 is not installed: pip install 'pinchpoint[ns3]' (the ns3 wheel from PyPI; from a checkout: pip install '.[ns3]')")
    rows = []
    for n in sizes:
        try:
            rows.append(bench_mod.run_pinchpoint(n, sim_s, repeat=repeat, jitter_ms=start_jitter_ms,
                                                 per_flow_mbps=per_flow_mbps))
        except _native.ScenarioError as e:
            # The options made a dumbbell the engine refuses (say, a jitter above its limit).
            msg = api._JSON_POSITION.sub("", str(e))  # a position in generated JSON nobody saw
            opt = "--start-jitter-ms" if "start_jitter" in msg else "--flows, --sim-s or --per-flow-mbps"
            _fail(f"{opt}: the benchmark scenario is invalid: {msg}")
        if as_json:
            print(_json_text(rows[-1]), flush=True)
        else:
            console.print(f"pinchpoint N={n}: {rows[-1]['wall_s']:.3f} s", highlight=False)
        if against == "ns3":
            console.print(f"ns-3 N={n}: running ({sim_s:g} simulated s) ...", highlight=False)
            rows.append(xval.run_dumbbell(n, sim_s, per_flow_mbps))
            if as_json:
                print(_json_text({k: rows[-1][k] for k in bench_mod.JSON_KEYS}), flush=True)
    if not as_json:
        out_console.print(bench_mod.table(rows))


def _finite_or_none(x):
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite_or_none(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite_or_none(v) for v in x]
    return x


def _json_text(obj) -> str:
    """JSON text of ``obj`` with NaN and infinities as null: json.dumps writes them as the
    bare words NaN and Infinity, which are not JSON (a Jain's index of flows that carried
    nothing is NaN)."""
    return json.dumps(_finite_or_none(obj), allow_nan=False)


def _bench_sizes(flows: str) -> list[int]:
    """The flow counts of `bench --flows`: comma-separated positive integers, at least one."""
    sizes = []
    for part in flows.split(","):
        if not part.strip():
            continue
        try:
            n = int(part)
        except ValueError:
            n = 0
        if n < 1:
            _fail(f"--flows: expected comma-separated positive flow counts (e.g. 10,100), got {part.strip()!r}")
        sizes.append(n)
    if not sizes:
        _fail(f"--flows: expected comma-separated positive flow counts (e.g. 10,100), got {flows!r}")
    return sizes


@app.command()
def crossval(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (TOML) inside the ns-3 subset.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
    sim_s: Annotated[Optional[float], typer.Option("--sim-s", help="ns-3 simulated seconds (default: simulation.duration).")] = None,
) -> None:
    """Run a scenario in pinchpoint and in ns-3 and print the results side by side."""
    from .crossval import compare as xval

    if sim_s is not None and not (0 < sim_s < float("inf")):
        _fail(f"--sim-s: expected a positive number of simulated seconds, got {sim_s!r}")

    try:
        plan = xval.translate_file(scenario)
    except _native.ScenarioError as e:
        _fail(str(e))
        return
    except xval.CrossvalUnsupported as e:
        _fail(f"outside the ns-3 subset: {e} (see docs/crossval.md)")
        return
    if not xval.available():
        _fail("ns-3 is not installed: pip install 'pinchpoint[ns3]' (the ns3 wheel from PyPI; from a checkout: pip install '.[ns3]')")
    for c in plan["caveats"]:
        console.print(f"[yellow]caveat:[/] {escape(c)}", highlight=False, soft_wrap=True)
    if not as_json:
        console.print(f"running {scenario.name} in pinchpoint and ns-3 ...", highlight=False)
    cmp = xval.compare(scenario, sim_s=sim_s)
    if as_json:
        print(_json_text(cmp))
        return
    for t in crossval_tables(cmp):
        out_console.print(t)
    out_console.print("ns-3: wall time is Simulator::Run with FlowMonitor and the 10 ms samplers installed; fct is the "
                      "arrival of the last data byte (pinchpoint: its acknowledgement); goodput and Jain's index use each "
                      "flow's active time; median cwnd over 10 ms samples (pinchpoint: over its series, if the scenario has "
                      "metrics.series_interval).", highlight=False)


def crossval_tables(cmp: dict) -> list[Table]:
    """Tables of a :func:`crossval.compare.compare` result: flows, ports, summary."""
    def f(x, unit=""):
        return "-" if x is None else _fmt(float(x), unit)

    def i(x):
        return "-" if x is None else str(x)

    ft = Table(title=f"flows ({Path(cmp['scenario']).name}): pinchpoint | ns-3")
    for c in ("flow", "kind", "goodput pp", "goodput ns3", "ratio", "fct pp", "fct ns3", "lost pp", "lost ns3",
              "retx pp", "retx ns3", "median cwnd pp", "median cwnd ns3"):
        ft.add_column(c, justify="left" if c in ("flow", "kind") else "right")
    for r in cmp["flows"]:
        p, n = r["pinchpoint"], r["ns3"]
        ratio = n["goodput_bps"] / p["goodput_bps"] if p["goodput_bps"] else float("nan")
        kind = f"{r['transport']}/{r['workload']}" + (f" ({r['cc'].removeprefix('ns3::')})" if r.get("cc") else "")
        ft.add_row(r["flow"], kind, f(p["goodput_bps"], "bps"), f(n["goodput_bps"], "bps"),
                   f"{ratio:.3f}", f(p["fct_s"], "s"), f(n["fct_s"], "s"), i(p["lost_pkts"]), i(n["lost_pkts"]),
                   i(p.get("retx_pkts")), i(n.get("retx_pkts")), f(p.get("cwnd_median_bytes"), "B"),
                   f(n.get("cwnd_median_bytes"), "B"))
    pt = Table(title="ports that dropped, marked or queued")
    for c in ("port", "drops pp", "drops ns3", "marks pp", "marks ns3", "mean queue pp (pkts)",
              "mean queue ns3 (pkts, sampled)"):
        pt.add_column(c, justify="left" if c == "port" else "right")
    for r in cmp["ports"]:
        qp, qn = r["pinchpoint"].get("queue_pkts_mean"), r["ns3"].get("queue_pkts_mean")
        pt.add_row(r["port"], str(r["pinchpoint"]["drops"]), str(r["ns3"]["drops"]),
                   str(r["pinchpoint"].get("marks", 0)), str(r["ns3"].get("marks", 0)), "-" if qp is None else f"{qp:.1f}", "-" if qn is None else f"{qn:.1f}")
    st = Table(title="summary")
    for c in ("", "pinchpoint", "ns-3"):
        st.add_column(c, justify="left" if not c else "right")
    sp, sn = cmp["summary"]["pinchpoint"], cmp["summary"]["ns3"]
    st.add_row("aggregate goodput", f(sp["aggregate_goodput_bps"], "bps"), f(sn["aggregate_goodput_bps"], "bps"))
    st.add_row("Jain's index (TCP flows)", f"{sp['jain_tcp']:.4f}", f"{sn['jain_tcp']:.4f}")
    st.add_row("drops (all ports)", str(sp["drops"]), str(sn["drops"]))
    st.add_row("CE marks (all ports)", str(sp.get("marks", 0)), str(sn.get("marks", 0)))
    st.add_row("simulated s", f"{sp['sim_end_s']:.3f}", f"{sn['sim_end_s']:.3f}")
    st.add_row("wall s (simulation loop)", f"{sp['wall_s']:.4f}", f"{sn['wall_s']:.4f}")
    ratio = cmp["wall_ratio_ns3_over_pinchpoint"]
    st.add_row("wall ratio ns-3 / pinchpoint", "", "-" if ratio is None else f"{ratio:.1f}x")
    return [ft, pt, st]


def _refuse_unwritable_parent(out: Path, opt: str) -> None:
    """Fails naming ``opt`` if ``out`` cannot be created where it is: a file in the way, or a
    nearest existing directory this process may not write in. Nothing is created (a run that
    fails later leaves no empty directory behind); what only the write itself can find (a
    read-only file system as root, a full disk) is reported when it happens."""
    import os

    from .atomic import file_in_the_way

    blocker = file_in_the_way(out)
    if blocker is not None:
        _fail(f"{opt}: {out}: {blocker} is a file, not a directory")
    parent = next((p for p in Path(out).absolute().parents if p.exists()), None)
    if parent is not None and not os.access(parent, os.W_OK | os.X_OK):
        _fail(f"{opt}: {out}: cannot create it: {parent} is not writable")


def _make_parent(out: Path, opt: str, itself: bool = False) -> None:
    """Creates the directory ``out`` goes in (``out`` itself with ``itself``); fails naming
    ``opt`` when a file is in the way or the directory cannot be made."""
    from .atomic import file_in_the_way

    blocker = file_in_the_way(out / "x" if itself else out)
    if blocker is not None:
        _fail(f"{opt}: {out}: {blocker} is a file, not a directory")
    try:
        (out if itself else out.parent).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        _fail(f"{opt}: {out}: cannot create the directory ({e.strerror or e})")


def _check_table_out(out: Path) -> None:
    """``sweep --out``: a .csv or .parquet file name (any case), not a directory, not under a
    file, and not an existing file other than a previous sweep table of that format (writing
    replaces it: a scenario or a data file given by mistake must be left as it was)."""
    from . import sweep as sweep_mod
    from .atomic import file_in_the_way

    if out.is_dir():
        _fail(f"--out: {out} is a directory; expected a table file (.csv or .parquet)")
    if out.suffix.lower() not in sweep_mod.TABLE_FORMATS:
        _fail(f"--out: {out}: expected a file name ending in .csv or .parquet, got "
              + (f"{out.suffix!r}" if out.suffix else "no suffix"))
    blocker = file_in_the_way(out)
    if blocker is not None:
        _fail(f"--out: {out}: {blocker} is a file, not a directory")
    if out.exists() and not sweep_mod.is_sweep_table(out):
        _fail(f"--out: {out} exists and is not a sweep table ({out.suffix.lower()[1:].upper()} with the columns "
              f"seed, run, goodput_bps, ...): not replaced; choose another path or remove it")


@app.command()
def sweep(
    scenario: Annotated[Path, typer.Argument(help="Base scenario file (TOML).")],
    set_: Annotated[Optional[list[str]], typer.Option("--set", help="PATH=VALUES, crossed with every other --set: "
                    "flows.f1.cc=reno,newreno; 'links.r1->r2.rate=5Mbps,10Mbps' (quote ->); "
                    "'links.r1->r2.queue={kind=\"droptail\",limit_pkts=20},{kind=\"rda\"}' (see README); repeatable.")] = None,
    zip_: Annotated[Optional[list[str]], typer.Option("--zip", help="PATH=VALUES varied together with the other --zip "
                    "parameters (lists of one length), crossed with the --set grid; repeatable.")] = None,
    plan: Annotated[Optional[Path], typer.Option(help="Sweep plan file (TOML): grid, zip, random/sobol draws, seeds.")] = None,
    seeds: Annotated[Optional[str], typer.Option(help="Comma-separated seeds (default: the plan's, else 1).")] = None,
    keep: Annotated[Optional[str], typer.Option(help="'series': keep every run's tables as Parquet in STORE.series/<run>/.")] = None,
    store: Annotated[Path, typer.Option(help="DuckDB file for the run summaries.")] = Path("results/sweep.duckdb"),
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Also write the sweep table here (.csv or .parquet).")] = None,
    scheduler: Annotated[Optional[str], typer.Option(help="Dask scheduler address; default: local processes.")] = None,
    workers: Annotated[Optional[int], typer.Option(help="Local worker processes, at least 1 (default: CPU count).")] = None,
    scheduler_timeout: Annotated[Optional[float], typer.Option(help="Seconds to wait for the Dask scheduler to answer "
                                 "(default: Dask's distributed.comm.timeouts.connect, 30 s).")] = None,
) -> None:
    """Run every point of a plan (grid x paired lists x draws) x seeds; each run is stored once in DuckDB."""
    import warnings

    from . import sweep as sweep_mod
    from .plan import PlanError
    from .scenario import ParameterError
    from .store import NotAStore, StoreLocked, check_store_path

    from .plan import _first_duplicate

    def params(items: Optional[list[str]], opt: str) -> dict[str, list]:
        d: dict[str, list] = {}
        for item in items or []:
            if "=" not in item:
                _fail(f"{opt} {item!r}: expected PATH=V1,V2,...")
            path, values = item.split("=", 1)
            path = path.strip()
            if path in d:  # a dict would keep the last values only
                _fail(f"{opt} {path}: parameter appears twice; give all its values in one {opt} {path}=V1,V2,...")
            if path == "simulation.seed":  # each run's seed is set by the sweep, over this value
                _fail(f"{opt} {path}: the sweep sets each run's seed; give the seeds with --seeds "
                      f"(e.g. --seeds {values.strip() or '1,2'})")
            d[path] = sweep_mod.parse_values(values)
            if not d[path]:
                _fail(f"{opt} {path}: no values (the sweep would run nothing); expected PATH=V1,V2,...")
            dup = _first_duplicate(d[path]) if opt == "--set" else None  # --zip: the pairs (below)
            if dup is not None:
                _fail(f"{opt} {path}: value {dup} appears twice (the same runs twice)")
        return d

    grid, zipped = params(set_, "--set"), params(zip_, "--zip")
    if not grid and not zipped and plan is None and seeds is None:
        _fail("nothing to sweep: give --set, --zip, --plan or --seeds")
    try:
        seed_list = [int(x) for x in seeds.split(",")] if seeds is not None and seeds.strip() else [] if seeds is not None else None
    except ValueError:
        _fail(f"--seeds {seeds!r}: expected comma-separated integers")
        return
    if seed_list is not None:
        if not seed_list:
            _fail(f"--seeds {seeds!r}: expected comma-separated integers, at least one")
        bad = [x for x in seed_list if not 0 <= x < 2**63]
        if bad:
            _fail(f"--seeds: expected integers from 0 to 2^63 - 1, got {bad[0]}")
        if _first_duplicate(seed_list) is not None:
            _fail(f"--seeds: seed {_first_duplicate(seed_list)} appears twice (the same runs twice)")
    if keep not in (None, "series"):
        _fail(f"--keep {keep!r}: expected 'series'")
    if workers is not None and workers < 1:
        _fail(f"--workers: expected at least 1 worker process, got {workers}")
    if workers is not None and scheduler is not None:
        _fail("--workers: has no effect with --scheduler (the cluster's workers run the sweep); give one of them")
    if scheduler_timeout is not None:
        if scheduler is None:
            _fail("--scheduler-timeout: has no effect without --scheduler (local processes need no connection)")
        if not math.isfinite(scheduler_timeout) or scheduler_timeout <= 0:
            _fail(f"--scheduler-timeout: expected a positive number of seconds, got {scheduler_timeout}")
    if out is not None:
        _check_table_out(out)
    try:
        check_store_path(store)  # before the sweep, not after it
    except NotAStore as e:
        _fail(f"--store: {e}")
    try:
        with warnings.catch_warnings(record=True) as caught, \
                Progress(TextColumn("[bold]sweep"), BarColumn(), TextColumn("{task.fields[runs]}"),
                         TimeElapsedColumn(), console=console) as prog:
            warnings.simplefilter("always")
            # Until the sweep has checked every point, the number of runs is not known.
            task = prog.add_task("sweep", total=None, runs="checking the points")
            table = sweep_mod.sweep(scenario, grid, seeds=seed_list, store=store, scheduler=scheduler,
                                    scheduler_timeout_s=scheduler_timeout, workers=workers, zip=zipped or None,
                                    plan=plan, keep=[keep] if keep else (),
                                    progress=lambda d, n: prog.update(task, completed=d, total=n, runs=f"{d}/{n} runs"))
    except (_native.ScenarioError, ParameterError, PlanError, StoreLocked, NotAStore) as e:
        _fail(str(e))
        return
    except sweep_mod.SchedulerError as e:
        _fail(f"--scheduler: {e}")
        return
    for w in caught:
        console.print(f"[yellow]warning:[/] {escape(str(w.message))}", highlight=False, soft_wrap=True)
    if out is not None:
        _check_table_out(out)  # again: the sweep ran for a while
        _make_parent(out, "--out")
        sweep_mod.write_table(table, out)
    out_console.print(table.to_string(index=False))
    out_console.print(f"stored in {store}" + (f"; series in {store}.series/" if keep else ""))


@store_app.command("merge")
def store_merge(store: Annotated[Path, typer.Argument(help="The DuckDB store.")]) -> None:
    """Merge runs left in STORE.spool/ (when the store was locked too long) into the store."""
    from .store import NotAStore, Store

    try:
        st = Store(store)
    except NotAStore as e:
        _fail(str(e))
        return
    if not st.spool.is_dir():
        out_console.print(f"nothing to merge: {st.spool}/ does not exist")
        return
    n = st.merge()
    out_console.print(f"merged {n} run(s) into {store}")


@app.command()
def reproduce(
    name: Annotated[str, typer.Argument(help="Reproduction name, or 'all'.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the reports.")] = Path("results/reproductions"),
    quick: Annotated[bool, typer.Option(help="Shortened runs (for smoke tests).")] = False,
) -> None:
    """Run a seed document's experiments and write a report beside the published numbers."""
    from . import reproduce as rep

    todo = rep.names() if name == "all" else [name]
    if name != "all" and name not in rep.REPRODUCTIONS:
        _fail(f"unknown reproduction {name!r}; available: {', '.join(rep.names()) or 'none'}")
    if out.exists() and not out.is_dir():
        _fail(f"--out: {out} exists and is not a directory; expected a directory for the reports")
    reports = {}
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.fields[label]}"),
                  TimeElapsedColumn(), console=console) as prog:
        for n in todo:
            task = prog.add_task(n, total=1.0, label="")

            def cb(label: str, frac: float, task=task) -> None:
                prog.update(task, completed=frac, label=label)

            reports[n] = rep.run(n, out / n, quick=quick, progress=cb)
            prog.update(task, completed=1.0, label=f"report: {reports[n]} (+ .html)")
    if name == "all":
        out_console.print(f"index: {rep.write_index(out, reports)}")


@app.command()
def schema(out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the schema here instead of stdout.")] = None) -> None:
    """Print the JSON Schema of the scenario format (for editors; the docs copy is docs/scenario.schema.json)."""
    text = _native.json_schema() + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        from . import atomic

        if out.is_dir():
            _fail(f"--out: {out} is a directory; expected a file name for the schema (e.g. scenario.schema.json)")
        if out.exists() and not _is_json_schema(out):
            _fail(f"--out: {out} exists and is not a JSON Schema (no \"$schema\" key): not replaced; "
                  "choose another path or remove it")
        _make_parent(out, "--out")
        atomic.write_text(out, text)


def _is_json_schema(path: Path) -> bool:
    """True if ``path`` holds a JSON Schema (a previous ``schema --out``), which may be replaced."""
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return False
    return isinstance(d, dict) and "$schema" in d


@app.command()
def kinds() -> None:
    """List the names each algorithm family accepts (from the engine's registry) and their pages."""
    from .registry import FAMILIES, PAGES_ELSEWHERE, kinds as registry_kinds
    for family, names in registry_kinds().items():
        folder = FAMILIES[family][1]
        pages = f"docs/{folder}/<name>.md" if folder else PAGES_ELSEWHERE[family]
        out_console.print(f"{family} ({escape(pages)}): {', '.join(names)}")
    out_console.print("Whether a part draws random numbers depends on its settings: "
                      "`pinchpoint validate FILE` lists a scenario's.")


@app.command()
def version() -> None:
    """Print the version (also: pinchpoint --version)."""
    out_console.print(_native.__version__)


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # pragma: no cover
        sys.exit(0)


if __name__ == "__main__":
    main()
