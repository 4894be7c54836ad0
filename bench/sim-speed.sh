#!/usr/bin/env bash
# What a simulation costs on this machine (issue 20's "fast" goal): for each
# "RANKS:N:NB:PxQ" in RUNS, hplx sim of SPEC is timed (wall seconds) and its
# memory sampled at its 2nd second and every SAMPLE seconds (default 20;
# the simulator's proportional set size, PSS: SMPI's shared buffers map the
# same pages many times, which RSS would count again each time). Prints one line per run.
# With LIMIT (seconds), a run still going after LIMIT is stopped and its
# line says how far it got (the last progress line's iteration and share of
# the flops), for runs too long to finish.
#   SPEC=tests/sim/cpu-node.toml RUNS="16:20000:256:4x4 64:40000:256:8x8" bench/sim-speed.sh
#   LIMIT=1200 RUNS="1024:500000:128:32x32" SPEC=bench/specs/cpu-cluster-32.toml bench/sim-speed.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
SPEC=${SPEC:-tests/sim/cpu-node.toml}
RUNS=${RUNS:-"16:20000:256:4x4 64:40000:256:8x8 256:80000:256:16x16"}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
LIMIT=${LIMIT:-0}
SAMPLE=${SAMPLE:-20}
OUT=${OUT:-/tmp/hplx-sim-speed}
mkdir -p "$OUT"

printf "%6s %9s %5s %7s %10s %10s %10s %12s\n" ranks N NB grid "wall s" "PSS MiB" "sim s" "sim Gflops"
for run in $RUNS; do
  IFS=: read -r ranks n nb grid <<< "$run"
  json=$OUT/$ranks-$n-$nb.json
  (
    flock -x 9
    start=$(date +%s.%N)
    log=$OUT/$ranks-$n-$nb.log
    "$HPLX" sim "$SPEC" --n "$n" --nb "$nb" --grid "$grid" --json "$json" > "$log" 2>&1 &
    pid=$!
    peak=0
    tick=0
    stopped=0
    while kill -0 "$pid" 2> /dev/null; do
      if [ "$LIMIT" -gt 0 ] && [ "$(echo "$(date +%s.%N) - $start > $LIMIT" | bc)" = 1 ]; then
        pkill -P "$pid" 2> /dev/null || true
        pkill -f "smpimain.*hplx-sim-rank" 2> /dev/null || true
        kill "$pid" 2> /dev/null || true
        stopped=1
        break
      fi
      # smpimain is the simulator (hplx waits for it). Its memory at the
      # 2nd second, then every SAMPLE seconds: reading smaps_rollup walks
      # all of its mappings and holds them locked, and once a second made
      # a 1024-rank simulation take 1.45 times as long.
      if [ "$tick" = 2 ] || [ $((tick % SAMPLE)) = 0 ]; then
        for p in $(pgrep -f "smpimain.*hplx-sim-rank" || true); do
          pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2> /dev/null || echo 0)
          [ "${pss:-0}" -gt "$peak" ] && peak=$pss
        done
      fi
      tick=$((tick + 1))
      sleep 1
    done
    if [ "$stopped" = 1 ]; then
      wait "$pid" 2> /dev/null || true
      last=$(grep -o "[0-9.]*% of flops, iteration [0-9]*/[0-9]*" "$log" | tail -1)
      printf "%6s %9s %5s %7s %10s %10.0f   stopped: %s\n" "$ranks" "$n" "$nb" "$grid" \
        ">$LIMIT" "$(echo "$peak / 1024" | bc)" "${last:-no progress line}"
      exit 0
    fi
    wait "$pid" || { echo "run $run failed: $(tail -1 "$log")"; exit 1; }
    end=$(date +%s.%N)
    python3 - "$json" "$ranks" "$n" "$nb" "$grid" "$start" "$end" "$peak" <<'PY'
import json, sys
j, ranks, n, nb, grid, start, end, peak = sys.argv[1:]
t = json.load(open(j))["tests"][0]
print(f"{ranks:>6} {n:>9} {nb:>5} {grid:>7} {float(end) - float(start):10.1f} "
      f"{int(peak) / 1024:10.0f} {t['time_s']:10.2f} {t['gflops']:12.1f}")
PY
  ) 9> "$LOCK"
done
