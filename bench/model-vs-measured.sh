#!/usr/bin/env bash
# The performance model against real hplx lu runs on this machine. For each
# N and repetition:
#   1 rank x 2 threads: OMP_NUM_THREADS=2 hplx lu --n N --nb NB --grid 1x1
#   2 ranks x 1 thread: mpirun --bind-to core -n 2 hplx lu --n N --nb NB --grid 1x2
# each run right after its own calibration (`hplx model calibrate`, DGEMM,
# the CPU terms, MPI alpha/beta), the two under one exclusive hold of the CPU
# lock so that nothing else of this machine's sessions runs between them:
# the DGEMM rate of this shared machine wanders by 10% over minutes, and a
# calibration minutes away from its run measures another machine. Each run
# is predicted with its own calibration (machine-N-GRID-rR.toml) and with
# the per-key median of all of them (bench/model-median-spec.py), and the
# table also shows the DGEMM rate each run itself saw (from its record),
# so that the model's error and the machine's drift can be told apart
# (bench/model-run-rates.py). Runs whose JSON is already in OUT are not
# repeated, so a campaign can be split into pieces (each step here is one
# calibration + one run, under 2 minutes at N = 20000); ONLY_RUNS=1 stops
# after the runs, ONLY_MODEL=1 only predicts and tabulates.
#   bench/model-vs-measured.sh              # N = 5000 10000 15000 20000, REPS = 3
#   NS="5000 10000" REPS=1 bench/model-vs-measured.sh
#   SPEC=machine.toml OUT=dir bench/model-vs-measured.sh   # no calibration: this spec
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
NS=${NS:-"5000 10000 15000 20000"}
NB=${NB:-192}
REPS=${REPS:-3}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
OUT=${OUT:-bench/results/model-vs-measured-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ -z "${ONLY_MODEL:-}" ]; then
  for rep in $(seq 1 "$REPS"); do
    for n in $NS; do
      for grid in 1x1 1x2; do
        base=$OUT/lu-$n-$grid-r$rep
        [ -f "$base.json" ] && continue
        cal=$OUT/machine-$n-$grid-r$rep.toml
        if [ "$grid" = 1x1 ]; then
          run="env OMP_NUM_THREADS=2 $HPLX lu --n $n --nb $NB --grid 1x1"
        else
          run="mpirun --bind-to core -n 2 $HPLX lu --n $n --nb $NB --grid 1x2"
        fi
        # Unbound calibration ranks, so rank 0's 2-thread DGEMM gets both cores.
        if [ -z "${SPEC:-}" ]; then
          flock -x "$LOCK" sh -c "
            date -u +%FT%TZ >'$base.when'
            mpirun --bind-to none -n 2 '$HPLX' model calibrate -o '$cal' --nb '$NB' >'$OUT/calibrate-$n-$grid-r$rep.txt' 2>&1
            $run --json '$base.json' >'$base.txt' 2>&1"
        else
          flock -x "$LOCK" sh -c "date -u +%FT%TZ >'$base.when'; $run --json '$base.json' >'$base.txt' 2>&1"
        fi
        echo "ran $base: $(awk '/^W[RC][0-9]/ {g=$7} END {print g}' "$base.txt") Gflops"
      done
    done
  done
  [ -n "${ONLY_RUNS:-}" ] && exit 0
fi

median=${SPEC:-$OUT/machine.toml}
if [ -z "${SPEC:-}" ]; then
  python3 bench/model-median-spec.py "$median" "$OUT"/machine-*-r*.toml
fi
for n in $NS; do
  for grid in 1x1 1x2; do
    threads=$([ "$grid" = 1x1 ] && echo 2 || echo 1)
    "$HPLX" model "$median" --n "$n" --nb "$NB" --grid "$grid" --threads "$threads" \
      --json "$OUT/model-$n-$grid.json" --iterations >"$OUT/model-$n-$grid.txt"
    for f in "$OUT"/machine-"$n"-"$grid"-r*.toml; do
      [ -f "$f" ] || continue
      rep=${f##*-r}
      rep=${rep%.toml}
      "$HPLX" model "$f" --n "$n" --nb "$NB" --grid "$grid" --threads "$threads" \
        --json "$OUT/model-$n-$grid-r$rep.json" --iterations >/dev/null
    done
  done
done
python3 bench/model-run-rates.py "$OUT" $NS | tee "$OUT/table.txt"
echo "results in $OUT"
