#!/usr/bin/env bash
# hplx across two hosts: two network namespaces on this machine, each with
# its own hostname, joined by veth pairs to a bridge on a private subnet;
# Open MPI's mpirun (in the root namespace, on the bridge) starts its
# daemons in them through netns_agent.sh instead of ssh, and every byte
# between the hosts goes over TCP. With 2 hosts x 2 ranks it checks, from
# what hplx prints and records:
#   - lu on a 2x2 grid PASSES; its first line says 2 nodes, 2 ranks per
#     node and the thread plan of a node whose cpus 2 ranks share; its JSON
#     record is complete and names rank 0's host;
#   - the memory preflight divides a node's memory by its 2 ranks, not by
#     the job's 4 (lu and mxp refuse a problem too large with that figure);
#   - --core-sharing on sees a 1 x 2 node grid (row-major) and 2 x 1
#     (column-major), and binds and threads accordingly;
#   - mxp on 2 x 2 x 1 ranks is VALID, with the same thread plan;
#   - a rank killed with SIGKILL on the second host ends the job within
#     10 s, non-zero, with the lost rank named, rank 0's record keeps the
#     finished tests marked interrupted, and no process is left on a host.
# Then it removes what it made (namespaces, links, Open MPI's files named
# after its hosts) and checks that nothing is left.
#   two_hosts.sh HPLX [MPIRUN]
# Exit status: 0 passed, 1 failed, 77 skipped (not root, or namespaces or
# veth links not permitted here; the reason is printed; with
# HPLX_REQUIRE_MULTIHOST=1 a skip is a failure).
set -u
[[ $# -ge 1 ]] || { echo "usage: two_hosts.sh HPLX [MPIRUN]" >&2; exit 2; }
hplx=$(realpath "$1")
mpirun=${2:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
started=$(date +%s.%N)

# shellcheck source=netns_hosts.sh
. "$here/netns_hosts.sh"

# --- what the machine must allow ------------------------------------------
netns_require ip unshare pgrep python3 timeout
command -v "$mpirun" >/dev/null || fail "no mpirun: $mpirun"
[[ -x $hplx ]] || fail "no hplx at $1"

work=$(mktemp -d)
job="" # the mpirun (or timeout) running now, in the background: see run()

# Ends the job: SIGTERM first, so mpirun can end its ranks, then SIGKILL.
stop_job() {
  [[ -n $job ]] || return 0
  pkill -TERM -P "$job" 2>/dev/null
  kill -TERM "$job" 2>/dev/null
  for _ in $(seq 1 30); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
  pkill -KILL -P "$job" 2>/dev/null
  kill -KILL "$job" 2>/dev/null
  job=""
}

cleanup() {
  stop_job
  netns_remove_hosts
  cd / && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

netns_make_hosts
echo "hosts: $h1 ($subnet.1) and $h2 ($subnet.2) on bridge $bridge ($subnet.254/24); mpirun on the bridge"

# shellcheck disable=SC2054 # the commas are Open MPI's host list
mpi=("$mpirun" --host "$h1:2,$h2:2" -n 4 --map-by slot --bind-to none --oversubscribe
  --mca plm_rsh_agent "$here/netns_agent.sh" --mca plm_rsh_no_tree_spawn 1
  --mca oob_tcp_if_include "$subnet.0/24" --mca btl_tcp_if_include "$subnet.0/24"
  --mca btl tcp,self,vader)
cd "$work" || fail "no work folder"

# run NAME ARGS...: hplx under mpirun on the two hosts; stdout in NAME.out,
# stderr in NAME.err, the exit status in $rc. In the background: bash runs
# a trap only once a foreground command ends, and a wait is interrupted.
run() {
  local name=$1
  shift
  local t0
  t0=$(date +%s.%N)
  timeout -k 5 120 "${mpi[@]}" "$hplx" "$@" >"$name.out" 2>"$name.err" &
  job=$!
  wait "$job"
  rc=$?
  job=""
  echo "-- $name: hplx $* -> exit $rc in $(since "$t0") s"
}
show() { echo "--- $1.out (tail)"; tail -n 15 "$1.out"; echo "--- $1.err"; cat "$1.err"; }
expect_rc() { [[ $rc -eq $2 ]] || { show "$1"; fail "$1: exit status $rc, expected $2"; }; }
has() { grep -qE -- "$3" "$1.$2" || { show "$1"; fail "$1: $2 lacks: $3"; }; }
line_of() { grep -m1 -E -- "$3" "$1.$2"; }

# What a node is here: the cpus this script may use (the hosts' too), and
# the thread plan hplx must find for 2 ranks sharing them.
read -r cpus cpu_list < <(python3 -c '
import os
c = sorted(os.sched_getaffinity(0)); r = []
for x in c:
    if r and x == r[-1][1] + 1: r[-1][1] = x
    else: r.append([x, x])
print(len(c), ",".join(str(a) if a == b else f"{a}-{b}" for a, b in r))')
threads=$((cpus / 2 > 1 ? cpus / 2 : 1))
plural() { [[ $1 -eq 1 ]] && echo "$1 $2" || echo "$1 $2s"; }
plan="hplx: 4 ranks x $(plural $threads thread) on $(plural "$cpus" cpu) per node (2 ranks per node, 2 nodes), binding: "
cpu_word=cpus
[[ $cpus -eq 1 ]] && cpu_word=cpu
binding="(none \\(ranks share $cpu_word $cpu_list\\)|shared \\(all ranks bound to $cpu_word $cpu_list\\))"
over=""
[[ $((2 * threads)) -gt $cpus ]] && over="; oversubscribed: $(plural $((2 * threads)) thread) on $(plural "$cpus" cpu)"
plan_re="^$(printf '%s' "$plan" | sed 's/[()]/\\&/g')$binding$(printf '%s' "$over" | sed 's/[()]/\\&/g')\$"

# Bytes through a host's network interface: the hosts share nothing else,
# so the ranks of one host reach the other's over TCP or not at all.
eth_bytes() {
  ip -j -s -n "$1" link show eth0 |
    python3 -c 'import json, sys; s = json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["bytes"] + s["tx"]["bytes"])'
}

# --- lu on 2x2 -------------------------------------------------------------
# Row-major: process row 0 on $h1, row 1 on $h2, so the column exchanges
# (pivot search, row swaps, U) cross between the hosts.
before=$(eth_bytes "$h2")
run lu lu --n 1000 --nb 32 --grid 2x2 --json lu.json
expect_rc lu 0
crossed=$(($(eth_bytes "$h2") - before))
# At least an eighth of the matrix (8 MB) went between the hosts.
[[ $crossed -gt 1000000 ]] || fail "lu: only $crossed bytes went through $h2's interface"
has lu out "^WR11C2R4 +1000 +32 +2 +2 "
has lu out "\\.\\.\\.\\.\\.\\. PASSED$"
has lu out "1 tests completed and passed residual checks"
has lu err "$plan_re"
echo "   $(line_of lu err '^hplx: 4 ranks')"
ok "lu 2x2 PASSED; 2 nodes, 2 ranks per node, $(plural $threads thread) per rank on $cpus cpus; $((crossed >> 10)) KiB over $h2's interface"
python3 - "$h1" "$plan_re" <<'PY' || fail "lu.json"
import json, re, sys
r = json.load(open("lu.json"))
assert r["status"] == "complete", r["status"]
assert [t["verdict"] for t in r["tests"]] == ["PASSED"], r["tests"]
assert r["machine"]["hostname"] == sys.argv[1], r["machine"]["hostname"]
assert any(re.match(sys.argv[2], n) for n in r["notes"]), r["notes"]
print(f"ok: lu.json complete, PASSED, hostname {r['machine']['hostname']}, the plan in its notes")
PY

# --- the memory preflight counts the ranks of a node, not of the job --------
# Both hosts share this machine's memory, so each offers all of it to its 2
# ranks: half per rank (a single-node reading of 4 ranks would give a quarter).
avail=$(python3 -c 'import json; print(json.load(open("lu.json"))["machine"]["mem_available_bytes"])')
per_rank_ok() { # NAME GIB: within 25% of half of what rank 0's host had available
  python3 -c 'import sys; g = float(sys.argv[1]) * 2**30; half = float(sys.argv[2]) / 2
sys.exit(0 if 0.75 * half < g < 1.25 * half else 1)' "$2" "$avail" ||
    fail "$1: $2 GiB per rank is not half of the node's $avail bytes"
}
run lu_memory lu --n 3000000 --nb 32 --grid 2x2
expect_rc lu_memory 2
has lu_memory err "N = 3000000 on a 2 x 2 grid needs [0-9.]+ [KMGTPE]iB per rank, only [0-9.]+ GiB is available per rank"
gib=$(line_of lu_memory err "is available per rank" | sed -E 's/.*only ([0-9.]+) GiB is available per rank.*/\1/')
per_rank_ok lu_memory "$gib"
echo "   $(line_of lu_memory err 'is available per rank')"
ok "lu preflight: $gib GiB per rank = half of a node's $((avail >> 20)) MiB available"

# --- core sharing: the node-local grid comes from the hosts -----------------
if [[ $cpus -ge 2 ]]; then
  part=$((cpus - 2))
  for pmap in row column; do
    [[ $pmap == row ]] && grid="1 x 2" fact=$((1 + part)) update=$((1 + part / 2))
    [[ $pmap == column ]] && grid="2 x 1" fact=$((1 + part / 2)) update=$((1 + part / 2))
    run core_sharing_$pmap lu --n 800 --nb 32 --grid 2x2 --pmap $pmap --core-sharing on
    expect_rc core_sharing_$pmap 0
    has core_sharing_$pmap out "\\.\\.\\.\\.\\.\\. PASSED$"
    has core_sharing_$pmap err "$plan_re"
    has core_sharing_$pmap err "^hplx: core sharing: node grid $grid on $cpus cpus; this rank \\(node row 0, column 0\\): root cpu [0-9]+, pool [-0-9,a-z]+ -> bound to cpus [-0-9,]+, FACT $(plural "$fact" thread), update $(plural "$update" thread)$"
    echo "   $(line_of core_sharing_$pmap err 'core sharing:')"
    ok "core sharing ($pmap-major): node grid $grid on $cpus cpus, FACT $fact, update $update threads, PASSED"
  done
else
  echo "note: core sharing not checked: $cpus cpu cannot give 2 ranks a root core each"
fi

# --- mxp on 2 x 2 x 1 ---------------------------------------------------------
run mxp mxp --nx 16 --ny 16 --nz 16 --time 0.5 --iterations 10 --json mxp.json
expect_rc mxp 0
has mxp out "HPGMP result is VALID"
has mxp err "$plan_re"
has mxp err "^hplx mxp: 4 ranks as 2 x 2 x 1, local 16 x 16 x 16, global 32 x 32 x 16"
has mxp err "validation .*\\(converged\\).*\\(converged\\)"
echo "   $(line_of mxp err '^hplx: 4 ranks')"
python3 - "$h1" "$plan_re" <<'PY' || fail "mxp.json"
import json, re, sys
r = json.load(open("mxp.json"))
assert r["result"]["valid"] is True, r["result"].get("valid")
assert r["machine"]["hostname"] == sys.argv[1], r["machine"]["hostname"]
assert re.match(sys.argv[2], r["thread_plan"]), r["thread_plan"]
print("ok: mxp.json valid, the same plan, hostname", r["machine"]["hostname"])
PY
ok "mxp VALID on 2 hosts x 2 ranks"
run mxp_memory mxp --nx 1024 --ny 1024 --nz 1024
expect_rc mxp_memory 2
has mxp_memory err "needs about [0-9.]+ GiB per rank, only [0-9.]+ GiB available per rank"
gib=$(line_of mxp_memory err "available per rank" | sed -E 's/.*only ([0-9.]+) GiB available per rank.*/\1/')
per_rank_ok mxp_memory "$gib"
echo "   $(line_of mxp_memory err 'available per rank')"
ok "mxp preflight: $gib GiB per rank = half of a node's memory"

# --- a rank lost on the second host ----------------------------------------------
# 8 tests; once the record shows one finished, rank 3 (on $h2) gets SIGKILL.
sed -e "5s/^[0-9]*/8/" -e "6s/^.*/1200 1200 1200 1200 1200 1200 1200 1200  Ns/" -e "8s/^[0-9]*/32/" \
  -e "11s/^[0-9]*/2/" -e "12s/^[0-9]*/2/" "$src/examples/HPL.dat" >in.dat
setsid "${mpi[@]}" "$hplx" lu "$work/in.dat" --json kill.json -q >kill.out 2>&1 &
job=$!
done_tests() {
  python3 -c 'import json; print(json.load(open("kill.json"))["progress"]["done"])' 2>/dev/null || echo 0
}
for _ in $(seq 1 900); do
  [[ $(done_tests) -ge 1 ]] && break
  kill -0 "$job" 2>/dev/null || { cat kill.out; fail "the job ended before a test finished"; }
  sleep 0.1
done
[[ $(done_tests) -ge 1 ]] || { cat kill.out; fail "no test finished in 90 s"; }
victim=""
for p in $(pgrep -f "$hplx lu $work/in.dat"); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=3" && victim=$p
done
[[ -n $victim ]] || fail "rank 3 not found"
where=$(ip netns identify "$victim")
[[ $where == "$h2" ]] || fail "rank 3 (pid $victim) runs in namespace '$where', not $h2"
t0=$(date +%s.%N)
kill -KILL "$victim"
for _ in $(seq 1 300); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$job" 2>/dev/null; then
  took=$(since "$t0")
  cat kill.out
  fail "the job still runs $took s after rank 3 was killed"
fi
wait "$job"
rc=$?
took=$(since "$t0")
job=""
echo "-- kill: rank 3 (pid $victim on $h2) killed after $(done_tests) finished tests; mpirun exit $rc, $took s later"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 10 else 1)' "$took" ||
  { cat kill.out; fail "the job took $took s to end (allowed: 10)"; }
[[ $rc -ne 0 ]] || { cat kill.out; fail "the job exited 0 after losing a rank"; }
grep -qE "rank 3 .*on node $h2 .*(signal 9|Killed)" kill.out || { cat kill.out; fail "the output does not name rank 3 on $h2"; }
echo "   $(grep -m1 -E "rank 3 " kill.out)"
python3 - <<'PY' || { cat kill.out; fail "kill.json"; }
import json
r = json.load(open("kill.json"))
print("   record:", r["status"], "|", r.get("reason"), "|", len(r["tests"]), "of 8 tests")
assert r["status"] == "interrupted", r["status"]
assert 1 <= len(r["tests"]) < 8, len(r["tests"])
assert r["progress"]["done"] == len(r["tests"])
assert all(t["verdict"] == "PASSED" for t in r["tests"])
PY
stale=$(find /dev/shm -maxdepth 1 -name "vader_segment.$h2.*" | wc -l)
[[ $stale -eq 0 ]] || echo "note: the killed rank left $stale shared-memory segment(s) in /dev/shm (removed at the end)"
# Cleanly: no daemon or rank left on either host.
expect_hosts_empty
ok "a rank killed on $h2 ended the job in $took s (exit $rc), named; record interrupted with its finished tests; nothing left running"

# --- and nothing left behind -------------------------------------------------------
trap - EXIT
cleanup
leftover=$(netns_leftover)
[[ -z $leftover ]] || fail "left behind: $leftover"
ok "namespaces, links and Open MPI's files of $h1 and $h2 removed"
echo "PASS ($(since "$started") s)"
