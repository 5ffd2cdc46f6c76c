"""CPU and wall seconds of each phase of `pinchpoint run FILE --out DIR` on a compact dumbbell
file (issue 13, "Build and serialisation" in bench/README.md).

    .venv/bin/python bench/cli_phases.py N [--dir DIR]

writes DIR/dN.toml once (nodes; links with rate, delay and the bottleneck queue; flows with
name, ends, ``start_jitter = "100ms"`` and a bulk workload; 1 simulated second), then makes the
same calls as the CLI (its summary tables printed into a buffer) and prints, for each,
``time.process_time`` (CPU time of all the process's threads, which the machine's load enters
less) and ``time.perf_counter`` (wall time: the build writes the resolved scenario and the run
key's hash on a second thread, and the Parquet files are written on as many threads as Arrow's
CPU pool has, so wall time can be below CPU time)."""

from __future__ import annotations

import argparse
import io
import shutil
import time
from pathlib import Path


def write_dumbbell(path: Path, n: int) -> None:
    out = ['[simulation]\nduration = "1s"\n', '[[nodes]]\nname = "A"\nkind = "router"\n',
           '[[nodes]]\nname = "B"\nkind = "router"\n']
    out += [f'[[nodes]]\nname = "s{i}"\n[[nodes]]\nname = "d{i}"\n' for i in range(n)]
    out.append('[[links]]\na = "A"\nb = "B"\nrate = "100Mbps"\ndelay = "10ms"\n'
               'queue = { kind = "droptail", limit_pkts = 100 }\n')
    out += [f'[[links]]\na = "s{i}"\nb = "A"\nrate = "1Gbps"\ndelay = "1ms"\n'
            f'[[links]]\na = "B"\nb = "d{i}"\nrate = "1Gbps"\ndelay = "1ms"\n' for i in range(n)]
    out += [f'[[flows]]\nname = "f{i}"\nsrc = "s{i}"\ndst = "d{i}"\nstart_jitter = "100ms"\n'
            'workload = { kind = "bulk" }\n' for i in range(n)]
    path.write_text("".join(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--dir", type=Path, default=Path("/tmp"))
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    path = a.dir / f"d{a.n}.toml"
    if not path.exists():
        write_dumbbell(path, a.n)
    t, w = time.process_time(), time.perf_counter()
    laps: list[tuple[str, float, float]] = []

    def lap(what: str) -> None:
        nonlocal t, w
        now, wall = time.process_time(), time.perf_counter()
        laps.append((what, now - t, wall - w))
        t, w = now, wall

    from pinchpoint import api, cli
    from pinchpoint.results import Results
    lap("import (pinchpoint, its CLI)")
    sim = api.load(path)
    lap("parse + validate + build + resolved scenario")
    sim.run_until(sim.end_s)
    lap("event loop")
    raw = sim.results()
    res = Results(raw, sim.resolved_toml_buffer())
    lap("results tables to Python")
    res._key = api.run_key_of(sim, int(raw["meta"]["seed"]))
    res.key  # noqa: B018
    lap("run key")
    out = a.dir / f"out{a.n}"
    shutil.rmtree(out, ignore_errors=True)
    res.write(out)
    lap("Results.write (Parquet, scenario, meta)")
    sink = cli.Console(file=io.StringIO(), width=160)
    for table in cli.summary_tables(res):
        sink.print(table)
    sink.print(cli.transfers_line(res))
    lap("summary tables (as `pinchpoint run` prints)")
    print(f"{'phase':48s} {'CPU s':>7s} {'wall s':>7s}")
    for what, cpu, wall in laps:
        print(f"{what:48s} {cpu:7.2f} {wall:7.2f}")
    beyond = [(cpu, wall) for what, cpu, wall in laps if what != "event loop"]
    print(f"{'total beyond the event loop':48s} {sum(c for c, _ in beyond):7.2f} {sum(w for _, w in beyond):7.2f}")
    print(f"resolved scenario {len(sim.resolved_toml_buffer()) / 1e6:.1f} MB, key {res.key}")


if __name__ == "__main__":
    main()
