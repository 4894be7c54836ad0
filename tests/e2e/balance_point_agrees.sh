#!/usr/bin/env bash
# hplx lu's (and hplx sim's) closing line, its record and hplx report name
# the same balance point: the line's iteration is the record's "balance_point", and hplx
# report, given the record without it, computes the same from the record's
# own "iterations" (one definition, over the times a reader sees). And it is
# where those rows put it (docs/REPORT.md), the device's times where the
# record has them: from it on every row's update is below its FACT + RS,
# and the row before it not.
#   balance_point_agrees.sh HPLX WANT [ENV=VALUE...] [LAUNCHER...] -- lu|sim ARGS...
# WANT: "some" (the run must have a balance point; with it the record must
# show FACT slower than the update, summed over the iterations, on the
# device's clock where the record has it) or "any" (none in all three is
# agreement too). The LU runs as `LAUNCHER... HPLX lu|sim ARGS... --json r.json`.
set -u
hplx=$1 want=$2
shift 2
launcher=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! "${launcher[@]}" "$hplx" "$@" --json r.json >lu.out 2>&1; then
  echo "FAIL: hplx $*"
  cat lu.out
  exit 1
fi
grep -E "balance point|PASSED|FAILED" lu.out
python3 - "$want" <<'PY' || exit 1
import json, re, sys
want = sys.argv[1]
out = open("lu.out").read()
lines = re.findall(r"hplx: \S+ N=\d+ NB=\d+: (balance point at iteration (\d+) of (\d+)|no balance point)", out)
assert len(lines) == 1, f"expected one closing balance-point line, found {lines}"
said = int(lines[0][1]) if lines[0][1] else None
r = json.load(open("r.json"))
t = r["tests"][0]
assert t["verdict"] in ("PASSED", "SIMULATED"), t["verdict"]
bp = t["balance_point"]
recorded = bp["iteration"] if bp is not None else None
print(f"closing line: {said}, record: {recorded}, iterations: {len(t['iterations'])}")
assert said == recorded, f"the closing line says {said}, the record {recorded}"
its = t["iterations"]
def panel_bound(i):
    dev = {k: i.get("device_" + k, 0) for k in ("update_s", "swap_s", "fact_s")}
    if max(dev.values()) > 0:
        swaps = dev["swap_s"] if dev["swap_s"] > 0 else i["rs_copy_s"]
        fact = dev["fact_s"] if dev["fact_s"] > 0 else max(
            i["fact_s"], i["iter_s"] - dev["update_s"] - dev["swap_s"])
        return dev["update_s"] < fact + i["rs_comm_s"] + swaps
    return i["update_s"] < i["fact_s"] + i["rs_comm_s"] + i["rs_copy_s"]
bound = [panel_bound(i) for i in its]
b = len(its)
while b > 0 and bound[b - 1]:
    b -= 1
rows = None if b == len(its) else b
print(f"the record's rows put it at {rows}")
assert said == rows, f"the line says {said}, the record's rows {rows}"
if want == "some":
    assert said is not None, "no balance point where FACT is slower than the update"
    clock = "device_" if "device_fact_s" in its[0] else ""
    fact = sum(i[clock + "fact_s"] for i in its)
    update = sum(i[clock + "update_s"] for i in its)
    print(f"{clock}fact_s {fact:.4f} s, {clock}update_s {update:.4f} s in all")
    assert fact > update, "the record does not show FACT slower than the update"
del t["balance_point"]
json.dump(r, open("stripped.json", "w"))
open("said", "w").write("none" if said is None else str(said))
PY
if ! "$hplx" report stripped.json -o r.html >report.out 2>&1; then
  echo "FAIL: hplx report"
  cat report.out
  exit 1
fi
said=$(cat said)
if [ "$said" = none ]; then
  grep -q "No balance point" r.html || { echo "FAIL: the report finds a balance point, the run none"; exit 1; }
else
  grep -q "Balance point: iteration $said (" r.html ||
    { echo "FAIL: the report's balance point is not iteration $said:"; grep -o "Balance point: iteration [0-9]*" r.html; exit 1; }
fi
echo "PASS: closing line, record and report agree (${said})"
