#!/usr/bin/env bash
# hplx mxp at local NX^3 on this machine's cores, the issue-6 goal runs:
# 1 rank x all threads and all-ranks x 1 thread, alternating, REPS rounds,
# with the STREAM triad (all threads) at the start of every round. Each
# round is one `flock -x /tmp/hplx-cpu.lock` piece (the machine is shared).
#
#   REPS=3 TIME=10 bench/mxp-goals.sh [NX]
#
# Per run: rating, raw mixed and double GFLOP/s, mixed/double, validation
# iterations, and the GB/s of SpMV, GS and restriction in both precisions;
# then the medians. Raw output goes to $OUT.
set -euo pipefail
NX=${1:-64}
REPS=${REPS:-3}
TIME=${TIME:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
TRIAD=${TRIAD:-$ROOT/build/bin/hplx_stream_triad}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-mxp-goals-nx$NX.txt}
NP=$(nproc --all)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

one() {  # config name, command...
  local name=$1; shift
  "$@" mxp --nx "$NX" --ny "$NX" --nz "$NX" --time "$TIME" >"$work/out" 2>"$work/err"
  local o=$work/out
  local rating mixed double nd nm
  rating=$(sed -n 's/.*VALID with a GFLOP\/s rating of: //p' "$o")
  mixed=$(awk -F': ' '/^  Raw Total:/ {print $2}' "$o")
  double=$(awk -F': ' '/^   - Raw Total \(reference\):/ {v = $2} END {print v}' "$o")
  nd=$(awk -F': ' '/Number of reference iterations/ {print $2}' "$o")
  nm=$(awk -F': ' '/Number of optimized iterations/ {print $2}' "$o")
  gbs() { awk -v p="$1" -v m="$2" '$1 == p && $2 == m {print $NF}' "$o"; }
  echo "$name rating=$rating mixed=$mixed double=$double ratio=$(awk -v a="$mixed" -v b="$double" 'BEGIN {printf "%.3f", a / b}') iters=$nd/$nm spmv_f=$(gbs mixed SpMV) gs_f=$(gbs mixed GS) restr_f=$(gbs mixed Restriction) ortho_f=$(gbs mixed Ortho) spmv_d=$(gbs double SpMV) gs_d=$(gbs double GS) restr_d=$(gbs double Restriction) ortho_d=$(gbs double Ortho)" | tee -a "$OUT"
  cat "$o" "$work/err" >>"$OUT.log"
}

round() {
  echo "triad $(OMP_NUM_THREADS=$NP "$TRIAD")" | tee -a "$OUT"
  one 1rank "$HPLX"
  one "${NP}ranks" mpirun --oversubscribe --bind-to none -n "$NP" "$HPLX"
}

echo "# $(date -u +%FT%TZ) $(hostname) nx=$NX time=$TIME reps=$REPS hplx $("$HPLX" --version)" | tee -a "$OUT"
export -f one round median
export NX TIME HPLX TRIAD OUT NP work
for rep in $(seq "$REPS"); do
  flock -x /tmp/hplx-cpu.lock bash -c round
done
echo "triad $(OMP_NUM_THREADS=$NP flock -x /tmp/hplx-cpu.lock "$TRIAD")" | tee -a "$OUT"
for cfg in 1rank "${NP}ranks"; do
  for f in rating mixed double ratio spmv_f gs_f restr_f spmv_d gs_d restr_d; do
    echo "median $cfg $f $(grep "^$cfg " "$OUT" | tail -n "$REPS" | sed -n "s/.* $f=\([^ ]*\).*/\1/p" | median)" | tee -a "$OUT"
  done
done
echo "median triad $(grep '^triad ' "$OUT" | tail -n $((REPS + 1)) | awk '{print $3}' | median)" | tee -a "$OUT"
