#!/usr/bin/env bash
# hplx tune on this machine against a measured sweep (issue 44's first
# goal): calibrate, tune for one node at N, run the tuned HPL.dat, and run
# every NB x grid of the sweep; the tuned choice should be within 3% of the
# sweep's best (medians of REPS runs) and its prediction within 5% of its
# own run.
#   bench/tune-vs-sweep.sh                    # N = 10000, NB 128 192 256, 1x2 and 2x1, REPS = 3
#   N=4000 REPS=1 BUDGET=30 OUT=/tmp/x bench/tune-vs-sweep.sh   # a smoke run
# Every timed run holds `flock -x $LOCK` (the machine is shared). The
# tuned run and the sweep alternate round by round, so a slow minute hits
# both. The tuned run starts as its batch script's mpirun line would, with
# its binding wrapper (hplx-bind.sh: OMPI_COMM_WORLD_LOCAL_RANK picks each
# rank's cpus); the sweep's 2-rank runs are bound a core each by mpirun
# (the same cpus the wrapper gives 2 ranks of a 2-core node).
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-$PWD/build/bin/hplx}
N=${N:-10000}
NBS=${NBS:-"128 192 256"}
GRIDS=${GRIDS:-"1x2 2x1"}
REPS=${REPS:-3}
BUDGET=${BUDGET:-120}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
OUT=${OUT:-$PWD/bench/results/$(date -u +%Y-%m-%d)-tune-vs-sweep}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "== calibrate ($(date -u +%H:%M:%S))"
[ -f "$OUT/cal.toml" ] || flock -x "$LOCK" mpirun --bind-to none -n 2 "$HPLX" model calibrate \
  -o "$OUT/cal.toml" > "$OUT/cal.log" 2>&1
echo "== tune ($(date -u +%H:%M:%S))"
mkdir -p "$OUT/tuned"
flock -x "$LOCK" "$HPLX" tune --calibrated "$OUT/cal.toml" --nodes 1 --n "$N" \
  --nbs "$(echo "$NBS" | tr ' ' ',')" --budget "$BUDGET" --launcher mpirun --out "$OUT/tuned" \
  --force --slurm-check off > "$OUT/tune.log" 2> "$OUT/tune.err"
grep -E "^chosen" "$OUT/tune.log"
ranks=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['chosen']; print(c['p']*c['q'])" "$OUT/tuned/tune.json")

# One run: NAME, the launcher's words up to hplx, then the hplx lu
# arguments; appends "NAME Gflops" to runs.txt.
run() {
  local name=$1 launch=$2
  shift 2
  local log
  log="$OUT/$name-$(date -u +%H%M%S).log"
  # shellcheck disable=SC2086 # $launch is words
  flock -x "$LOCK" mpirun $launch "$HPLX" lu "$@" > "$log" 2>&1
  local g
  g=$(awk '/^W[RC]/ {print $NF}' "$log" | tail -1)
  grep -q "PASSED" "$log" || { echo "FAIL: $name (see $log)"; exit 1; }
  echo "$name $g" | tee -a "$OUT/runs.txt"
}
for rep in $(seq 1 "$REPS"); do
  echo "== round $rep ($(date -u +%H:%M:%S))"
  (cd "$OUT/tuned" && run tuned "--bind-to none -n $ranks $OUT/tuned/hplx-bind.sh" HPL.dat)
  for nb in $NBS; do
    for grid in $GRIDS; do
      p=${grid%x*} q=${grid#*x}
      run "sweep-nb$nb-$grid" "--bind-to core -n $((p * q))" --n "$N" --nb "$nb" --grid "$grid"
    done
  done
done
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import json, statistics, sys
out = sys.argv[1]
runs = {}
for line in open(f"{out}/runs.txt"):
    name, g = line.split()
    runs.setdefault(name, []).append(float(g))
med = {k: statistics.median(v) for k, v in runs.items()}
chosen = json.load(open(f"{out}/tuned/tune.json"))["chosen"]
pred = chosen.get("estimate_gflops", chosen["model_gflops"])
sweep = {k: v for k, v in med.items() if k.startswith("sweep")}
best = max(sweep, key=sweep.get)
for k in sorted(med):
    print(f"{k:24s} median {med[k]:8.2f} Gflops over {len(runs[k])} runs: {' '.join(f'{x:.2f}' for x in runs[k])}")
print(f"tuned: N={chosen['n']} NB={chosen['nb']} {chosen['p']}x{chosen['q']} "
      f"{chosen['ranks_per_node']} rank(s) x {chosen['threads']} thread(s), BCAST {chosen['bcast_name']}, DEPTH {chosen['depth']}")
print(f"tuned / best of the sweep ({best}): {med['tuned'] / sweep[best]:.3f} (goal >= 0.97)")
print(f"tune's prediction {pred:.2f} Gflops / the tuned run {med['tuned']:.2f}: "
      f"{pred / med['tuned']:.3f} (goal within 0.95-1.05)")
PY
