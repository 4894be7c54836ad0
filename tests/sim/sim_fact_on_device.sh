#!/usr/bin/env bash
# hplx sim --fact-on device end to end on the H200 spec, small N: both
# schedules run, and FACT on the device (costed by the device FACT model,
# faster than the host's FACT on this spec) gives the shorter FACT and the
# faster run on one process row (with several, each column's pivot makes two
# host <-> device trips at host.link's alpha: not yet checked here). Then
# the measured device FACT (device.fact_probe): FACT at its `beside` time
# while the update runs (N = 40960: slower than with beside = alone) and at
# its `alone` time where no update runs beside it (N = 4096, one panel's
# update at a time: as fast). Then --update-sms (below).
# Usage: sim_fact_on_device.sh HPLX H200_SPEC
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
# --update-sms (the spec's device.multiprocessors, 132): at N = 40960,
# where FACT beside the update bounds the run, keeping 4 SMs for FACT makes
# it faster (the update 132/128 as long, FACT at its alone time); keeping
# them only below 1 trailing row (the last iteration, whose update is b's
# column) leaves the time within 0.1%; a spec without
# device.multiprocessors refuses the option in one line.
sms_seconds() {  # OPTION...: the simulated run's time on the spec
  "$HPLX" sim "$SPEC" --n 40960 --nb 1024 --grid 1x1 --fact-on device --quiet --json s.json "$@" \
    > s.out 2>&1 || { cat s.out; fail "--update-sms $* exited $?"; }
  python3 -c 'import json; print(json.load(open("s.json"))["tests"][0]["time_s"])'
}
plain=$(sms_seconds) kept=$(sms_seconds --update-sms 128) never=$(sms_seconds --update-sms 128 --update-sms-below 1)
echo "N = 40960: $plain s, $kept s with 4 SMs kept for FACT, $never s with them kept below 1 row"
awk -v a="$kept" -v b="$plain" 'BEGIN { exit !(a < 0.9 * b) }' ||
  fail "--update-sms 128: FACT beside the update was not charged its alone time"
awk -v a="$never" -v b="$plain" 'BEGIN { exit !(a > 0.999 * b && a < 1.001 * b) }' ||
  fail "--update-sms-below 1 changed the time ($never s against $plain s)"
python3 -c 'import json, sys; s = json.load(open("s.json"))["tests"][0]["schedule"]
sys.exit(not (s["update_sms"] == 128 and s["update_sms_below"] == 1))' ||
  fail "the record does not say --update-sms 128 --update-sms-below 1"
grep -v '^multiprocessors' "$SPEC" > no-sms.toml
out=$("$HPLX" sim no-sms.toml --n 4096 --nb 1024 --grid 1x1 --fact-on device --update-sms 128 2>&1) &&
  fail "--update-sms on a spec without device.multiprocessors ran"
grep -q "^hplx: error: --update-sms 128: .*no-sms.toml gives no device.multiprocessors" <<<"$out" ||
  { echo "$out"; fail "no one-line error for --update-sms without device.multiprocessors"; }
echo PASS
