#!/usr/bin/env bash
# hplx hpl-mxp reports the LU-only rate beside the score, as the HPL-MxP
# rules ask: the result line keeps its fields and adds "LU only X Gflops",
# the record's test holds "lu_gflops", and both are 2/3 N^3 over the
# factorization's time (the record's phases_s.factor).
#   hpl_mxp_lu_rate.sh COMMAND...
# COMMAND runs `hplx hpl-mxp ... --json m.json` (in a scratch folder).
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! "$@" >out 2>&1; then
  echo "FAIL: $*"
  cat out
  exit 1
fi
grep "^HPL-MxP N=" out
python3 - <<'PY' || exit 1
import json, re
out = open("out").read()
m = re.search(r"^HPL-MxP N=(\d+) NB=\d+ P=\d+ Q=\d+ time ([0-9.]+) s score ([0-9.e+-]+) Gflops, "
              r"LU only ([0-9.e+-]+) Gflops$", out, re.M)
assert m, "no result line with the score and the LU-only rate"
n, printed = int(m.group(1)), float(m.group(4))
t = json.load(open("m.json"))["tests"][0]
assert t["passed"], "the HPL-MxP check failed"
lu = t["lu_gflops"]
expected = 2.0 / 3.0 * n ** 3 / t["phases_s"]["factor"] * 1e-9
print(f"printed {printed:.4e}, recorded {lu:.4e}, 2/3 N^3 / factor {expected:.4e} Gflops; "
      f"score {t['gflops']:.4e}")
assert abs(printed - lu) <= 1e-4 * lu, "the line and the record differ"
assert abs(lu - expected) <= 1e-9 * expected, "lu_gflops is not 2/3 N^3 over the factorization's time"
assert lu > t["gflops"], "the factorization alone is not faster than the whole solve"
PY
echo "PASS"
