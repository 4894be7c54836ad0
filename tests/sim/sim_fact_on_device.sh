#!/usr/bin/env bash
# hplx sim --fact-on device end to end on the H200 spec, small N: both
# schedules run, and FACT on the device (costed by the device FACT model,
# faster than the host's FACT on this spec) gives the shorter FACT and the
# faster run on one process row (with several, each column's pivot makes two
# host <-> device trips at host.link's alpha: not yet checked here). Usage: sim_fact_on_device.sh HPLX H200_SPEC
set -euo pipefail
HPLX=$1 SPEC=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
for grid in 1x1; do
  for on in host device; do
    "$HPLX" sim "$SPEC" --n 8192 --nb 512 --grid $grid --fact-on $on \
      --json $on-$grid.json --quiet > $on-$grid.out 2>&1 || { rc=$?; cat $on-$grid.out; fail "--fact-on $on $grid exited $rc"; }
    grep -qE "^WR.* +8192 +512 " $on-$grid.out || { cat $on-$grid.out; fail "no result line ($on, $grid)"; }
  done
done
python3 - <<'PY'
import json, sys
for grid in ("1x1",):
    h = json.load(open(f"host-{grid}.json"))["tests"][0]
    d = json.load(open(f"device-{grid}.json"))["tests"][0]
    print(f"{grid}: host FACT {h['phases_s']['fact']:.3f} s, {h['gflops']:.0f} Gflop/s; "
          f"device FACT {d['phases_s']['fact']:.3f} s, {d['gflops']:.0f} Gflop/s")
    if not d["gflops"] > h["gflops"]:
        print(f"FAIL: {grid}: FACT on the device is not faster"); sys.exit(1)
    if not d["schedule"].get("fact_on") == "device" or not h["schedule"].get("fact_on") == "host":
        print(f"FAIL: {grid}: the record does not say where FACT ran"); sys.exit(1)
PY
echo PASS
