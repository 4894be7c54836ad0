#!/usr/bin/env bash
# The dag schedule (seed 004) against the bsp look-ahead driver: hplx lu on
# each grid and N with DEPTH 0, DEPTH 1, DEPTH 2 (bsp), dag with priorities
# and dag without, the five runs alternating, REPS rounds. Prints one line
# per run, then per grid and N the median Gflops of each schedule, the best
# bsp look-ahead (DEPTH >= 1) and the ratios the goal is stated in:
# dag / best look-ahead (>= 1.00 wanted) and dag / DEPTH 0 (>= 1.05 at
# N <= 5000).
#
#   bench/lu-dag-vs-bsp.sh                          # grids 1x2 2x1 2x2, N 2000 5000 10000
#   GRIDS="1x2" NS="2000" REPS=5 bench/lu-dag-vs-bsp.sh
#   THREADS=2 bench/lu-dag-vs-bsp.sh                # threads per rank (default: hplx's choice)
#
# Every run must pass the residual check (a FAILED line stops the script).
# OMP_MAX_TASK_PRIORITY=4 is set for every run, so both schedules see the
# same environment and the dag schedule's priorities are honoured.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
GRIDS=${GRIDS:-"1x2 2x1 2x2"}
NS=${NS:-"2000 5000 10000"}
NB=${NB:-128}
REPS=${REPS:-3}
THREADS=${THREADS:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_MAX_TASK_PRIORITY=4
[[ -x $HPLX ]] || { echo "lu-dag-vs-bsp: $HPLX not built (make build)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

SETTINGS=(
  "depth0|--depth 0"
  "depth1|--depth 1"
  "depth2|--depth 2"
  "dag|--schedule dag --dag-priorities on"
  "dag-noprio|--schedule dag --dag-priorities off"
)

for ((rep = 1; rep <= REPS; ++rep)); do
  for grid in $GRIDS; do
    np=$((${grid%x*} * ${grid#*x}))
    for n in $NS; do
      for s in "${SETTINGS[@]}"; do
        IFS='|' read -r name opts <<<"$s"
        threads=()
        [[ -n $THREADS ]] && threads=(--threads "$THREADS")
        # shellcheck disable=SC2086
        out=$(mpirun --oversubscribe -np "$np" --bind-to none "$HPLX" lu --n "$n" --nb "$NB" \
          --grid "$grid" "${threads[@]}" $opts --quiet)
        if grep -q FAILED <<<"$out"; then
          echo "lu-dag-vs-bsp: $grid N=$n $name FAILED the residual check" >&2
          exit 1
        fi
        gflops=$(awk '/^W/{print $NF}' <<<"$out")
        echo "$rep $grid $n $name $gflops"
        echo "$grid $n $name $gflops" >>"$OUT/runs"
      done
    done
  done
done

echo
echo "median Gflops over $REPS rounds, NB=$NB"
python3 - "$OUT/runs" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    grid, n, name, g = line.split()
    runs[(grid, int(n), name)].append(float(g))
keys = sorted({(g, n) for g, n, _ in runs}, key=lambda k: (k[0], k[1]))
names = ["depth0", "depth1", "depth2", "dag", "dag-noprio"]
print("%-5s %6s " % ("grid", "N") + " ".join("%10s" % x for x in names)
      + " %12s %12s %12s" % ("dag/best-la", "dag/depth0", "noprio/best"))
for grid, n in keys:
    med = {x: statistics.median(runs[(grid, n, x)]) for x in names if runs[(grid, n, x)]}
    best = max(med.get("depth1", 0), med.get("depth2", 0))
    ratio = lambda a, b: "%12.3f" % (a / b) if b else "%12s" % "-"
    print("%-5s %6d " % (grid, n) + " ".join("%10.2f" % med.get(x, 0) for x in names)
          + " " + ratio(med.get("dag", 0), best) + " " + ratio(med.get("dag", 0), med.get("depth0", 0))
          + " " + ratio(med.get("dag-noprio", 0), best))
PY
