#!/usr/bin/env bash
# Issue 13's flatness in counts rather than wall time: for each N, the run loop alone
# (`Simulation::run_until`) of the bench dumbbell with start jitter, under callgrind with its
# cache simulation, and per packet-hop its instructions, L1 data misses, last-level misses and
# L1 instruction misses, each also as a ratio to the first N given (where that N's count is
# at least 0.1 a hop).
#
#   bench/flatness.sh [--secs S] [--jitter MS] [--ll BYTES,WAYS] [--d1 BYTES,WAYS] BIN N...
#
# Why: on a shared virtual machine the wall time of one binary on one scenario moved from 0.132
# to 0.244 s over 31 runs (bench/README.md, fifteenth session), so wall-time ratios between two
# sizes need many runs and still drift with the neighbours; these counts are exact and the same
# on every run of one binary. They show where a large N's cost comes from (more instructions per
# hop, or lines no cache holds), not how long a miss takes on a given host. Set --ll to the
# host's per-core L2 (`lscpu`: L2 of one instance) to count what leaves the core's own caches.
# Defaults: 10 simulated seconds, 100 ms jitter (the bench's large-N setting), L1 data cache
# 32 KiB 8-way, last level this host's per-core L2 as Linux describes it
# (/sys/devices/system/cpu/cpu0/cache/index2: 2 MiB 16-way on the Intel host of 2026-12-02), or
# 512 KiB 8-way (the AMD EPYC host of 2026-11-29) where that is not readable. The level used is
# printed first, so a count names the cache it was taken against.
# Build BIN first: cargo build --release -p pinchpoint-core --example dumbbell
set -euo pipefail
secs=10; jitter=100; ll=""; d1="32768,8"
l2=/sys/devices/system/cpu/cpu0/cache/index2
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --secs) secs=$2; shift 2 ;;
    --jitter) jitter=$2; shift 2 ;;
    --ll) ll=$2; shift 2 ;;
    --d1) d1=$2; shift 2 ;;
    *) echo "flatness.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 2 ]] || { echo "usage: bench/flatness.sh [--secs S] [--jitter MS] [--ll BYTES,WAYS] [--d1 BYTES,WAYS] BIN N..." >&2; exit 2; }
bin=$1; shift
if [[ -z $ll ]]; then
  ll="524288,8"
  if [[ -r $l2/size && -r $l2/ways_of_associativity && $(cat "$l2/level" 2>/dev/null) == 2 ]]; then
    size=$(cat "$l2/size")
    case $size in
      *K) bytes=$(( ${size%K} * 1024 )) ;;
      *M) bytes=$(( ${size%M} * 1048576 )) ;;
      *) bytes=$size ;;
    esac
    ll="$bytes,$(cat "$l2/ways_of_associativity")"
  fi
fi
echo "flatness.sh: L1d $d1, last level $ll (bytes,ways)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for n in "$@"; do
  valgrind --tool=callgrind --cache-sim=yes --D1="$d1,64" --LL="$ll,64" \
    --toggle-collect='*Simulation::run_until*' --callgrind-out-file="$tmp/$n.cg" \
    "$bin" "$n" "$secs" "$jitter" > "$tmp/$n.out" 2>&1
done
python3 - "$tmp" "$@" <<'PY'
import re, sys
tmp, ns = sys.argv[1], sys.argv[2:]
rows = []
for n in ns:
    events = totals = None
    for line in open(f"{tmp}/{n}.cg"):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith(("summary:", "totals:")):
            totals = [int(x) for x in line.split()[1:]]
    c = dict(zip(events, totals))
    out = open(f"{tmp}/{n}.out").read()
    hops = int(re.search(r"packet_hops=(\d+)", out).group(1))
    per = {
        "instructions": c["Ir"] / hops,
        "d1_misses": (c["D1mr"] + c["D1mw"]) / hops,
        "ll_misses": (c["DLmr"] + c["DLmw"]) / hops,
        "i1_misses": c["I1mr"] / hops,
    }
    rows.append((n, hops, per))
base = rows[0][2]
for n, hops, per in rows:
    # A ratio to a count near zero says nothing: shown only where the first N's count is at
    # least 0.1 a hop.
    cells = " ".join(f"{k}_per_hop={v:.2f} ({v / base[k]:.2f}x)" if base[k] >= 0.1 else f"{k}_per_hop={v:.2f}" for k, v in per.items())
    print(f"N={n} hops={hops} {cells}")
PY
