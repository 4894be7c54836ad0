#!/usr/bin/env bash
# Issue 21's goals for `hplx hpl-mxp` (HPL-MxP) on this machine, in one
# session, alternating:
#   - the HPL-MxP score against `hplx lu`'s Gflops at the same N, each at its
#     best grid of GRIDS (goal >= 1.7), and the refinement's share of the
#     HPL-MxP time (solves and GMRES-IR; goal <= 10%);
#   - the FP32 factorization's rate, 2/3 N^3 / its time, against the SGEMM
#     rate of the trailing update's shape (M = N, K = MXP_NB) measured in the
#     same round by build/bin/hplx_dgemm_probe --precision single
#     (goal >= 85%);
#   - with REF given, the score of the HPL-MxP reference implementation
#     (hpl-ai/hpl-ai, which you build outside this repository: one process,
#     `REF N MAX_IT`, run with OMP_NUM_THREADS=CPUS) at the same N.
#
#   bench/hpl-mxp-vs-lu.sh [REF]
#   N=20000 REPS=3 GRIDS="1x1 1x2 2x1" bench/hpl-mxp-vs-lu.sh /tmp/peer/hpl-ai
#
# Knobs: N (20000), REPS (3), GRIDS ("1x1 1x2 2x1"), LU_NB (192),
# MXP_NB (256), REF_N (N: the reference's order; a smaller one for the
# reference as shipped, whose BLAS is naive loops), OUT, LOCK. Each run is one
# piece under `flock -x $LOCK` (the machine is shared); the side that runs
# first alternates per round. A grid of R ranks runs R ranks x CPUS/R
# threads. Raw lines go to OUT: `round side grid gflops seconds factor_s
# solve_s refine_s` (sgemm: its Gflop/s in the gflops column).
set -euo pipefail

REF=${1:-}
N=${N:-20000}
REF_N=${REF_N:-$N}
REPS=${REPS:-3}
GRIDS=${GRIDS:-"1x1 1x2 2x1"}
LU_NB=${LU_NB:-192}
MXP_NB=${MXP_NB:-256}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
PROBE=${PROBE:-$ROOT/build/bin/hplx_dgemm_probe}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-hpl-mxp-vs-lu-$N.txt}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
CPUS=$(nproc --all)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$ROOT/bench/peer-blas-core.sh"
mkdir -p "$(dirname "$OUT")"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') N=$N REF_N=$REF_N LU_NB=$LU_NB MXP_NB=$MXP_NB" \
  "GRIDS=$GRIDS REPS=$REPS CPUS=$CPUS REF=${REF:-none}" >"$OUT"
echo "# round side grid gflops seconds factor_s solve_s refine_s" >>"$OUT"

ranks_of() { local p=${1%x*} q=${1#*x}; echo $((p * q)); }
launch() {  # launch GRID COMMAND...: R ranks x CPUS/R threads, under the lock
  local np
  np=$(ranks_of "$1")
  shift
  flock -x "$LOCK" mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS=$((CPUS / np)) "$@"
}

run_lu() {  # -> "gflops seconds - - -"
  launch "$1" "$HPLX" lu --n "$N" --nb "$LU_NB" --grid "$1" --quiet --json "$WORK/lu.json" \
    >"$WORK/lu.out" 2>&1 || { cat "$WORK/lu.out" >&2; exit 1; }
  jq -r '.tests[0] | "\(.gflops) \(.time_s) - - -"' "$WORK/lu.json"
}

run_mxp() {  # -> "score seconds factor_s solve_s refine_s"
  launch "$1" "$HPLX" hpl-mxp --n "$N" --nb "$MXP_NB" --grid "$1" --quiet --json "$WORK/m.json" \
    >"$WORK/m.out" 2>&1 || { cat "$WORK/m.out" >&2; exit 1; }
  jq -r '.result | "\(.gflops) \(.time_s) \(.phases_s.factor) \(.phases_s.solve) \(.phases_s.refine)"' \
    "$WORK/m.json"
}

run_sgemm() {  # -> "gflops - - - -"
  OMP_NUM_THREADS=$CPUS flock -x "$LOCK" "$PROBE" --precision single --m "$N" --nb "$MXP_NB" \
    --reps 3 --json "$WORK/s.json" >/dev/null
  jq -r '.shapes[0] | "\(.gflops_median) - - - -"' "$WORK/s.json"
}

run_ref() {  # -> "gflops seconds factor_s solve_s gmres_s"
  (cd "$WORK" && OMP_NUM_THREADS=$CPUS flock -x "$LOCK" "$REF" "$REF_N" 50 >ref.out 2>&1) ||
    { cat "$WORK/ref.out" >&2; exit 1; }
  grep -q PASSED "$WORK/ref.out" || { echo "hpl-mxp-vs-lu: the reference FAILED" >&2; exit 1; }
  awk -F: '/Effective operation/ {g = $2 + 0} /Total time/ {t = $2 + 0}
    /in factorization/ {f = $2 + 0} /in solve/ {s = $2 + 0} /in GMRES/ {r = $2 + 0}
    END {print g, t, f, s, r}' "$WORK/ref.out"
}

record() { echo "$1 $2 $3 $4" | tee -a "$OUT"; }

for round in $(seq 1 "$REPS"); do
  record "$round" sgemm "-" "$(run_sgemm)"
  for grid in $GRIDS; do
    if ((round % 2)); then
      record "$round" lu "$grid" "$(run_lu "$grid")"
      record "$round" hpl-mxp "$grid" "$(run_mxp "$grid")"
    else
      record "$round" hpl-mxp "$grid" "$(run_mxp "$grid")"
      record "$round" lu "$grid" "$(run_lu "$grid")"
    fi
  done
  [[ -n $REF ]] && record "$round" reference "1x1" "$(run_ref)"
done

# Medians per side and grid, then the goals from the best grid of each side.
awk -v n="$N" -v ref_n="$REF_N" '
  /^#/ || NF < 5 {next}
  {key = $2 " " $3; cnt[key]++; g[key, cnt[key]] = $4; t[key, cnt[key]] = $5
   f[key, cnt[key]] = $6; s[key, cnt[key]] = $7; r[key, cnt[key]] = $8}
  function med(arr, key, c,   i, j, v, tmp) {
    for (i = 1; i <= c; i++) v[i] = arr[key, i] + 0
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) {tmp = v[i]; v[i] = v[j]; v[j] = tmp}
    return (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
  }
  END {
    printf "\nmedians of %s (side grid gflops seconds factor_s solve_s refine_s)\n", FILENAME
    for (key in cnt) {
      split(key, k, " ")
      mg = med(g, key, cnt[key]); mt = med(t, key, cnt[key])
      if (k[1] == "sgemm") {printf "%-9s %-4s %9.2f\n", k[1], k[2], mg; sgemm = mg; continue}
      printf "%-9s %-4s %9.2f %9.3f", k[1], k[2], mg, mt
      if (k[1] != "lu")
        printf " %8.3f %8.3f %8.3f", med(f, key, cnt[key]), med(s, key, cnt[key]), med(r, key, cnt[key])
      printf "\n"
      if (k[1] == "lu" && mg > best_lu) {best_lu = mg; lu_grid = k[2]}
      if (k[1] == "hpl-mxp" && mg > best_mxp) {best_mxp = mg; mxp_key = key; mxp_grid = k[2]}
      if (k[1] == "reference") ref = mg
    }
    if (best_lu > 0 && best_mxp > 0)
      printf "score / lu Gflops (best grids %s, %s): %.3f (goal >= 1.7)\n", mxp_grid, lu_grid, best_mxp / best_lu
    if (best_mxp > 0) {
      mf = med(f, mxp_key, cnt[mxp_key]); ms = med(s, mxp_key, cnt[mxp_key]); mr = med(r, mxp_key, cnt[mxp_key])
      mt = med(t, mxp_key, cnt[mxp_key])
      printf "refinement (solve + GMRES-IR) / time on %s: %.1f%% (goal <= 10%%)\n", mxp_grid, 100 * (ms + mr) / mt
      if (sgemm > 0)
        printf "FP32 LU rate / SGEMM on %s: %.2f / %.2f = %.1f%% (goal >= 85%%)\n", mxp_grid,
          2 / 3 * n * n * n / mf * 1e-9, sgemm, 100 * 2 / 3 * n * n * n / mf * 1e-9 / sgemm
    }
    if (ref > 0 && best_mxp > 0)
      printf "score / reference score: %.2f%s\n", best_mxp / ref,
        ref_n == n ? "" : " (the reference at N = " ref_n ", hplx at N = " n ")"
  }' "$OUT" | tee -a "$OUT"
