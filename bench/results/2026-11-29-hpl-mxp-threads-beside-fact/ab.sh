#!/usr/bin/env bash
# hpl-mxp 1x1 (one rank, 2 threads), N=20000 NB 256: before (beedd76) vs after, alternating.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=$1
echo "# round side gflops time_s factor_s" > "$OUT"
run() {
  mpirun -np 1 --bind-to none "$2" hpl-mxp --n 20000 --nb 256 --quiet --json /tmp/ab/m.json > /tmp/ab/m.out 2>&1
  echo "$1 $3 $(jq -r '.result | "\(.gflops) \(.time_s) \(.phases_s.factor)"' /tmp/ab/m.json)" >> "$OUT"
}
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then run $r /tmp/ab/hplx-before before; run $r /tmp/ab/hplx-threads after
  else run $r /tmp/ab/hplx-threads after; run $r /tmp/ab/hplx-before before; fi
done
