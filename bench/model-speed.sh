#!/usr/bin/env bash
# How fast `hplx model` evaluates a TOP500-sized run: a sweep of 474 Summit
# configurations (N = 16.0M .. 16.47M, 41,667 to 42,900 panels each, three
# layers, original and MCL models), timed as a whole and without the
# process start (one single-point run subtracted).
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
spec=examples/systems/summit.toml
t0=$(date +%s.%N); "$HPLX" model $spec --n 16473600 >/dev/null; t1=$(date +%s.%N)
"$HPLX" model $spec --n 16000000:16473600:1000 >/dev/null; t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  one = b - a; sweep = c - b;
  printf "one point (process start included): %.3f s\n", one;
  printf "474 points: %.3f s, %.2f ms per point after the start\n", sweep, 1000 * (sweep - one) / 473 }'
