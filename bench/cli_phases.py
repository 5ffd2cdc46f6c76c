"""CPU seconds of each phase of `pinchpoint run FILE --out DIR` on a compact dumbbell file
(issue 13, "Build and serialisation" in bench/README.md).

    .venv/bin/python bench/cli_phases.py N [--dir DIR]

writes DIR/dN.toml once (nodes; links with rate, delay and the bottleneck queue; flows with
name, ends, ``start_jitter = "100ms"`` and a bulk workload; 1 simulated second), then makes the
same calls as the CLI and prints ``time.process_time`` for each (CPU time, so the machine's
load does not enter)."""

from __future__ import annotations

import argparse
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
    t = time.process_time()
    laps: list[tuple[str, float]] = []

    def lap(what: str) -> None:
        nonlocal t
        now = time.process_time()
        laps.append((what, now - t))
        t = now

    from pinchpoint import api
    from pinchpoint.results import Results
    lap("import")
    sim = api.load(path)
    lap("parse + validate + build + resolved scenario")
    sim.run_until(sim.end_s)
    lap("event loop")
    raw = sim.results()
    res = Results(raw, sim.resolved_toml)
    lap("results tables to Python")
    if hasattr(api, "run_key_of"):  # as api.run does (older versions: the text path in Results.key)
        res._key = api.run_key_of(sim, int(raw["meta"]["seed"]))
    res.key  # noqa: B018
    lap("run key")
    out = a.dir / f"out{a.n}"
    shutil.rmtree(out, ignore_errors=True)
    res.write(out)
    lap("Results.write (Parquet, scenario, meta)")
    for what, s in laps:
        print(f"{what:48s} {s:7.2f}")
    print(f"{'total beyond the event loop':48s} {sum(s for w, s in laps if w not in ('event loop',)):7.2f}")
    print(f"resolved scenario {len(sim.resolved_toml) / 1e6:.1f} MB, key {res.key}")


if __name__ == "__main__":
    main()
