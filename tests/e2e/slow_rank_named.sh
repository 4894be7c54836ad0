#!/usr/bin/env bash
# The preflight and the end of a run name the rank that was really slow,
# and only it: of two ranks, rank 1 runs in a CPU cgroup limited to a fifth
# of a CPU (not a flag in hplx: the rank is slowed as a throttled node would
# be, whatever CPUs hplx binds it to). The preflight's lines (--preflight
# on: one host) and the closing line must name rank 1, not rank 0; the
# record's "preflight" and "ranks" must hold both ranks' figures and name
# rank 1 alone.
#   slow_rank_named.sh HPLX MPIRUN...
# Exits 77 (skipped) where no CPU cgroup can be made (not root, or no cpu
# controller: cgroup v1's cpu.cfs_quota_us or v2's cpu.max); a failure
# instead with HPLX_REQUIRE_CGROUP=1 (CI, whose machine allows it).
set -u
hplx=$1
shift
work=$(mktemp -d)
. "$(dirname "$0")/../multihost/cpu_cgroup.sh"
cleanup() {
  cpu_cgroup_remove
  rm -rf "$work"
}
trap cleanup EXIT
cpu_cgroup_make "hplx-slow-rank-$$" 20
group=$cpu_group
cd "$work"
args=(lu --n 4000 --nb 128 --grid 1x2 --preflight on --json r.json)
# MPMD: rank 0 as it is, rank 1 moved into the group before it execs hplx.
if ! "$@" -n 1 -x OMP_NUM_THREADS=1 "$hplx" "${args[@]}" : \
  -n 1 -x OMP_NUM_THREADS=1 sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group" \
  "$hplx" "${args[@]}" >lu.out 2>&1; then
  echo "FAIL: hplx lu"
  cat lu.out
  exit 1
fi
grep -E "slow|PASSED|FAILED" lu.out
grep -qE "slow rank 1 on [^:]+: update .* slower than the others' median" lu.out ||
  { echo "FAIL: rank 1 (slowed) was not named"; exit 1; }
if grep -q "slow rank 0 on" lu.out; then echo "FAIL: rank 0 (not slowed) was named"; exit 1; fi
grep -qE "^hplx: preflight: slow rank 1 on [^:]+: DGEMM .* below the other ranks' median" lu.out ||
  { echo "FAIL: the preflight did not name rank 1's DGEMM"; exit 1; }
if grep -q "preflight: slow rank 0 on" lu.out; then echo "FAIL: the preflight named rank 0"; exit 1; fi
python3 - <<'PY' || exit 1
import json
test = json.load(open("r.json"))["tests"][0]
r = test["ranks"]
assert [x["rank"] for x in r["ranks"]] == [0, 1], r
assert all(x["update_s"] > 0 and x["host"] for x in r["ranks"]), r
assert [s["rank"] for s in r["slow"]] == [1], r
assert r["slow"][0]["slower"] > r["slow_threshold"] == 0.1, r
print("record: update", [round(x["update_s"], 3) for x in r["ranks"]], "slow", r["slow"])
p = json.load(open("r.json"))["preflight"]
assert [x["rank"] for x in p["ranks"]] == [0, 1], p
assert p["mode"] == "on" and p["threshold"] == 0.1, p
assert all(x["gemm_gflops"] > 0 and x["memory_gbs"] > 0 and x["link_gbs"] > 0 for x in p["ranks"]), p
assert {s["rank"] for s in p["slow"]} == {1}, p["slow"]
print("preflight: DGEMM", [round(x["gemm_gflops"], 1) for x in p["ranks"]], "slow", p["slow"])
PY
echo "PASS: the slowed rank, and only it, named by the preflight, the closing line and the record"
