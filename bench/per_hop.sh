#!/usr/bin/env bash
# Instructions (and, with --cache, cache misses) per packet-hop of the bench dumbbell, counted
# exactly by valgrind whatever the machine's load (bench/README.md, "Instructions per packet-hop").
#
#   bench/per_hop.sh [--cache] [--jitter MS] [--secs A,B] BIN N...
#
# For each N it runs BIN (target/release/examples/dumbbell) for A and B simulated seconds (default
# 2 and 6) and prints (count(B) - count(A)) / (hops(B) - hops(A)), which removes the build and the
# results. --cache runs cachegrind with the last level set to one core's L2 here (2 MiB, 16-way)
# and adds D1 and L2 misses per hop (reads plus writes); --jitter gives every flow that start
# jitter (the large-N runs use --jitter 100 --secs 1,3). Build BIN first:
#   cargo build --release -p pinchpoint-core --example dumbbell
# The build's own count is not the same from run to run (652.8 M and 659.0 M instructions for two
# runs of `dumbbell 10000 1 100` from one binary; the build's std hash maps are seeded at random),
# and at N = 10,000 that is about 50 per hop of the 2 s window: repeat the large-N runs, or count
# the loop alone (callgrind `--toggle-collect='*Simulation::run_until*'`).
set -euo pipefail
cache=0; jitter=0; secs="2,6"
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --cache) cache=1; shift ;;
    --jitter) jitter=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    *) echo "per_hop.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 2 ]] || { echo "usage: bench/per_hop.sh [--cache] [--jitter MS] [--secs A,B] BIN N..." >&2; exit 2; }
bin=$1; shift
a=${secs%,*}; b=${secs#*,}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for n in "$@"; do
  for s in "$a" "$b"; do
    if [[ $cache == 1 ]]; then
      valgrind --tool=cachegrind --cache-sim=yes --LL=2097152,16,64 --cachegrind-out-file="$tmp/$n.$s.cg" \
        "$bin" "$n" "$s" "$jitter" > "$tmp/$n.$s.out" 2>&1
    else
      valgrind --tool=callgrind --callgrind-out-file="$tmp/$n.$s.cg" "$bin" "$n" "$s" "$jitter" > "$tmp/$n.$s.out" 2>&1
    fi
  done
  python3 - "$tmp" "$n" "$a" "$b" "$cache" <<'PY'
import re, sys
tmp, n, a, b, cache = sys.argv[1:]
def counts(s):
    totals = None
    for line in open(f"{tmp}/{n}.{s}.cg"):
        if line.startswith(("summary:", "totals:")):
            totals = [int(x) for x in line.split()[1:]]
    hops = int(re.search(r"packet_hops=(\d+)", open(f"{tmp}/{n}.{s}.out").read()).group(1))
    return totals, hops
(ca, ha), (cb, hb) = counts(a), counts(b)
d = [y - x for x, y in zip(ca, cb)]
h = hb - ha
if cache == "1":
    # cachegrind's events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
    print(f"N={n} hops={h} instructions_per_hop={d[0] / h:.1f} d1_misses_per_hop={(d[4] + d[7]) / h:.2f} l2_misses_per_hop={(d[5] + d[8]) / h:.2f}")
else:
    print(f"N={n} hops={h} instructions_per_hop={d[0] / h:.1f}")
PY
done
