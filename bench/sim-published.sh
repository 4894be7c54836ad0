#!/usr/bin/env bash
# hplx sim against published HPL runs (issue 20's "faithful on published
# runs" goal): for every [[published]] run of the example specs with at most
# MAX_RANKS ranks, `hplx sim SPEC --n N --nb NB --grid PxQ --nodes NODES`
# (the analytic model's prediction comes with it in the record), then
# bench/sim-published.py tables the simulation and the model beside the
# published figure. Each simulation is timed (this machine's seconds) and
# stopped after TIMEOUT seconds. The simulated runs' JSON stays in OUT.
#   bench/sim-published.sh                      # MAX_RANKS = 64
#   MAX_RANKS=16 SPECS="hdpex-p100" OUT=/tmp/p bench/sim-published.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
MAX_RANKS=${MAX_RANKS:-64}
TIMEOUT=${TIMEOUT:-1800}
SPECS=${SPECS:-"hdpex-p100 seed003-4gpu frontier-crusher selene summit"}
LOCK=${LOCK:-/tmp/hplx-cpu.lock}
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-sim-published}
mkdir -p "$OUT"

for spec in $SPECS; do
  python3 - "examples/systems/$spec.toml" "$MAX_RANKS" <<'PY' > "$OUT/$spec.runs"
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
for i, p in enumerate(d.get("published", [])):
    pq = [int(x) for x in p["grid"].split("x")]
    if pq[0] * pq[1] <= int(sys.argv[2]):
        print(i, p["n"], p["nb"], p["grid"], p["nodes"])
PY
  while read -r i n nb grid nodes; do
    base=$OUT/$spec-$i
    [ -f "$base.json" ] && continue
    echo "== $spec published[$i]: N=$n NB=$nb grid=$grid nodes=$nodes ($(date -u +%H:%M:%S))"
    flock -x "$LOCK" /usr/bin/time -f "%e %M" -o "$base.time" timeout "$TIMEOUT" \
      "$HPLX" sim "$spec" --n "$n" --nb "$nb" --grid "$grid" --nodes "$nodes" --json "$base.json" \
      --quiet > "$base.log" 2>&1 || echo "   failed or stopped after ${TIMEOUT} s: $(tail -1 "$base.log")"
    grep -h "^WR" "$base.log" || true
  done < "$OUT/$spec.runs"
done
python3 bench/sim-published.py "$OUT" | tee "$OUT/summary.txt"
