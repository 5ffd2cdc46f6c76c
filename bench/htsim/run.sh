#!/usr/bin/env bash
# Builds htsim with a hop counter and the bench dumbbell driver (bench/htsim/dumbbell.cpp), then
# runs it beside ours, alternately, for each N (bench/README.md, "twenty-first session").
#
#   bench/htsim/run.sh HTSIM_SRC_DIR [--runs R] [--secs S] N...
#
# HTSIM_SRC_DIR is a checkout of htsim (github.com/Broadcom/csg-htsim, the commit measured was
# 841d9e7); its sim/ directory is copied to a scratch directory and two lines are added there: a
# counter of packets leaving a pipe (a packet-hop, the event our `packet_hops` counts) and a switch
# that silences the line htsim prints at every retransmission timeout (thousands inside the timed
# loop at large N). Our side is target/release/examples/dumbbell (build it first:
# cargo build --release -p pinchpoint-core --example dumbbell). Prints each run's summary line.
set -euo pipefail
src=${1:?usage: bench/htsim/run.sh HTSIM_SRC_DIR [--runs R] [--secs S] N...}; shift
runs=3; secs=10
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --secs) secs=$2; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
ours=$root/target/release/examples/dumbbell
work=${HTSIM_WORK:-$(mktemp -d)}
if [[ ! -x $work/htsim_dumbbell ]]; then
  cp -r "$src/sim" "$work/sim"
  sed -i '0,/^Pipe::Pipe/s//uint64_t g_pp_pipe_hops = 0;\n\nPipe::Pipe/' "$work/sim/pipe.cpp"
  sed -i 's/^\([[:space:]]*\)_count--;[[:space:]]*$/\1_count--;\n\1g_pp_pipe_hops++;/' "$work/sim/pipe.cpp"
  sed -i '0,/^#define KILL_THRESHOLD/s//bool g_pp_tcp_verbose = true;\n#define KILL_THRESHOLD/' "$work/sim/tcp.cpp"
  sed -i 's/^\( *\)cout << *"Resending SYN/\1if (g_pp_tcp_verbose) cout << "Resending SYN/; s/^\( *\)cout << *"At " << now/\1if (g_pp_tcp_verbose) cout << "At " << now/' "$work/sim/tcp.cpp"
  grep -q 'g_pp_pipe_hops++' "$work/sim/pipe.cpp" && grep -q 'if (g_pp_tcp_verbose) cout << "At' "$work/sim/tcp.cpp" \
    || { echo "run.sh: htsim's sources differ from the measured commit; add the counter by hand" >&2; exit 1; }
  make -C "$work/sim" libhtsim.a > "$work/build.log" 2>&1
  g++ -Wall -std=c++11 -O3 -I "$work/sim" "$here/dumbbell.cpp" -o "$work/htsim_dumbbell" -L "$work/sim" -lhtsim
fi
echo "htsim build in $work (reuse it with HTSIM_WORK=$work)"
for n in "$@"; do
  for ((r = 0; r < runs; r++)); do
    "$work/htsim_dumbbell" "$n" "$secs" 100 1
    if [[ -x $ours ]]; then "$ours" "$n" "$secs" 100 | sed 's/^/sim=pinchpoint /'; fi
  done
done
