#!/usr/bin/env bash
# The performance model against real hplx lu runs on this machine:
# calibrate (DGEMM gamma, MPI alpha/beta), then for each N predict and run
#   1 rank x 2 threads: OMP_NUM_THREADS=2 hplx lu --n N --nb NB --grid 1x1
#   2 ranks x 1 thread: mpirun --bind-to core -n 2 hplx lu --n N --nb NB --grid 1x2
# and print predicted versus measured Gflops. Every timed step takes the CPU
# lock exclusively, one step at a time (each under 5 minutes here).
#   bench/model-vs-measured.sh              # N = 5000 10000 15000 20000
#   NS="5000 10000" bench/model-vs-measured.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
NS=${NS:-"5000 10000 15000 20000"}
NB=${NB:-192}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
OUT=${OUT:-bench/results/model-vs-measured-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
spec=$OUT/machine.toml

# Unbound ranks, so rank 0's 2-thread DGEMM gets both cores.
flock -x "$LOCK" mpirun --bind-to none -n 2 "$HPLX" model calibrate -o "$spec" --nb "$NB" \
  | tee "$OUT/calibrate.txt"

gflops_of_run() { awk '/^W[RC][0-9]/ {g=$7} END {print g}' "$1"; }
mcl_of_model() { awk '$1 == "mcl" {print $3}' "$1"; }

printf '\n%-7s %-5s %-22s %12s %12s %8s\n' N grid "ranks x threads" predicted measured diff% | tee "$OUT/table.txt"
for n in $NS; do
  for grid in 1x1 1x2; do
    if [ "$grid" = 1x1 ]; then
      threads=2 who="1 x 2"
      flock -x "$LOCK" env OMP_NUM_THREADS=2 "$HPLX" lu --n "$n" --nb "$NB" --grid 1x1 \
        --json "$OUT/lu-$n-$grid.json" >"$OUT/lu-$n-$grid.txt" 2>&1
    else
      threads=1 who="2 x 1"
      flock -x "$LOCK" mpirun --bind-to core -n 2 "$HPLX" lu --n "$n" --nb "$NB" --grid 1x2 \
        --json "$OUT/lu-$n-$grid.json" >"$OUT/lu-$n-$grid.txt" 2>&1
    fi
    "$HPLX" model "$spec" --n "$n" --nb "$NB" --grid "$grid" --threads "$threads" \
      --json "$OUT/model-$n-$grid.json" >"$OUT/model-$n-$grid.txt"
    p=$(mcl_of_model "$OUT/model-$n-$grid.txt")
    m=$(gflops_of_run "$OUT/lu-$n-$grid.txt")
    d=$(awk -v p="$p" -v m="$m" 'BEGIN {printf "%+.1f", 100 * (p / m - 1)}')
    printf '%-7s %-5s %-22s %12.2f %12.2f %8s\n' "$n" "$grid" "$who" "$p" "$m" "$d" | tee -a "$OUT/table.txt"
  done
done
# Where the time went: the run's phases (rank 0) beside the model's terms.
python3 - "$OUT" $NS <<'PY' | tee -a "$OUT/table.txt"
import json, sys
out, ns = sys.argv[1], sys.argv[2:]
print("\nN       grid  | measured s: total  fact  bcast  swap  update | model s: total compute  pivot  bcast  update")
for n in ns:
    for g in ("1x1", "1x2"):
        t = json.load(open(f"{out}/lu-{n}-{g}.json"))["tests"][0]
        ph = t["phases_s"]
        m = json.load(open(f"{out}/model-{n}-{g}.json"))["points"][0]["mcl"]
        print(f"{n:<7} {g:<5} | {t['time_s']:17.2f} {ph['fact']:5.2f} {ph['bcast']:6.2f} {ph['swap']:5.2f} {ph['update']:7.2f} |"
              f" {m['time_s']:14.2f} {m['compute_s']:7.2f} {m['pivot_s']:6.2f} {m['bcast_s']:6.2f} {m['update_comm_s']:7.2f}")
PY
echo "results in $OUT"
