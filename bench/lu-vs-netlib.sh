#!/usr/bin/env bash
# hplx lu against netlib HPL (Debian's hpcc package) on this machine, in one
# session, runs alternating, median of REPS.
#
#   bench/lu-vs-netlib.sh                      # N = 2000 5000 10000
#   NS="20000" REPS=3 bench/lu-vs-netlib.sh
#
# For every N, a sweep first runs each side once per (NB, grid) of NBS x
# GRIDS and keeps each side's best; then the two best configurations run
# REPS times each, alternating hplx / netlib, and the medians are compared.
# Both sides use netlib's recommended variant (PFACT right, RFACT Crout,
# NBMIN 4, NDIV 2, BCAST 1ringM, DEPTH 1, SWAP mix 64); all CPUs of the
# machine are used: a grid of p ranks runs CPUS/p threads per rank, with
# --bind-to none. hpcc's StarDGEMM_Gflops (per rank, all ranks at once) gives
# the DGEMM rate of the same cores in the same run: ranks x StarDGEMM.
#
# Output: one markdown table on stdout; raw runs in $OUT (default
# bench/results/lu-vs-netlib-<date>.csv).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
NS=${NS:-"2000 5000 10000"}
NBS=${NBS:-"128 192 256"}
GRIDS=${GRIDS:-"1x1 1x2 2x1"}
REPS=${REPS:-3}
CPUS=${CPUS:-$(nproc)}
OUT=${OUT:-$ROOT/bench/results/lu-vs-netlib-$(date +%Y%m%d-%H%M%S).csv}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ -x $HPLX ]] || { echo "lu-vs-netlib: $HPLX not built (make build)" >&2; exit 2; }
if ! command -v hpcc >/dev/null; then
  echo "lu-vs-netlib: installing the peer, Debian's hpcc (netlib HPL inside)" >&2
  apt-get install -y hpcc >/dev/null
fi
mkdir -p "$(dirname "$OUT")"
echo "side,n,nb,grid,threads_per_rank,seconds,gflops,dgemm_gflops" >"$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ranks_of() { local p=${1%x*} q=${1#*x}; echo $((p * q)); }

# run_hplx N NB GRID -> "gflops seconds"
run_hplx() {
  local n=$1 nb=$2 grid=$3 np
  np=$(ranks_of "$grid")
  mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS=$((CPUS / np)) -x OPENBLAS_NUM_THREADS=$((CPUS / np)) \
    "$HPLX" lu --quiet --n "$n" --nb "$nb" --grid "$grid" --pfact right --rfact crout \
    --nbmin 4 --ndiv 2 --bcast 1ringM --depth 1 --swap mix --swap-threshold 64 |
    awk '/^W[RC]/ {print $7, $6; found=1} END {exit !found}'
}

# run_netlib N NB GRID -> "gflops seconds dgemm_node_gflops"
run_netlib() {
  local n=$1 nb=$2 grid=$3 np p=${3%x*} q=${3#*x}
  np=$(ranks_of "$grid")
  sed -e "6s/.*/$n Ns/" -e "8s/.*/$nb NBs/" -e "11s/.*/$p Ps/" -e "12s/.*/$q Qs/" \
    -e "15s/.*/2 PFACTs/" -e "17s/.*/4 NBMINs/" -e "19s/.*/2 NDIVs/" -e "21s/.*/1 RFACTs/" \
    -e "23s/.*/1 BCASTs/" -e "25s/.*/1 DEPTHs/" -e "26s/.*/2 SWAP/" -e "27s/.*/64 threshold/" \
    /usr/share/doc/hpcc/examples/_hpccinf.txt >"$WORK/hpccinf.txt"
  rm -f "$WORK/hpccoutf.txt"
  (cd "$WORK" && OMP_NUM_THREADS=$((CPUS / np)) mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS hpcc >/dev/null 2>&1)
  awk -F= -v np="$np" '
    $1 == "HPL_Tflops" {g = $2 * 1000} $1 == "HPL_time" {t = $2}
    $1 == "StarDGEMM_Gflops" {d = $2 * np}
    END {if (g == "") exit 1; print g, t, d}' "$WORK/hpccoutf.txt"
}

record() { # side n nb grid result...
  local side=$1 n=$2 nb=$3 grid=$4 g=$5 t=$6 d=${7:-}
  echo "$side,$n,$nb,$grid,$((CPUS / $(ranks_of "$grid"))),$t,$g,$d" >>"$OUT"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "| N | side | best NB, grid (sweep) | median Gflops (runs) | % of DGEMM | hplx / netlib |"
echo "|---|---|---|---|---|---|"
for n in $NS; do
  best_h="" best_hg=0 best_n="" best_ng=0
  for nb in $NBS; do
    for grid in $GRIDS; do
      read -r g t < <(run_hplx "$n" "$nb" "$grid")
      record hplx-sweep "$n" "$nb" "$grid" "$g" "$t"
      if awk -v a="$g" -v b="$best_hg" 'BEGIN {exit !(a > b)}'; then best_h="$nb $grid" best_hg=$g; fi
      read -r g t d < <(run_netlib "$n" "$nb" "$grid")
      record netlib-sweep "$n" "$nb" "$grid" "$g" "$t" "$d"
      if awk -v a="$g" -v b="$best_ng" 'BEGIN {exit !(a > b)}'; then best_n="$nb $grid" best_ng=$g; fi
    done
  done
  hs=() ns=() ds=()
  for ((r = 0; r < REPS; ++r)); do
    read -r g t < <(run_hplx "$n" $best_h)
    record hplx "$n" $best_h "$g" "$t"
    hs+=("$g")
    read -r g t d < <(run_netlib "$n" $best_n)
    record netlib "$n" $best_n "$g" "$t" "$d"
    ns+=("$g") ds+=("$d")
  done
  mh=$(printf '%s\n' "${hs[@]}" | median)
  mn=$(printf '%s\n' "${ns[@]}" | median)
  md=$(printf '%s\n' "${ds[@]}" | median)
  pct() { awk -v a="$1" -v b="$md" 'BEGIN {printf "%.0f%%", 100 * a / b}'; }
  ratio=$(awk -v a="$mh" -v b="$mn" 'BEGIN {printf "%.3f", a / b}')
  echo "| $n | hplx | NB ${best_h% *}, ${best_h#* } | $(printf %.1f "$mh") ($REPS) | $(pct "$mh") | $ratio |"
  echo "| $n | netlib | NB ${best_n% *}, ${best_n#* } | $(printf %.1f "$mn") ($REPS) | $(pct "$mn") | |"
  echo "| $n | DGEMM ($CPUS cores, hpcc StarDGEMM x ranks) | | $(printf %.1f "$md") | 100% | |"
done
echo "raw runs: $OUT" >&2
