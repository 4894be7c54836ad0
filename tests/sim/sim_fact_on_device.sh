#!/usr/bin/env bash
# hplx sim --fact-on device end to end on the H200 spec, small N: both
# schedules run, and FACT on the device (costed by the device FACT model,
# faster than the host's FACT on this spec) gives the shorter FACT and the
# faster run on one process row (with several, each column's pivot makes two
# host <-> device trips at host.link's alpha: not yet checked here). Then
# the measured device FACT (device.fact_probe): FACT at its `beside` time
# while the update runs (N = 40960: slower than with beside = alone) and at
# its `alone` time where no update runs beside it (N = 4096, one panel's
# update at a time: as fast). Usage: sim_fact_on_device.sh HPLX H200_SPEC
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
python3 - "$SPEC" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
alone = re.search(r"^alone_ms = (.*)$", text, re.M).group(1)
open("beside-as-alone.toml", "w").write(re.sub(r"^beside_ms = .*$", "beside_ms = " + alone, text, flags=re.M))
PY
seconds() {  # N SPEC: the simulated run's time
  "$HPLX" sim "$2" --n "$1" --nb 1024 --grid 1x1 --fact-on device --quiet --json t.json > t.out 2>&1 ||
    { cat t.out; fail "N = $1 on $2 exited $?"; }
  python3 -c 'import json; print(json.load(open("t.json"))["tests"][0]["time_s"])'
}
for n in 40960 4096; do
  measured=$(seconds $n "$SPEC") plain=$(seconds $n beside-as-alone.toml)
  [ -n "$measured" ] && [ -n "$plain" ] || fail "N = $n: no result line"
  echo "N = $n: $measured s with FACT slower beside the update, $plain s without"
  if [ $n = 40960 ]; then
    awk -v a="$measured" -v b="$plain" 'BEGIN { exit !(a > 1.2 * b) }' ||
      fail "N = $n: FACT beside the update was not charged its beside time"
  else
    awk -v a="$measured" -v b="$plain" 'BEGIN { exit !(a < 1.05 * b) }' ||
      fail "N = $n: FACT was charged its beside time with no update beside it"
  fi
done
echo PASS
