#!/usr/bin/env bash
# How fast `hplx model` evaluates a TOP500-sized run: a sweep of 474 Summit
# configurations (N = 16.0M .. 16.47M, 41,667 to 42,900 panels each, three
# layers, original and MCL models), timed as a whole and without the
# process start (one single-point run subtracted); then the same sweep on a
# spec with every CPU term (docs/MODEL.md), which the MCL model adds per panel.
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
cpu=$(mktemp --suffix=.toml)
trap 'rm -f "$cpu"' EXIT
cat >"$cpu" <<'TOML'
[system]
name = "CPU terms, Summit-sized"
[device]
dgemm_gflops_by_threads = { "1" = 40, "2" = 78 }
fact_gflops = 17
fact_column_us = 2
trsm_gflops_by_threads = { "1" = 20, "2" = 36 }
swap_ns_per_word_by_threads = { "1" = 14, "2" = 9 }
memory_gib = 16
[schedule]
look_ahead = 1
fact_overlap = true
[node]
devices = 6
[node.link]
alpha_us = 1
bandwidth_gbs = 50
[network]
alpha_us = 1
bandwidth_gbs = 25
share = 6
[run]
nb = 384
grid = "198x132"
TOML
t3=$(date +%s.%N); "$HPLX" model "$cpu" --n 16000000:16473600:1000 --threads 2 >/dev/null; t4=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t3" -v d="$t4" 'BEGIN {
  one = b - a; sweep = d - c;
  printf "474 points with the CPU terms: %.3f s, %.2f ms per point after the start\n", sweep, 1000 * (sweep - one) / 473 }'
