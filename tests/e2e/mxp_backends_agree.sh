#!/usr/bin/env bash
# hplx mxp on the emulated device (a GPU's semantics: separate memory,
# asynchronous queues, random delays) against the host backend, same
# problem: both VALID, the validation's iteration counts equal in double and
# within 1 in mixed precision (the float solver's rounding may differ).
#   mxp_backends_agree.sh HPLX RANKS [LAUNCHER...]
set -u
hplx=$1 ranks=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
args=(mxp --nx 16 --ny 16 --nz 16 --time 0.2 --iterations 30)
for backend in host emulated; do
  if ! "$@" "$hplx" "${args[@]}" --backend "$backend" --json "$backend.json" >"$backend.out" 2>&1; then
    echo "FAIL: hplx mxp --backend $backend on $ranks ranks"
    cat "$backend.out"
    exit 1
  fi
done
python3 - <<'PY' || exit 1
import json
h = json.load(open("host.json"))["result"]
e = json.load(open("emulated.json"))["result"]
assert e["backend"] == "emulated", e["backend"]
hv, ev = h["validation"], e["validation"]
print("host:     valid", h["valid"], "| iterations double", hv["iterations_double"],
      "mixed", hv["iterations_mixed"])
print("emulated: valid", e["valid"], "| iterations double", ev["iterations_double"],
      "mixed", ev["iterations_mixed"])
assert h["valid"] and e["valid"]
assert ev["iterations_double"] == hv["iterations_double"]
assert abs(ev["iterations_mixed"] - hv["iterations_mixed"]) <= 1
PY
echo "PASS"
