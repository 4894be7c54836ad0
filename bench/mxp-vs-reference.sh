#!/usr/bin/env bash
# hplx mxp against the HPG-MxP reference (hpg-mxp/hpg-mxp, built by you
# outside this repository) on this machine, alternating, median of REPS.
#
#   bench/mxp-vs-reference.sh /path/to/xhpgmp [NX] [RANKS]
#   REPS=3 TIME=20 bench/mxp-vs-reference.sh /tmp/peer/bin/xhpgmp 32 2
#
# Each run is one piece under `flock -x /tmp/hplx-cpu.lock` (the machine is
# shared); a STREAM triad (1 thread and all threads) runs before the first
# and after the last pair. Both sides run RANKS ranks x 1 thread with
# --bind-to none on a local NX^3 grid. The reference runs with --rt=TIME
# (it runs 10 timed solves of 300 iterations whatever --rt says, unless
# --rt is negative, then it fills 120 s); hplx fills TIME seconds per phase.
# Printed: per run the rating, raw mixed and double GFLOP/s and validation
# iterations of both, then the medians. Raw lines go to $OUT.
set -euo pipefail

REF=${1:?usage: $0 /path/to/xhpgmp [NX] [RANKS]}
NX=${2:-64}
RANKS=${3:-2}
REPS=${REPS:-3}
TIME=${TIME:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
TRIAD=${TRIAD:-$ROOT/build/bin/hplx_stream_triad}
OUT=${OUT:-$ROOT/bench/results/mxp-vs-reference-$(date +%Y%m%d-%H%M%S).txt}
LOCK=/tmp/hplx-cpu.lock
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
. "$ROOT/bench/peer-blas-core.sh"
MPIRUN=(mpirun --oversubscribe --bind-to none -n "$RANKS")
mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

triad() {
  for t in 1 $(nproc --all); do
    OMP_NUM_THREADS=$t flock -x $LOCK "$TRIAD" | tee -a "$OUT"
  done
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# $(date -u +%FT%TZ) $(hostname) nx=$NX ranks=$RANKS time=$TIME reps=$REPS" | tee -a "$OUT"
echo "# hplx: $("$HPLX" --version)  reference: $REF" | tee -a "$OUT"
triad
for rep in $(seq "$REPS"); do
  # hplx
  flock -x $LOCK "${MPIRUN[@]}" "$HPLX" mxp --nx "$NX" --ny "$NX" --nz "$NX" --time "$TIME" \
    >"$work/hplx.out" 2>"$work/hplx.err"
  h_rating=$(sed -n 's/.*VALID with a GFLOP\/s rating of: //p' "$work/hplx.out")
  h_mixed=$(awk -F': ' '/^  Raw Total:/ {print $2}' "$work/hplx.out")
  h_double=$(awk -F': ' '/^   - Raw Total \(reference\):/ {v = $2} END {print v}' "$work/hplx.out")
  h_nd=$(awk -F': ' '/Number of reference iterations/ {print $2}' "$work/hplx.out")
  h_nm=$(awk -F': ' '/Number of optimized iterations/ {print $2}' "$work/hplx.out")
  echo "hplx rep=$rep rating=$h_rating mixed=$h_mixed double=$h_double iters=$h_nd/$h_nm" | tee -a "$OUT"
  # reference, in its own directory (it writes its reports into the cwd)
  rm -rf "$work/ref" && mkdir "$work/ref" && cp "$(dirname "$REF")/hpgmp.dat" "$work/ref/" 2>/dev/null || true
  (cd "$work/ref" && flock -x $LOCK "${MPIRUN[@]}" "$REF" --nx="$NX" --ny="$NX" --nz="$NX" \
    --rt="$TIME" >ref.out 2>&1)
  rep_file=$(ls "$work"/ref/HPGMP-Benchmark_*.txt | head -1)
  r_rating=$(sed -n 's/.*VALID with a GFLOP\/s rating of=//p' "$rep_file")
  r_mixed=$(sed -n 's/^GFLOP\/s Summary::Raw Total=//p' "$rep_file")
  r_double=$(sed -n 's/^GFLOP\/s Summary:: - Raw Total (reference)=//p' "$rep_file")
  r_nd=$(sed -n 's/.*Number of reference iterations (validation)=//p' "$rep_file")
  r_nm=$(sed -n 's/.*Number of optimized iterations (validation)=//p' "$rep_file")
  echo "reference rep=$rep rating=$r_rating mixed=$r_mixed double=$r_double iters=$r_nd/$r_nm" | tee -a "$OUT"
done
triad
for side in hplx reference; do
  for f in rating mixed double; do
    m=$(grep "^$side rep=" "$OUT" | tail -n "$REPS" | sed -n "s/.* $f=\([^ ]*\).*/\1/p" | median)
    echo "median $side $f $m" | tee -a "$OUT"
  done
done
