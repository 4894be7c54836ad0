#!/usr/bin/env bash
# hplx lu and netlib HPL (Debian's hpcc package, HPL 2.0 inside) reading the
# SAME HPL.dat file, hplx with no flags: `hplx lu FILE` against hpcc with
# FILE as its hpccinf.txt. Runs alternate (hplx, then netlib) per grid, REPS
# rounds; prints per grid the median Gflops of each side and hplx / netlib.
#
#   bench/hpldat-vs-netlib.sh                       # N = 10000, NB 192, grids 1x1 1x2 2x1, 3 rounds
#   N=800 REPS=1 bench/hpldat-vs-netlib.sh          # smoke test
#   GRIDS="1x2" REPS=5 bench/hpldat-vs-netlib.sh
#
# The file: hpcc's example input (/usr/share/doc/hpcc/examples/_hpccinf.txt),
# which is netlib's recommended variant (PFACT right, NBMIN 4, NDIV 2, RFACT
# Crout, BCAST 1ringM, DEPTH 1, SWAP mix with threshold 64, L1 and U
# transposed, equilibration on, alignment 8), with line 4 set to 6 (report on
# stdout), N (line 6) = N [10000], NB (line 8) = NB [192], P and Q (lines
# 11-12) from the grid; its lines past 31 are hpcc's own settings, which
# hplx ignores. The file used for each grid is copied into $OUT.d/.
# Unlike bench/lu-vs-netlib.sh (where hplx gets its own copy without
# equilibration, its flag default), here hplx runs exactly what the file
# says, equilibration included: this checks that an HPL.dat means the same
# to both.
# Launch, as in bench/lu-vs-netlib.sh: a grid of p ranks runs on all CPUS
# [nproc] cores, CPUS/p threads per rank (1x1: one rank with 2 threads, hplx
# through OpenMP and its BLAS, netlib through the OpenMP OpenBLAS; 1x2 and
# 2x1: 2 ranks x 1 thread), both as `mpirun -np p --bind-to none
# --oversubscribe -x OMP_NUM_THREADS=CPUS/p`. Every run holds `flock -x
# $LOCK` [/tmp/hplx-cpu.lock]. hpcc also runs its other tests (PTRANS,
# STREAM, FFT, ...) in every launch, sized from N: at N = 10000 a launch
# takes minutes, of which only the HPL part is compared. hpcc's
# StarDGEMM_Gflops x ranks is recorded as the DGEMM rate of the same cores.
# A run that fails its residual check stops the script.
#
# Output: raw runs (csv: round,side,n,nb,grid,threads_per_rank,seconds,gflops,
# dgemm_gflops) in $OUT [bench/results/<UTC date>-hpldat-vs-netlib.csv];
# the table on stdout (also written to $OUT.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
N=${N:-10000}
NB=${NB:-192}
GRIDS=${GRIDS:-"1x1 1x2 2x1"}
REPS=${REPS:-3}
CPUS=${CPUS:-$(nproc)}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-hpldat-vs-netlib.csv}
EXAMPLE=/usr/share/doc/hpcc/examples/_hpccinf.txt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ -x $HPLX ]] || { echo "hpldat-vs-netlib: $HPLX not built (make build)" >&2; exit 2; }
. "$ROOT/bench/peer-blas-core.sh"
if ! command -v hpcc >/dev/null; then
  echo "hpldat-vs-netlib: installing the peer, Debian's hpcc (netlib HPL inside)" >&2
  apt-get install -y hpcc >/dev/null
fi
[[ -r $EXAMPLE ]] || { echo "hpldat-vs-netlib: $EXAMPLE missing (hpcc package)" >&2; exit 2; }
mkdir -p "$(dirname "$OUT")" "$OUT.d"
echo "round,side,n,nb,grid,threads_per_rank,seconds,gflops,dgemm_gflops" >"$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

ranks_of() { local p=${1%x*} q=${1#*x}; echo $((p * q)); }

# write_dat GRID FILE: the one HPL.dat both sides read
write_dat() {
  local p=${1%x*} q=${1#*x}
  sed -e "4s/^[0-9]*\( *\)/6\1/" -e "6s/^[0-9]*\( *\)/$N\1/" -e "8s/^[0-9]*\( *\)/$NB\1/" \
    -e "11s/^[0-9]*\( *\)/$p\1/" -e "12s/^[0-9]*\( *\)/$q\1/" "$EXAMPLE" >"$2"
}

# run_hplx GRID -> "gflops seconds"
run_hplx() {
  local np
  np=$(ranks_of "$1")
  (cd "$WORK/hplx" && flock -x "$LOCK" mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS=$((CPUS / np)) "$HPLX" lu "$WORK/hplx/HPL.dat" >out 2>err) || {
    echo "hpldat-vs-netlib: hplx lu on $1 exited with an error:" >&2
    cat "$WORK/hplx/err" >&2
    exit 1
  }
  if grep -q FAILED "$WORK/hplx/out"; then
    echo "hpldat-vs-netlib: hplx on $1 FAILED the residual check" >&2
    exit 1
  fi
  awk '/^W[RC]/ {print $7, $6; found = 1} END {exit !found}' "$WORK/hplx/out"
}

# run_netlib GRID -> "gflops seconds dgemm_gflops_all_ranks"
run_netlib() {
  local np
  np=$(ranks_of "$1")
  rm -f "$WORK/netlib/hpccoutf.txt"
  (cd "$WORK/netlib" && flock -x "$LOCK" mpirun -np "$np" --bind-to none --oversubscribe \
    -x OMP_NUM_THREADS=$((CPUS / np)) hpcc >out 2>&1) || {
    echo "hpldat-vs-netlib: hpcc on $1 exited with an error:" >&2
    tail -20 "$WORK/netlib/out" >&2
    exit 1
  }
  if grep -q FAILED "$WORK/netlib/hpccoutf.txt"; then
    echo "hpldat-vs-netlib: netlib on $1 FAILED the residual check" >&2
    exit 1
  fi
  awk -F= -v np="$np" '
    /^W[RC]/ {split($0, w, " "); g = w[7]; t = w[6]; found = 1}
    $1 == "StarDGEMM_Gflops" {d = $2 * np}
    END {if (!found) exit 1; print g, t, d}' "$WORK/netlib/hpccoutf.txt"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) exit 1; print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

mkdir -p "$WORK/hplx" "$WORK/netlib"
for ((r = 1; r <= REPS; ++r)); do
  for grid in $GRIDS; do
    write_dat "$grid" "$WORK/hplx/HPL.dat"
    cp "$WORK/hplx/HPL.dat" "$WORK/netlib/hpccinf.txt"
    cp "$WORK/hplx/HPL.dat" "$OUT.d/HPL-$grid.dat"
    tpr=$((CPUS / $(ranks_of "$grid")))
    g="" t=""
    read -r g t < <(run_hplx "$grid")
    [[ -n $g ]] || { echo "hpldat-vs-netlib: no W line from hplx on $grid" >&2; exit 1; }
    echo "$r,hplx,$N,$NB,$grid,$tpr,$t,$g," | tee -a "$OUT" >&2
    g="" t="" d=""
    read -r g t d < <(run_netlib "$grid")
    [[ -n $g ]] || { echo "hpldat-vs-netlib: no W line from netlib on $grid" >&2; exit 1; }
    echo "$r,netlib,$N,$NB,$grid,$tpr,$t,$g,$d" | tee -a "$OUT" >&2
  done
done

{
  echo "hplx lu FILE against hpcc (netlib HPL 2.0) on the same HPL.dat, N = $N, NB $NB, $REPS rounds; $(date -u +%FT%TZ)"
  echo
  echo "| grid (ranks x threads) | hplx, median Gflops | netlib, median Gflops | hplx / netlib | DGEMM (hpcc), median |"
  echo "| --- | --- | --- | --- | --- |"
  for grid in $GRIDS; do
    col() { awk -F, -v s="$1" -v g="$grid" -v c="$2" '$2 == s && $5 == g {print $c}' "$OUT" | median; }
    mh=$(col hplx 8)
    mn=$(col netlib 8)
    md=$(col netlib 9)
    np=$(ranks_of "$grid")
    echo "| $grid ($np x $((CPUS / np))) | $(printf %.2f "$mh") | $(printf %.2f "$mn") | $(awk -v a="$mh" -v b="$mn" 'BEGIN {printf "%.3f", a / b}') | $(printf %.1f "$md") |"
  done
} | tee "$OUT.md"
echo "raw runs: $OUT; the HPL.dat files: $OUT.d/" >&2
