#!/usr/bin/env bash
# The performance model against real hplx lu runs on this machine:
# calibrate (DGEMM gamma, MPI alpha/beta, the CPU terms), then for each N
# run REPS times
#   1 rank x 2 threads: OMP_NUM_THREADS=2 hplx lu --n N --nb NB --grid 1x1
#   2 ranks x 1 thread: mpirun --bind-to core -n 2 hplx lu --n N --nb NB --grid 1x2
# and print predicted versus the median measured Gflops. The machine is
# calibrated once before each repetition's runs (machine-cR.toml) and the
# prediction uses the per-key median of those calibrations
# (bench/model-median-spec.py): one calibration can catch a busy minute of
# a shared machine as easily as one run can. Every timed step
# takes the CPU lock exclusively, one step at a time (each under 5 minutes
# here). Runs whose JSON is already in OUT are not repeated, so a campaign
# can be split into pieces (ONLY_RUNS=1 stops after the runs, ONLY_MODEL=1
# only predicts and tabulates).
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
spec=${SPEC:-$OUT/machine.toml}

if [ -z "${ONLY_MODEL:-}" ]; then
  for rep in $(seq 1 "$REPS"); do
    if [ -z "${SPEC:-}" ] && [ ! -f "$OUT/machine-c$rep.toml" ]; then
      # Unbound ranks, so rank 0's 2-thread DGEMM gets both cores.
      flock -x "$LOCK" mpirun --bind-to none -n 2 "$HPLX" model calibrate \
        -o "$OUT/machine-c$rep.toml" --nb "$NB" | tee "$OUT/calibrate-c$rep.txt"
    fi
    for n in $NS; do
      for grid in 1x1 1x2; do
        base=$OUT/lu-$n-$grid-r$rep
        [ -f "$base.json" ] && continue
        if [ "$grid" = 1x1 ]; then
          flock -x "$LOCK" env OMP_NUM_THREADS=2 "$HPLX" lu --n "$n" --nb "$NB" --grid 1x1 \
            --json "$base.json" >"$base.txt" 2>&1
        else
          flock -x "$LOCK" mpirun --bind-to core -n 2 "$HPLX" lu --n "$n" --nb "$NB" --grid 1x2 \
            --json "$base.json" >"$base.txt" 2>&1
        fi
        echo "ran $base: $(awk '/^W[RC][0-9]/ {g=$7} END {print g}' "$base.txt") Gflops"
      done
    done
  done
  [ -n "${ONLY_RUNS:-}" ] && exit 0
fi
if [ -z "${SPEC:-}" ]; then
  python3 bench/model-median-spec.py "$spec" "$OUT"/machine-c*.toml
fi

for n in $NS; do
  for grid in 1x1 1x2; do
    threads=$([ "$grid" = 1x1 ] && echo 2 || echo 1)
    "$HPLX" model "$spec" --n "$n" --nb "$NB" --grid "$grid" --threads "$threads" \
      --json "$OUT/model-$n-$grid.json" >"$OUT/model-$n-$grid.txt"
  done
done

# Predicted versus the median of the measured runs, and where the time went:
# the median run's phases (rank 0) beside the model's terms.
python3 - "$OUT" $NS <<'PY' | tee "$OUT/table.txt"
import glob, json, statistics, sys
out, ns = sys.argv[1], sys.argv[2:]
print(f"{'N':<7} {'grid':<5} {'ranks x threads':<16} {'predicted':>10} {'measured (median)':>18} {'diff%':>7}  runs")
rows = []
for n in ns:
    for g in ("1x1", "1x2"):
        runs = []
        for f in sorted(glob.glob(f"{out}/lu-{n}-{g}-r*.json")):
            t = json.load(open(f))["tests"][0]
            runs.append(t)
        if not runs:
            continue
        runs.sort(key=lambda t: t["gflops"])
        # The median Gflops (of an even count: the mean of the middle two);
        # the phases below are the run nearest to it.
        gf = statistics.median(t["gflops"] for t in runs)
        med = min(runs, key=lambda t: abs(t["gflops"] - gf))
        m = json.load(open(f"{out}/model-{n}-{g}.json"))["points"][0]["mcl"]
        d = 100 * (m["gflops"] / gf - 1)
        who = "1 x 2" if g == "1x1" else "2 x 1"
        print(f"{n:<7} {g:<5} {who:<16} {m['gflops']:10.2f} {gf:18.2f} {d:+7.1f}  "
              + " ".join(f"{t['gflops']:.2f}" for t in runs))
        rows.append((n, g, med, m))
print("\nrun nearest the median (rank 0), s:  total   fact  bcast   swap  update |"
      " model, s: total  fact (of)       trsm  dgemm  copy  pivot bcast updcomm")
for n, g, t, m in rows:
    ph = t["phases_s"]
    print(f"{n:<7} {g:<5} {t['time_s']:16.2f} {ph['fact']:6.2f} {ph['bcast']:6.2f} {ph['swap']:6.2f}"
          f" {ph['update']:7.2f} | {m['time_s']:15.2f} {m['fact_s']:5.2f} ({m['fact_total_s']:5.2f})"
          f" {m['trsm_s']:10.2f} {m['dgemm_s']:6.2f} {m['swap_copy_s']:5.2f} {m['pivot_s']:6.2f}"
          f" {m['bcast_s']:5.2f} {m['update_comm_s']:7.2f}")
PY
echo "results in $OUT"
