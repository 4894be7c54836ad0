#!/usr/bin/env bash
# Which NB, P x Q and split fraction for a machine: `hplx sim SPEC` over
# every combination of NBS x GRIDS x SPLITS on NODES nodes (N from the
# spec's memory fraction unless N is given), one line per run: the
# simulated time and Gflop/s, the balance point, where the iterations'
# time went (the slowest rank's FACT, LBCAST, row-swap copies and device
# update, summed over iterations) and this machine's seconds. The runs'
# JSON and logs stay in OUT (`hplx report OUT/*.json` draws them).
#   SPEC=dgx-h100 NODES=8 NBS="256 512 1024" GRIDS="8x8" bench/sim-sweep.sh
#   SPEC=dgx-h100 NODES=64 N=500000 GRIDS="16x32 32x16" SPLITS="0 0.5" bench/sim-sweep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
SPEC=${SPEC:-dgx-h100}
NODES=${NODES:-8}
NBS=${NBS:-"512"}
GRIDS=${GRIDS:-"8x8"}
SPLITS=${SPLITS:-"default"}
N=${N:-}
OUT=${OUT:-/tmp/hplx-sim-sweep}
mkdir -p "$OUT"

printf "%5s %7s %7s %9s %9s %12s %9s %7s %7s %7s %7s %8s\n" NB grid split N "sim s" "Gflop/s" \
  balance "fact" "bcast" "rscopy" "update" "wall s"
for nb in $NBS; do
  for grid in $GRIDS; do
    for split in $SPLITS; do
      name=$OUT/nb$nb-$grid-split$split
      args=(sim "$SPEC" --nodes "$NODES" --grid "$grid" --nb "$nb" --json "$name.json")
      [ -n "$N" ] && args+=(--n "$N")
      [ "$split" != default ] && args+=(--split "$split")
      start=$(date +%s.%N)
      if ! "$HPLX" "${args[@]}" > "$name.log" 2>&1; then
        echo "run NB $nb grid $grid split $split failed: $(tail -1 "$name.log")"
        continue
      fi
      end=$(date +%s.%N)
      python3 - "$name.json" "$split" "$start" "$end" <<'PY'
import json, sys
path, split, start, end = sys.argv[1:]
t = json.load(open(path))["tests"][0]
its = t["iterations"]
total = lambda key: sum(i.get(key, 0.0) for i in its)
b = t.get("balance_point")
bal = f"{b['percent_flops']:.0f}%fl" if b else "none"
print(f"{t['nb']:>5} {str(t['p']) + 'x' + str(t['q']):>7} {split:>7} {t['n']:>9} "
      f"{t['time_s']:9.2f} {t['gflops']:12.0f} {bal:>9} {total('fact_s'):7.1f} "
      f"{total('bcast_s'):7.1f} {total('rs_copy_s'):7.1f} {total('device_update_s'):7.1f} "
      f"{float(end) - float(start):8.1f}")
PY
    done
  done
done
