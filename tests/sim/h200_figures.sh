#!/usr/bin/env bash
# The H200 spec's measured device figures are what bench/gpu/spec-figures.py
# derives from the GPU runs' committed raw files: every line it prints
# (the fact probe's table, the update's share of DGEMM) is in the spec, and
# in the DGX H100 spec, which takes them for the same Hopper GPU (its
# DGEMM model the H200's, so the share is against the same rates).
# Usage: h200_figures.sh SOURCE_DIR
set -euo pipefail
cd "$1"
run=bench/results/2026-11-28-gpu-check-h200/call1
missing=0
for spec in examples/systems/h200.toml examples/systems/dgx-h100.toml; do
  derived=$(python3 bench/gpu/spec-figures.py --spec "$spec" --fact "$run/fact-probe.json" \
    --lu "$run/lu-full.json" "$run/lu-ab-device.json")
  while IFS= read -r line; do
    [[ $line == \#* ]] && continue
    grep -qxF "$line" "$spec" || { echo "FAIL: not in $spec: $line"; missing=1; }
  done <<<"$derived"
  ((missing == 0)) || { echo "$derived"; exit 1; }
done
echo PASS
