#!/usr/bin/env bash
# hplx lu against netlib HPL (Debian's hpcc package) on this machine, in one
# session, runs alternating, median of REPS.
#
#   bench/lu-vs-netlib.sh                      # N = 2000 5000 10000
#   NS="20000" REPS=3 bench/lu-vs-netlib.sh
#
# For every N, a sweep first runs each side once per (NB, grid) of NBS x
# GRIDS and keeps each side's best; then the two best configurations run
# REPS rounds, alternating hplx / netlib, and the medians are compared.
# PER_ROUND (default 1) is how many runs each side makes per round: one
# launch whose HPL.dat lists N that many times (hpcc spends minutes in its
# other tests per launch; both sides read the same HPL.dat lines, except
# that hplx runs without equilibration, its flag default). Every run
# is a sample; the table gives the median of all REPS x PER_ROUND samples
# and, as a check against slow drift of the machine, the median over rounds
# of each round's ratio of medians.
# HPLX_BEST="NB PxQ" and NETLIB_BEST="NB PxQ" (both) skip the sweep.
# PLAIN=1 adds, in every round, 1 rank x all threads launched plainly:
# `mpirun -np 1 hplx lu` with mpirun's default binding and hplx without
# mpirun (issue 3: >= 90% of the DGEMM rate at N = 10000).
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
PER_ROUND=${PER_ROUND:-1}
PLAIN=${PLAIN:-0}
CPUS=${CPUS:-$(nproc)}
OUT=${OUT:-$ROOT/bench/results/lu-vs-netlib-$(date +%Y%m%d-%H%M%S).csv}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ -x $HPLX ]] || { echo "lu-vs-netlib: $HPLX not built (make build)" >&2; exit 2; }
. "$ROOT/bench/peer-blas-core.sh"
if ! command -v hpcc >/dev/null; then
  echo "lu-vs-netlib: installing the peer, Debian's hpcc (netlib HPL inside)" >&2
  apt-get install -y hpcc >/dev/null
fi
mkdir -p "$(dirname "$OUT")"
echo "side,n,nb,grid,threads_per_rank,seconds,gflops,dgemm_gflops" >"$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# LOCK=FILE: every run holds an exclusive flock on FILE (a machine shared
# with builds that take it shared), released between runs.
if [[ -n ${LOCK:-} ]]; then exec 9>"$LOCK"; fi
lock() { if [[ -n ${LOCK:-} ]]; then flock -x 9; fi; }
unlock() { if [[ -n ${LOCK:-} ]]; then flock -u 9; fi; }

ranks_of() { local p=${1%x*} q=${1#*x}; echo $((p * q)); }

# write_dat N NB GRID COUNT FILE: hpcc's example input with N listed COUNT
# times and netlib's recommended variant; lines 28-30 (L1/U forms,
# equilibration) stay hpcc's defaults (transposed, transposed, on).
write_dat() {
  local n=$1 nb=$2 p=${3%x*} q=${3#*x} count=$4 ns
  ns=$(printf "$n %.0s" $(seq "$count"))
  sed -e "5s/.*/$count # of problems sizes (N)/" -e "6s/.*/$ns Ns/" -e "8s/.*/$nb NBs/" \
    -e "11s/.*/$p Ps/" -e "12s/.*/$q Qs/" \
    -e "15s/.*/2 PFACTs/" -e "17s/.*/4 NBMINs/" -e "19s/.*/2 NDIVs/" -e "21s/.*/1 RFACTs/" \
    -e "23s/.*/1 BCASTs/" -e "25s/.*/1 DEPTHs/" -e "26s/.*/2 SWAP/" -e "27s/.*/64 threshold/" \
    /usr/share/doc/hpcc/examples/_hpccinf.txt >"$5"
}

# The same test for hplx: the first 31 lines, the report on stdout, and no
# equilibration (hplx's flag default: it only adds work to hplx's long swap).
write_hplx_dat() {
  write_dat "$@"
  sed -i -e "3s/.*/HPL.out output file/" -e "4s/.*/6 device out/" -e "30s/.*/0 Equilibration/" \
    -e "32,\$d" "$5"
}

# run_hplx N NB GRID [COUNT] -> "gflops seconds" per run, COUNT runs of N in
# one launch (one line each), like hpcc's HPL below
run_hplx() {
  local n=$1 nb=$2 grid=$3 count=${4:-1} np
  np=$(ranks_of "$grid")
  write_hplx_dat "$n" "$nb" "$grid" "$count" "$WORK/HPL.dat"
  lock
  mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS=$((CPUS / np)) -x OPENBLAS_NUM_THREADS=$((CPUS / np)) \
    "$HPLX" lu --quiet "$WORK/HPL.dat" | awk '/^W[RC]/ {print $7, $6; found=1} END {exit !found}'
  unlock
}

# run_hplx_plain N NB HOW [COUNT] -> as run_hplx on 1x1, launched plainly: HOW
# = mpirun (mpirun -np 1 with its default binding) or direct (no mpirun)
run_hplx_plain() {
  local n=$1 nb=$2 count=${4:-1} launch=()
  [[ $3 == mpirun ]] && launch=(mpirun -np 1)
  write_hplx_dat "$n" "$nb" 1x1 "$count" "$WORK/HPL.dat"
  lock
  "${launch[@]}" "$HPLX" lu --quiet "$WORK/HPL.dat" |
    awk '/^W[RC]/ {print $7, $6; found=1} END {exit !found}'
  unlock
}

# run_netlib N NB GRID [COUNT] -> "gflops seconds dgemm_node_gflops" per HPL
# run, COUNT runs of N in one hpcc launch (one line each)
run_netlib() {
  local n=$1 nb=$2 grid=$3 count=${4:-1} np
  np=$(ranks_of "$grid")
  write_dat "$n" "$nb" "$grid" "$count" "$WORK/hpccinf.txt"
  rm -f "$WORK/hpccoutf.txt"
  lock
  (cd "$WORK" && OMP_NUM_THREADS=$((CPUS / np)) mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS hpcc >/dev/null 2>&1)
  unlock
  awk -F= -v np="$np" '
    /^W[RC]/ {split($0, w, " "); g[++k] = w[7]; t[k] = w[6]}
    $1 == "StarDGEMM_Gflops" {d = $2 * np}
    END {if (k == 0) exit 1; for (i = 1; i <= k; ++i) print g[i], t[i], d}' "$WORK/hpccoutf.txt"
}

record() { # side n nb grid result...
  local side=$1 n=$2 nb=$3 grid=$4 g=$5 t=$6 d=${7:-}
  echo "$side,$n,$nb,$grid,$((CPUS / $(ranks_of "$grid"))),$t,$g,$d" >>"$OUT"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "| N | side | best NB, grid (sweep) | median Gflops (runs) | % of DGEMM | hplx / netlib |"
echo "|---|---|---|---|---|---|"
for n in $NS; do
  best_h=${HPLX_BEST:-} best_hg=0 best_n=${NETLIB_BEST:-} best_ng=0
  [[ -n $best_h && -n $best_n ]] && sweep_nbs="" || sweep_nbs=$NBS
  for nb in $sweep_nbs; do
    for grid in $GRIDS; do
      read -r g t < <(run_hplx "$n" "$nb" "$grid")
      record hplx-sweep "$n" "$nb" "$grid" "$g" "$t"
      if awk -v a="$g" -v b="$best_hg" 'BEGIN {exit !(a > b)}'; then best_h="$nb $grid" best_hg=$g; fi
      read -r g t d < <(run_netlib "$n" "$nb" "$grid")
      record netlib-sweep "$n" "$nb" "$grid" "$g" "$t" "$d"
      if awk -v a="$g" -v b="$best_ng" 'BEGIN {exit !(a > b)}'; then best_n="$nb $grid" best_ng=$g; fi
    done
  done
  hs=() ns=() ds=() ps=() pd=() rr=()
  for ((r = 0; r < REPS; ++r)); do
    rh=() rn=()
    while read -r g t; do
      record hplx "$n" $best_h "$g" "$t"
      hs+=("$g") rh+=("$g")
    done < <(run_hplx "$n" $best_h "$PER_ROUND")
    while read -r g t d; do
      record netlib "$n" $best_n "$g" "$t" "$d"
      ns+=("$g") rn+=("$g") ds+=("$d")
    done < <(run_netlib "$n" $best_n "$PER_ROUND")
    rr+=("$(awk -v a="$(printf '%s\n' "${rh[@]}" | median)" \
      -v b="$(printf '%s\n' "${rn[@]}" | median)" 'BEGIN {print a / b}')")
    if [[ $PLAIN == 1 ]]; then
      for how in mpirun direct; do
        while read -r g t; do
          record "hplx-plain-$how" "$n" "${best_h% *}" 1x1 "$g" "$t"
          if [[ $how == mpirun ]]; then ps+=("$g"); else pd+=("$g"); fi
        done < <(run_hplx_plain "$n" "${best_h% *}" "$how" "$PER_ROUND")
      done
    fi
  done
  mh=$(printf '%s\n' "${hs[@]}" | median)
  mn=$(printf '%s\n' "${ns[@]}" | median)
  md=$(printf '%s\n' "${ds[@]}" | median)
  mr=$(printf '%s\n' "${rr[@]}" | median)
  pct() { awk -v a="$1" -v b="$md" 'BEGIN {printf "%.0f%%", 100 * a / b}'; }
  ratio=$(awk -v a="$mh" -v b="$mn" 'BEGIN {printf "%.3f", a / b}')
  samples=$((REPS * PER_ROUND))
  echo "| $n | hplx | NB ${best_h% *}, ${best_h#* } | $(printf %.1f "$mh") ($samples) | $(pct "$mh") | $ratio (rounds: $(printf %.3f "$mr")) |"
  echo "| $n | netlib | NB ${best_n% *}, ${best_n#* } | $(printf %.1f "$mn") ($samples) | $(pct "$mn") | |"
  if [[ $PLAIN == 1 ]]; then
    m=$(printf '%s\n' "${ps[@]}" | median)
    echo "| $n | hplx, \`mpirun -np 1\` default binding | NB ${best_h% *}, 1x1 | $(printf %.1f "$m") ($samples) | $(pct "$m") | |"
    m=$(printf '%s\n' "${pd[@]}" | median)
    echo "| $n | hplx, no mpirun | NB ${best_h% *}, 1x1 | $(printf %.1f "$m") ($samples) | $(pct "$m") | |"
  fi
  echo "| $n | DGEMM ($CPUS cores, hpcc StarDGEMM x ranks) | | $(printf %.1f "$md") | 100% | |"
done
echo "raw runs: $OUT" >&2
