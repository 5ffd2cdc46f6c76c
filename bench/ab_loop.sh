#!/usr/bin/env bash
# Loop wall time of two (or more) builds of the bench dumbbell, run alternately so that both see
# the same machine: a host's speed drifts by 10 % or more within an hour, so figures taken at
# different times do not compare (bench/README.md, "(round 9)").
#
#   bench/ab_loop.sh [--runs R] [--secs S] [--jitter MS] [--per-flow-mbps X] N BIN_A BIN_B [BIN...]
#
# For each of R rounds (default 7) it runs every BIN once as `BIN N S MS` (default 10 simulated
# seconds, 100 ms start jitter: the large-N setting of issue 13; with --per-flow-mbps, the dumbbell
# whose bottleneck grows with N, `per_flow_mbps=X`) and keeps `wall_s`, the loop's
# wall time that the example prints. Then it prints, per binary, the median and the minimum and
# checks that every run of every binary printed the same summary (events, hops, goodput,
# fairness, drops): a speed change that moves a result is a model change, not a speed-up. Build
# the binaries first, e.g. `cargo build --release -p pinchpoint-core --example dumbbell` and copy
# `target/release/examples/dumbbell` aside before and after the change.
set -euo pipefail
runs=7; secs=10; jitter=100; extra=()
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    --jitter) jitter=$2; shift 2 ;;
    --per-flow-mbps) extra=("per_flow_mbps=$2"); shift 2 ;;
    *) echo "ab_loop.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 3 ]] || { echo "usage: bench/ab_loop.sh [--runs R] [--secs S] [--jitter MS] [--per-flow-mbps X] N BIN_A BIN_B [BIN...]" >&2; exit 2; }
n=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < runs; r++)); do
  i=0
  for bin in "$@"; do
    "$bin" "$n" "$secs" "$jitter" "${extra[@]}" 2>&1 | tail -n 1 >> "$tmp/$i"
    i=$((i + 1))
  done
done
python3 - "$tmp" "$n" "$@" <<'PY'
import re, statistics, sys
tmp, n, bins = sys.argv[1], sys.argv[2], sys.argv[3:]
summaries = set()
for i, b in enumerate(bins):
    lines = open(f"{tmp}/{i}").read().splitlines()
    walls = sorted(float(re.search(r"wall_s=([0-9.]+)", l).group(1)) for l in lines)
    for l in lines:
        summaries.add(re.sub(r"(wall_s|hops_per_s)=\S+ ", "", l))
    print(f"{b} N={n}: median {statistics.median(walls):.3f} s, min {walls[0]:.3f} s, runs {' '.join(f'{w:.3f}' for w in walls)}")
if len(summaries) != 1:
    print("the binaries' summaries differ:", *sorted(summaries), sep="\n  ")
    sys.exit(1)
print("summary (the same for every run):", summaries.pop())
PY
