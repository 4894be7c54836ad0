#!/usr/bin/env bash
# The end of a run names the rank that was really slow, and only it: of two
# ranks, rank 1 runs in a CPU cgroup limited to a fifth of a CPU (not a flag in
# hplx: the rank is slowed as a throttled node would be, whatever CPUs
# hplx binds it to). The closing line must name rank 1, not rank 0, and the
# record's "ranks" must hold both ranks' totals and name rank 1 alone.
#   slow_rank_named.sh HPLX MPIRUN...
# Exits 77 (skipped) where no CPU cgroup can be made (not root, or no cpu
# controller: cgroup v1's cpu.cfs_quota_us or v2's cpu.max); a failure
# instead with HPLX_REQUIRE_CGROUP=1 (CI, whose machine allows it).
set -u
hplx=$1
shift
work=$(mktemp -d)
group=
cleanup() {
  [ -n "$group" ] && rmdir "$group" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
name=hplx-slow-rank-$$
if [ -w /sys/fs/cgroup/cpu ] && mkdir "/sys/fs/cgroup/cpu/$name" 2>/dev/null; then
  group=/sys/fs/cgroup/cpu/$name
  echo 100000 >"$group/cpu.cfs_period_us" && echo 20000 >"$group/cpu.cfs_quota_us" || exit 1
elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
  mkdir "/sys/fs/cgroup/$name" 2>/dev/null; then
  group=/sys/fs/cgroup/$name
  echo "20000 100000" >"$group/cpu.max" || exit 1
else
  echo "SKIP: no CPU cgroup can be made here (root and a cpu controller needed)"
  [[ ${HPLX_REQUIRE_CGROUP:-0} == 1 ]] && { echo "FAIL: HPLX_REQUIRE_CGROUP=1"; exit 1; }
  exit 77
fi
cd "$work"
args=(lu --n 4000 --nb 128 --grid 1x2 --json r.json)
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
python3 - <<'PY' || exit 1
import json
test = json.load(open("r.json"))["tests"][0]
r = test["ranks"]
assert [x["rank"] for x in r["ranks"]] == [0, 1], r
assert all(x["update_s"] > 0 and x["host"] for x in r["ranks"]), r
assert [s["rank"] for s in r["slow"]] == [1], r
assert r["slow"][0]["slower"] > r["slow_threshold"] == 0.1, r
print("record: update", [round(x["update_s"], 3) for x in r["ranks"]], "slow", r["slow"])
PY
echo "PASS: the slowed rank, and only it, named in the line and the record"
