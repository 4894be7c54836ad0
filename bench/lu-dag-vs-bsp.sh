#!/usr/bin/env bash
# The dag schedule (seed 004) against the bsp look-ahead driver: hplx lu on
# each grid and N with DEPTH 0, DEPTH 1, DEPTH 2, DEPTH 1 with the split
# update (--split 0.5, bsp's best on 2x1), dag with priorities and dag
# without, the six runs alternating, REPS rounds. Prints one line per run,
# then per grid and N the median Gflops of each schedule, the best bsp
# look-ahead (DEPTH >= 1, split or not) and the ratios the goal is stated in:
# dag / best look-ahead (>= 1.00 wanted) and dag / DEPTH 0 (>= 1.05 at
# N <= 5000).
#
#   bench/lu-dag-vs-bsp.sh                          # grids 1x2 2x1 2x2, N 2000 5000 10000
#   GRIDS="1x2" NS="2000" REPS=5 bench/lu-dag-vs-bsp.sh
#   THREADS=2 bench/lu-dag-vs-bsp.sh                # threads per rank (default: hplx's choice)
#   NBS="96 128 192" bench/lu-dag-vs-bsp.sh         # an NB sweep (NB=... for one NB)
#   SCHEDULES="depth1 dag dag-block" bench/lu-dag-vs-bsp.sh  # a subset of the runs
#
# dag-block is the dag schedule with one update task per NB-wide block
# (--dag-group-columns 1), the cut before the grouped update tasks;
# dag-noearly the dag schedule without the early rest swap of one process
# column (--dag-early-swap off, the blocking swap before it).
# Long campaigns go in pieces (one grid and N per call) so the shared
# machine is not held for long: each call prints its own medians.
#
# RUNS=FILE also appends every run's line to FILE, and the medians are
# taken over all of FILE: a campaign split into pieces (REPS=1 each) gets
# the medians of all its rounds; REPS=0 only prints them.
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
NBS=${NBS:-$NB}
SCHEDULES=${SCHEDULES:-"depth0 depth1 depth2 depth1-split dag dag-noprio"}
REPS=${REPS:-3}
THREADS=${THREADS:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_MAX_TASK_PRIORITY=4
[[ -x $HPLX ]] || { echo "lu-dag-vs-bsp: $HPLX not built (make build)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
RUNS=${RUNS:-$OUT/runs}
touch "$RUNS"

SETTINGS=(
  "depth0|--depth 0"
  "depth1|--depth 1"
  "depth2|--depth 2"
  "depth1-split|--depth 1 --split 0.5"
  "dag|--schedule dag --dag-priorities on"
  "dag-noprio|--schedule dag --dag-priorities off"
  "dag-block|--schedule dag --dag-priorities on --dag-group-columns 1"
  "dag-noearly|--schedule dag --dag-priorities on --dag-early-swap off"
)

for ((rep = 1; rep <= REPS; ++rep)); do
  for grid in $GRIDS; do
    np=$((${grid%x*} * ${grid#*x}))
    for n in $NS; do
      for nb in $NBS; do
        for s in "${SETTINGS[@]}"; do
          IFS='|' read -r name opts <<<"$s"
          [[ " $SCHEDULES " == *" $name "* ]] || continue
          threads=()
          [[ -n $THREADS ]] && threads=(--threads "$THREADS")
          # shellcheck disable=SC2086
          out=$(mpirun --oversubscribe -np "$np" --bind-to none "$HPLX" lu \
            --n "$n" --nb "$nb" --grid "$grid" "${threads[@]}" $opts --quiet)
          if grep -q FAILED <<<"$out"; then
            echo "lu-dag-vs-bsp: $grid N=$n NB=$nb $name FAILED the residual check" >&2
            exit 1
          fi
          gflops=$(awk '/^W/{print $NF}' <<<"$out")
          echo "$rep $grid $n $nb $name $gflops"
          echo "$grid $n $nb $name $gflops" >>"$RUNS"
        done
      done
    done
  done
done

echo
echo "median Gflops over the rounds in $RUNS"
python3 - "$RUNS" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    grid, n, nb, name, g = line.split()
    runs[(grid, int(n), int(nb), name)].append(float(g))
keys = sorted({(g, n, nb) for g, n, nb, _ in runs})
names = [x for x in ["depth0", "depth1", "depth2", "depth1-split", "dag", "dag-noprio",
                     "dag-block", "dag-noearly"] if any(k[3] == x for k in runs)]
LA = ("depth1", "depth2", "depth1-split")
print("%-5s %6s %4s " % ("grid", "N", "NB") + " ".join("%12s" % x for x in names)
      + " %12s %12s %12s" % ("dag/best-la", "dag/depth0", "noprio/best"))
for grid, n, nb in keys:
    med = {x: statistics.median(runs[(grid, n, nb, x)]) for x in names if runs[(grid, n, nb, x)]}
    best = max(med.get(x, 0) for x in LA)
    ratio = lambda a, b: "%12.3f" % (a / b) if a and b else "%12s" % "-"
    print("%-5s %6d %4d " % (grid, n, nb) + " ".join("%12.2f" % med.get(x, 0) for x in names)
          + " " + ratio(med.get("dag", 0), best) + " " + ratio(med.get("dag", 0), med.get("depth0", 0))
          + " " + ratio(med.get("dag-noprio", 0), best))
# The goal's comparison: each schedule at its best NB of the sweep.
print()
print("best NB of the sweep per schedule (median Gflops/NB)")
print("%-5s %6s " % ("grid", "N") + " ".join("%12s" % x for x in names)
      + " %12s %12s %12s  %s" % ("dag/best-la", "dag/depth0", "noprio/best", "best-la"))
for grid, n in sorted({(g, n) for g, n, _ in keys}):
    best = {}
    for x in names:
        cands = [(statistics.median(runs[(grid, n, nb, x)]), nb)
                 for g, nn, nb in keys if (g, nn) == (grid, n) and runs[(grid, n, nb, x)]]
        if cands:
            best[x] = max(cands)
    la_name = max([x for x in LA if x in best], key=lambda x: best[x], default="-")
    la = best.get(la_name, (0, 0))
    cell = lambda x: "%8.2f/%-3d" % best[x] if x in best else "%12s" % "-"
    ratio = lambda a, b: "%12.3f" % (a / b) if a and b else "%12s" % "-"
    g = lambda x: best.get(x, (0, 0))[0]
    print("%-5s %6d " % (grid, n) + " ".join(cell(x) for x in names)
          + " " + ratio(g("dag"), la[0]) + " " + ratio(g("dag"), g("depth0"))
          + " " + ratio(g("dag-noprio"), la[0]) + "  " + la_name)
PY
