"""Runs the bundled examples and the benchmark dumbbells into a directory, or compares two such
directories (or two reproduction output directories) table by table, column by column.

    python bench/compare_results.py run OUT          # examples + dumbbell N=10,100 (2 s)
    python bench/compare_results.py compare BASE NEW [--allow links.utilisation ...]

Used to show that a refactoring of the engine leaves every result bit-identical: floats are
compared by their bit patterns (NaN equal to NaN), integers and strings exactly. Every Parquet
and CSV file under BASE must exist under NEW with the same columns and rows. `--allow
TABLE.COLUMN` lists columns expected to differ; their differences are printed, not failed.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
PINCHPOINT = ROOT / ".venv" / "bin" / "pinchpoint"


def run_all(out: Path) -> None:
    from pinchpoint import _native

    out.mkdir(parents=True, exist_ok=True)
    scenarios = sorted((ROOT / "scenarios" / "examples").glob("*.toml"))
    for n in (10, 100):
        p = out / f"bench_dumbbell_{n}.toml"
        import json

        import tomli_w

        p.write_text(tomli_w.dumps(json.loads(_native.preset_dumbbell(n, 2.0))))
        scenarios.append(p)
    for sc in scenarios:
        dest = out / sc.stem
        subprocess.run([str(PINCHPOINT), "run", str(sc), "--out", str(dest)], check=True,
                       stdout=subprocess.DEVNULL)
        print("ran", sc.name)


def load(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def same(a: pd.Series, b: pd.Series) -> np.ndarray:
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        x = a.to_numpy(dtype=np.float64)
        y = b.to_numpy(dtype=np.float64)
        return (x.view(np.uint64) == y.view(np.uint64)) | (np.isnan(x) & np.isnan(y))
    return (a.astype(str).to_numpy() == b.astype(str).to_numpy())


def compare(base: Path, new: Path, allow: set[str]) -> int:
    failures = 0
    files = sorted(p for p in base.rglob("*") if p.suffix in (".parquet", ".csv"))
    if not files and not any(base.rglob('*.md')):
        print(f"no tables under {base}")
        return 1
    cols_checked = 0
    for f in files:
        rel = f.relative_to(base)
        g = new / rel
        if not g.exists():
            print(f"MISSING {rel}")
            failures += 1
            continue
        a, b = load(f), load(g)
        if list(a.columns) != list(b.columns) or len(a) != len(b):
            print(f"SHAPE {rel}: {list(a.columns)} x {len(a)} vs {list(b.columns)} x {len(b)}")
            failures += 1
            continue
        for c in a.columns:
            cols_checked += 1
            eq = same(a[c], b[c])
            if eq.all():
                continue
            key = f"{rel.stem}.{c}"
            rows = np.flatnonzero(~eq)
            tag = "ALLOWED" if key in allow else "DIFF"
            print(f"{tag} {rel}:{c}: {len(rows)} of {len(a)} rows differ")
            for r in rows[:5]:
                print(f"    row {r}: {a[c].iloc[r]!r} -> {b[c].iloc[r]!r}")
            if key not in allow:
                failures += 1
    others = sorted(p for p in base.rglob("*") if p.suffix in (".md", ".png"))
    for f in others:
        rel = f.relative_to(base)
        g = new / rel
        if not g.exists() or g.read_bytes() != f.read_bytes():
            print(f"DIFF {rel}: {'missing' if not g.exists() else 'bytes differ'}")
            failures += 1
    print(f"{len(files)} tables, {cols_checked} columns compared, {len(others)} reports/figures compared byte for byte, "
          f"{failures} unexpected differences")
    return 1 if failures else 0


def main() -> int:
    if len(sys.argv) >= 3 and sys.argv[1] == "run":
        run_all(Path(sys.argv[2]))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "compare":
        allow = set()
        rest = sys.argv[4:]
        while rest:
            if rest[0] == "--allow" and len(rest) > 1:
                allow.add(rest[1])
                rest = rest[2:]
            else:
                print(__doc__)
                return 2
        return compare(Path(sys.argv[2]), Path(sys.argv[3]), allow)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
