#!/usr/bin/env bash
# No-regression A/B: two builds of hplx (before and after a change) run the
# same configurations alternately, REPS rounds, on this machine in one
# session; prints per configuration the median of each side and the ratio
# after / before (1.00 = no change; on the shared 2-core VM, ratios within
# about 0.10 of 1 are noise, see docs/PERFORMANCE.md "Machine and method").
#
#   bench/ab-compare.sh BEFORE_BIN AFTER_BIN
#   REPS=5 bench/ab-compare.sh /tmp/hplx-before build/bin/hplx
#   LU_NS=800 LU_GRIDS=1x1 MXP_SIZES=16 MXP_TIME=1 REPS=1 bench/ab-compare.sh A B   # smoke test
#
# Configurations (environment, defaults in brackets):
#   hplx lu --n N --nb LU_NB for N in LU_NS ["5000 10000"], NB LU_NB [192],
#     on each grid of LU_GRIDS ["1x1 1x2 2x1"]: 1x1 is one rank with all
#     threads (`mpirun -np 1 --bind-to none BIN lu --n N --nb NB`), PxQ > 1
#     `mpirun -np P*Q --bind-to none BIN lu --n N --nb NB --grid PxQ`
#     (hplx's default: cores / ranks threads per rank). Figure: Gflops of
#     the W... line (the T/V table's last column), like bench/lu-vs-netlib.sh.
#   hplx mxp --nx S --ny S --nz S --time MXP_TIME [10] for S in MXP_SIZES
#     ["32 64"], on MXP_RANKS [2] ranks (`mpirun --oversubscribe --bind-to none
#     -n 2`; hplx's default: cores / ranks threads per rank). Figure: the rating ("VALID with a GFLOP/s rating
#     of: X", the penalized mixed GFLOP/s), like bench/mxp-goals.sh.
#   LU_NS="" or MXP_SIZES="" skips that benchmark.
# Alternation: in every round each configuration runs before then after in
# odd rounds, after then before in even rounds (so neither side always runs
# first). Every timed run holds `flock -x $LOCK` [/tmp/hplx-cpu.lock]
# (the machine is shared; released between runs). A run that fails its
# residual check, or is not VALID, stops the script.
#
# Output: the raw runs, one line each ("round config side value seconds"),
# appended to $OUT [bench/results/<UTC date>-ab-compare.txt] after a header
# line naming both binaries; then the summary table on stdout (also appended
# to $OUT), medians over this invocation's rounds only.
set -euo pipefail

BEFORE=${1:?usage: $0 BEFORE_BIN AFTER_BIN}
AFTER=${2:?usage: $0 BEFORE_BIN AFTER_BIN}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-5}
LU_NS=${LU_NS-"5000 10000"}
LU_NB=${LU_NB:-192}
LU_GRIDS=${LU_GRIDS-"1x1 1x2 2x1"}
MXP_SIZES=${MXP_SIZES-"32 64"}
MXP_RANKS=${MXP_RANKS:-2}
MXP_TIME=${MXP_TIME:-10}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-ab-compare.txt}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

for b in "$BEFORE" "$AFTER"; do
  [[ -x $b ]] || { echo "ab-compare: $b is not an executable hplx" >&2; exit 2; }
done
mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RUNS=$work/runs
: >"$RUNS"

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) exit 1; print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# run_lu BIN N GRID -> "gflops seconds"
run_lu() {
  local bin=$1 n=$2 grid=$3 np grid_flag=()
  np=$((${grid%x*} * ${grid#*x}))
  ((np > 1)) && grid_flag=(--grid "$grid")
  flock -x "$LOCK" mpirun -np "$np" --bind-to none --oversubscribe "$bin" lu \
    --n "$n" --nb "$LU_NB" "${grid_flag[@]}" >"$work/out" 2>"$work/err" || {
    echo "ab-compare: $bin lu N=$n $grid exited with an error:" >&2
    cat "$work/err" >&2
    exit 1
  }
  if grep -q FAILED "$work/out"; then
    echo "ab-compare: $bin lu N=$n $grid FAILED the residual check" >&2
    exit 1
  fi
  awk '/^W[RC]/ {print $7, $6; found = 1} END {exit !found}' "$work/out" || {
    echo "ab-compare: no W line in the output of $bin lu N=$n $grid" >&2
    exit 1
  }
}

# run_mxp BIN S -> "rating seconds" (seconds: the whole launch)
run_mxp() {
  local bin=$1 s=$2 t0 t1 rating
  t0=$(date +%s.%N)
  flock -x "$LOCK" mpirun --oversubscribe --bind-to none -n "$MXP_RANKS" \
    "$bin" mxp --nx "$s" --ny "$s" --nz "$s" --time "$MXP_TIME" \
    >"$work/out" 2>"$work/err" || {
    echo "ab-compare: $bin mxp nx=$s exited with an error:" >&2
    cat "$work/err" >&2
    exit 1
  }
  t1=$(date +%s.%N)
  rating=$(sed -n 's/.*VALID with a GFLOP\/s rating of: //p' "$work/out")
  if [[ -z $rating ]] || grep -q INVALID "$work/out"; then
    echo "ab-compare: $bin mxp nx=$s gave no VALID rating" >&2
    exit 1
  fi
  echo "$rating $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
}

configs=()
for n in $LU_NS; do
  for grid in $LU_GRIDS; do configs+=("lu|$n|$grid"); done
done
for s in $MXP_SIZES; do configs+=("mxp|$s|${MXP_RANKS}ranks"); done
((${#configs[@]} > 0)) || { echo "ab-compare: no configuration (LU_NS and MXP_SIZES empty)" >&2; exit 2; }

name_of() { # kind|size|grid -> the configuration's name in the output
  IFS='|' read -r kind size grid <<<"$1"
  if [[ $kind == lu ]]; then echo "lu-n$size-nb$LU_NB-$grid"; else echo "mxp-nx$size-$grid"; fi
}

{
  echo "# $(date -u +%FT%TZ) $(hostname) ab-compare reps=$REPS lu_ns=\"$LU_NS\" lu_nb=$LU_NB lu_grids=\"$LU_GRIDS\" mxp_sizes=\"$MXP_SIZES\" mxp_ranks=$MXP_RANKS mxp_time=$MXP_TIME"
  echo "# before: $BEFORE ($("$BEFORE" --version 2>/dev/null | head -1))"
  echo "# after:  $AFTER ($("$AFTER" --version 2>/dev/null | head -1))"
  echo "# round config side value seconds   (value: Gflops for lu, rating GFLOP/s for mxp)"
} | tee -a "$OUT" >&2

for ((rep = 1; rep <= REPS; ++rep)); do
  if ((rep % 2)); then order=(before after); else order=(after before); fi
  for c in "${configs[@]}"; do
    IFS='|' read -r kind size grid <<<"$c"
    name=$(name_of "$c")
    for side in "${order[@]}"; do
      if [[ $side == before ]]; then bin=$BEFORE; else bin=$AFTER; fi
      value=""
      if [[ $kind == lu ]]; then
        read -r value secs < <(run_lu "$bin" "$size" "$grid")
      else
        read -r value secs < <(run_mxp "$bin" "$size")
      fi
      [[ -n ${value:-} ]] || exit 1
      echo "$rep $name $side $value $secs" | tee -a "$OUT" "$RUNS" >&2
    done
  done
done

{
  echo
  echo "| configuration | before, median ($REPS runs) | after, median ($REPS runs) | after / before |"
  echo "| --- | --- | --- | --- |"
  for c in "${configs[@]}"; do
    name=$(name_of "$c")
    mb=$(awk -v n="$name" '$2 == n && $3 == "before" {print $4}' "$RUNS" | median)
    ma=$(awk -v n="$name" '$2 == n && $3 == "after" {print $4}' "$RUNS" | median)
    unit=Gflops
    [[ $name == mxp-* ]] && unit="rating"
    echo "| $name ($unit) | $(printf %.2f "$mb") | $(printf %.2f "$ma") | $(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", a / b}') |"
  done
} | tee -a "$OUT"
echo "raw runs: $OUT" >&2
