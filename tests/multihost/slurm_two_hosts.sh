#!/usr/bin/env bash
# hplx under Slurm across two hosts: the two network-namespace hosts of
# netns_hosts.sh, a slurmd in each (its hostname the node's name),
# slurmctld on the bridge in the root namespace and a munged of the test's
# own (its key, socket and every Slurm state, spool, tmp, log and pid file
# in a temporary folder, nothing of the machine's touched). It runs
# `hplx tune two-hosts.toml --nodes 2 --budget 0` (one CPU rank per host,
# the model only), submits the batch script tune writes with sbatch and
# checks, from what Slurm, hplx and its record say:
#   - launched by `srun --mpi=pmix`: the script asks for 2 nodes, 1 task
#     per node with the node's cores; the job ends COMPLETED, lu PASSES,
#     its record is complete, from the first host, and its thread plan says
#     2 ranks on 2 nodes, 1 rank per node, bound as hplx-bind.sh binds it;
#   - the same with Open MPI's mpirun inside the allocation;
#   - a job of 4 tests cancelled with scancel once one test has finished
#     ends CANCELLED within 15 s; the record keeps the finished tests
#     (PASSED) and says the run was interrupted;
#   - tune refuses --nodes 0, a node grid that does not fit its spec and
#     more nodes than sinfo lists: exit 2, one line, nothing written.
# Then it stops its daemons, removes what it made and checks that nothing
# of it is left (no daemon, process, namespace, link or file).
#   slurm_two_hosts.sh HPLX [MPIRUN]
# Exit status: 0 passed, 1 failed, 77 skipped (not root, namespaces not
# permitted, or Slurm or munge not installed; the reason is printed; with
# HPLX_REQUIRE_MULTIHOST=1 a skip is a failure).
set -u
[[ $# -ge 1 ]] || { echo "usage: slurm_two_hosts.sh HPLX [MPIRUN]" >&2; exit 2; }
hplx=$(realpath "$1")
mpirun=${2:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
spec=$here/two-hosts.toml
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
started=$(date +%s.%N)

# shellcheck source=netns_hosts.sh
. "$here/netns_hosts.sh"

# --- what the machine must allow ------------------------------------------
netns_require ip unshare nsenter ss pgrep python3 timeout taskset getconf
for tool in munged mungekey slurmctld slurmd sbatch srun scontrol scancel sinfo; do
  command -v "$tool" >/dev/null ||
    skip "$tool is missing (scripts/install-deps.sh --test installs slurmctld, slurmd, slurm-client and munge)"
done
command -v "$mpirun" >/dev/null || fail "no mpirun: $mpirun"
# The batch script's mpirun is this one.
PATH=$(dirname "$(command -v "$mpirun")"):$PATH
[[ -x $hplx ]] || fail "no hplx at $1"
# A host's one rank binds to the spec's node cores: cpus 0 to C-1.
cores=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["node"]["cores"])' "$spec") ||
  fail "no node.cores in $spec"
python3 -c 'import os, sys; sys.exit(0 if set(range(int(sys.argv[1]))) <= os.sched_getaffinity(0) else 1)' "$cores" ||
  skip "this test may not use cpus 0-$((cores - 1)), which the spec's rank binds to"

# A Slurm job or client setting around this test must not leak into its
# own cluster (SLURM_CONF below is the test's).
while read -r var; do unset "$var"; done < <(env | grep -oE '^SLURM_[A-Z_]+')

work=$(mktemp -d)
ctl=hplx$$-ctl # slurmctld's hostname (its UTS namespace; the root network namespace)
pids=()        # munged, slurmctld, the slurmds: stopped in this order's reverse

alive() {
  local p
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done
  return 1
}
# Stops the daemons, the last started first: SIGTERM, then SIGKILL after 5 s.
stop_daemons() {
  local i p
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null; done
  for _ in $(seq 1 50); do alive || break; sleep 0.1; done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=() # reaped: their numbers may be another process's now
}

cleanup() {
  stop_daemons
  netns_remove_hosts # the job steps (slurmstepd and ranks) ran in the hosts
  cd / && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
cd "$work" || fail "no work folder"
step=$(date +%s.%N)
step() { echo "-- $1: $(since "$step") s"; step=$(date +%s.%N); }

netns_make_hosts
echo "hosts: $h1 ($subnet.1) and $h2 ($subnet.2) on bridge $bridge ($subnet.254/24); slurmctld ($ctl) on the bridge"

# --- munge: a key and a socket of the test's own ----------------------------
mkdir -m 700 munge slurm
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 || fail "mungekey could not make a key"
munged -F -f --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" \
  --log-file="$work/munge/munged.log" >munge/munged.out 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [[ -S munge/socket ]] && break; sleep 0.1; done
[[ -S munge/socket ]] || { cat munge/munged.out; fail "munged made no socket"; }

# --- Slurm: slurmctld on the bridge, a slurmd in each host --------------------
# A free port for slurmctld in the root namespace; the slurmds each have
# their host's ports.
port=""
for i in $(seq 0 99); do
  p=$((20000 + ($$ + 2 * i) % 20000))
  if ! ss -Htln "sport = :$p or sport = :$((p + 1))" | grep -q .; then port=$p && break; fi
done
[[ -n $port ]] || fail "no free port pair for slurmctld"
export SLURM_CONF=$work/slurm/slurm.conf
# Each host is the whole machine: its cpus as slurmd finds them.
hardware=$(slurmd -C | sed -nE '1s/^NodeName=[^ ]+ (.*) RealMemory=.*/\1/p')
[[ $hardware == CPUs=* ]] || fail "slurmd -C: $(slurmd -C 2>&1)"
cat >"$SLURM_CONF" <<EOF
ClusterName=hplx$$
SlurmctldHost=$ctl($subnet.254)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool-%n
TmpFS=$work/slurm/tmp-%n
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd-%n.pid
SlurmctldLogFile=$work/slurm/slurmctld.log
SlurmdLogFile=$work/slurm/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
SwitchType=switch/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
MinJobAge=600
InactiveLimit=0
NodeName=$h1 NodeAddr=$subnet.1 $hardware State=UNKNOWN
NodeName=$h2 NodeAddr=$subnet.2 $hardware State=UNKNOWN
PartitionName=hosts Nodes=$h1,$h2 Default=YES MaxTime=INFINITE State=UP
EOF
# TmpFS per node: the hosts share /tmp, where srun's PMIx plugin would make
# the same directory for both (spmix_appdir_UID_JOB.STEP) and fail.
mkdir -p slurm/state "slurm/spool-$h1" "slurm/spool-$h2" "slurm/tmp-$h1" "slurm/tmp-$h2"
# start HOST NETNS LOG COMMAND...: COMMAND in the background with HOST as
# its hostname (a UTS namespace of its own), in network namespace NETNS
# ("" for this one; nsenter rather than ip netns exec, which mounts a /sys
# of the namespace without /sys/fs/cgroup, and slurmd 22.05 will not start
# without it), its output in LOG; its pid joins $pids.
start() {
  local host=$1 netns=$2 log=$3
  shift 3
  local enter=()
  [[ -n $netns ]] && enter=(nsenter --net="/run/netns/$netns")
  # shellcheck disable=SC2016 # $1 and $@ belong to the inner shell
  "${enter[@]}" unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' start "$host" "$@" >"$log" 2>&1 &
  pids+=($!)
}
start "$ctl" "" slurm/slurmctld.out slurmctld -D -f "$SLURM_CONF"
for h in "$h1" "$h2"; do start "$h" "$h" "slurm/slurmd-$h.out" slurmd -D -N "$h" -f "$SLURM_CONF"; done
daemon_logs() {
  local f
  for f in slurm/*.log slurm/*.out munge/munged.out; do echo "--- $f (tail)" && tail -n 20 "$f"; done
}
for _ in $(seq 1 300); do
  [[ $(sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$') -eq 2 ]] && break
  sleep 0.1
done
[[ $(sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$') -eq 2 ]] ||
  { sinfo -N 2>&1; daemon_logs; fail "the 2 nodes are not idle 30 s after the daemons started"; }
sinfo -N -o "   %N %T %c cpus, partition %P"
step "munged, slurmctld and 2 slurmds up"

# --- hplx tune ---------------------------------------------------------------------
"$hplx" --help 2>/dev/null | grep -qE '^ +tune[ ,]' || fail "this hplx has no 'tune' subcommand ($hplx --help)"
# tune SPEC NODES DIR LAUNCHER: the model's choice (--budget 0: no
# simulator) written into DIR, made here.
tune() {
  mkdir -p "$3" && "$hplx" tune "$1" --nodes "$2" --out "$3" --budget 0 --launcher "$4"
}

# The ranks talk over the bridge's subnet (sbatch passes the environment on).
export OMPI_MCA_btl=tcp,self,vader OMPI_MCA_btl_tcp_if_include=$subnet.0/24 \
  OMPI_MCA_oob_tcp_if_include=$subnet.0/24

# A job's state; ended STATE: whether the job has ended in it.
job_state() { scontrol show job -o "$1" 2>/dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2; }
ended() { case $1 in PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | "") return 1 ;; esac; }
# wait_job ID SECONDS: the job's final state in $state ("" at the timeout).
wait_job() {
  for _ in $(seq 1 $(($2 * 5))); do
    state=$(job_state "$1")
    ended "$state" && return 0
    sleep 0.2
  done
  state=""
  return 1
}
# submit DIR: sbatch in DIR; the job's id in $jobid.
submit() {
  jobid=$(cd "$1" && sbatch --parsable hplx-lu.sbatch) || { daemon_logs; fail "sbatch refused $1/hplx-lu.sbatch"; }
}

# The thread plan hplx must print: one rank per host, bound by
# hplx-bind.sh to cpus 0 to C-1 (all the machine's: hplx calls that no
# binding), C threads each.
bound="cpus 0-$((cores - 1))"
[[ $cores -eq 1 ]] && bound="cpu 0"
binding="bound to $bound"
[[ $(getconf _NPROCESSORS_ONLN) -eq $cores ]] && binding="none ($bound)"
threads="$cores threads" cpus="$cores cpus"
[[ $cores -eq 1 ]] && threads="1 thread" cpus="1 cpu"
plan="hplx: 2 ranks x $threads on $cpus per node (1 rank per node, 2 nodes), binding: $binding"
plan_re="^$(printf '%s' "$plan" | sed 's/[()]/\\&/g')\$"

# --- lu from tune's script, launched by srun and by mpirun --------------------
for launcher in srun mpirun; do
  dir=$work/$launcher
  out=$(tune "$spec" 2 "$dir" $launcher 2>&1) || { echo "$out"; fail "hplx tune --launcher $launcher"; }
  echo "   $(grep -m1 '^chosen:' <<<"$out")"
  # What the spec asks for: 2 nodes, 1 rank on each with the node's cores,
  # launched as asked; an N the test can run in seconds.
  for want in "--nodes=2" "--ntasks-per-node=1" "--cpus-per-task=$cores"; do
    grep -qx -- "#SBATCH $want" "$dir/hplx-lu.sbatch" || { cat "$dir/hplx-lu.sbatch"; fail "$launcher: the script lacks #SBATCH $want"; }
  done
  launch=$(grep -m1 -E "^$launcher " "$dir/hplx-lu.sbatch")
  [[ $launcher == srun ]] && words=(--mpi=pmix --cpu-bind=none ./hplx-bind.sh)
  [[ $launcher == mpirun ]] && words=("--map-by ppr:1:node" "--bind-to none" ./hplx-bind.sh)
  for w in "${words[@]}"; do
    [[ " $launch " == *" $w "* ]] || { cat "$dir/hplx-lu.sbatch"; fail "$launcher: the script's launch line lacks $w"; }
  done
  echo "   $launch"
  n=$(sed -n 6p "$dir/HPL.dat" | awk '{print $1}')
  [[ $n -ge 500 && $n -le 2000 ]] || { cat "$dir/HPL.dat"; fail "$launcher: tune chose N = $n (this test wants 500-2000: see two-hosts.toml's memory)"; }
  step "tune --launcher $launcher"
  submit "$dir"
  wait_job "$jobid" 120 || { scontrol show job "$jobid"; daemon_logs; fail "job $jobid ($launcher) still not ended after 120 s"; }
  log=$dir/hplx-lu-$jobid.out
  echo "   job $jobid: $state; $(grep -m1 -E '^hplx: 2 ranks' "$log")"
  [[ $state == COMPLETED ]] || { cat "$log"; scontrol show job "$jobid"; daemon_logs; fail "job $jobid ($launcher) ended $state"; }
  grep -qE "$plan_re" "$log" || { cat "$log"; fail "$launcher: the output lacks: $plan"; }
  grep -qE '\.\.\.\.\.\. PASSED$' "$log" || { cat "$log"; fail "$launcher: no PASSED"; }
  grep -q '1 tests completed and passed residual checks' "$log" || { cat "$log"; fail "$launcher: no '1 tests completed and passed'"; }
  python3 - "$dir/hplx-lu.json" "$h1" "$plan_re" <<'PY2' || { cat "$log"; fail "$launcher: hplx-lu.json"; }
import json, re, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", r["status"]
assert [t["verdict"] for t in r["tests"]] == ["PASSED"], r["tests"]
assert r["machine"]["hostname"] == sys.argv[2], r["machine"]["hostname"]
assert any(re.match(sys.argv[3], n) for n in r["notes"]), r["notes"]
PY2
  ok "$launcher: job $jobid COMPLETED, PASSED; hplx-lu.json complete, PASSED, from $h1, the plan in its notes"
  step "job $jobid ($launcher)"
done

# --- a job cancelled with scancel keeps its finished tests -----------------------
dir=$work/cancel
mkdir "$dir" || fail "no folder $dir"
cp "$work/srun/hplx-lu.sbatch" "$work/srun/hplx-bind.sh" "$dir/" || fail "no copy of the srun script"
# 4 tests of N = 2000, a few seconds each.
sed -e "5s/^[0-9]*/4/" -e "6s/^.*/2000 2000 2000 2000  Ns/" "$work/srun/HPL.dat" >"$dir/HPL.dat"
submit "$dir"
done_tests() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["progress"]["done"])' "$dir/hplx-lu.json" 2>/dev/null || echo 0
}
for _ in $(seq 1 600); do
  [[ $(done_tests) -ge 1 ]] && break
  state=$(job_state "$jobid")
  ended "$state" && { cat "$dir"/hplx-lu-*.out; fail "job $jobid ended ($state) before a test finished"; }
  sleep 0.2
done
[[ $(done_tests) -ge 1 ]] || { cat "$dir"/hplx-lu-*.out; fail "no test of job $jobid finished in 120 s"; }
t0=$(date +%s.%N)
scancel "$jobid" || fail "scancel $jobid"
wait_job "$jobid" 60 || { scontrol show job "$jobid"; daemon_logs; fail "job $jobid still not ended 60 s after scancel"; }
took=$(since "$t0")
log=$dir/hplx-lu-$jobid.out
echo "   job $jobid: $state $took s after scancel; $(grep -m1 -E 'CANCELLED' "$log")"
[[ $state == CANCELLED ]] || { cat "$log"; fail "job $jobid ended $state after scancel, not CANCELLED"; }
# Slurm sends SIGTERM, then SIGKILL KillWait (5) s later.
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 15 else 1)' "$took" ||
  { cat "$log"; fail "job $jobid took $took s to end after scancel (allowed: 15)"; }
python3 - "$dir/hplx-lu.json" <<'PY2' || { cat "$log"; fail "the cancelled job's record"; }
import json, sys
r = json.load(open(sys.argv[1]))
print("   record:", r["status"], "|", r.get("reason"), "|", len(r["tests"]), "of 4 tests")
assert r["status"] == "interrupted", r["status"]
assert 1 <= len(r["tests"]) < 4, len(r["tests"])
assert r["progress"]["done"] == len(r["tests"]), r["progress"]
assert all(t["verdict"] == "PASSED" for t in r["tests"]), r["tests"]
PY2
ok "scancel: job $jobid CANCELLED in $took s; its record interrupted, the finished tests PASSED"
step "job $jobid (scancel)"

# --- placements tune cannot do: a one-line usage error, nothing written -----------
# --nodes 0, a spec whose node grid (1 x 2) does not hold its 1 device,
# and 3 nodes where the cluster (sinfo, through SLURM_CONF) has 2.
sed 's/^grid = "1x1"/grid = "1x2"/' "$spec" >bad-grid.toml
for case in "nodes-0:$spec:0" "node-grid:$work/bad-grid.toml:2" "nodes-3:$spec:3"; do
  name=${case%%:*} rest=${case#*:}
  dir=$work/refused-$name
  tune "${rest%:*}" "${rest##*:}" "$dir" srun >"$dir.out" 2>"$dir.err"
  rc=$?
  line=$(cat "$dir.err")
  [[ $rc -eq 2 ]] || { cat "$dir.out" "$dir.err"; fail "tune ($name): exit $rc, expected 2"; }
  [[ $(wc -l <"$dir.err") -eq 1 && $line == "hplx: error: "* ]] || { cat "$dir.err"; fail "tune ($name): not a one-line error"; }
  [[ -z $(ls -A "$dir") ]] || fail "tune ($name) wrote $(ls "$dir")"
  echo "   $line"
done
grep -q -- "--nodes 0" "$work/refused-nodes-0.err" || fail "tune --nodes 0: the error does not name --nodes"
grep -q "node.grid" "$work/refused-node-grid.err" || fail "tune (node grid): the error does not name node.grid"
grep -q -- "--nodes 3: the Slurm cluster here (sinfo) has 2 node(s)" "$work/refused-nodes-3.err" ||
  fail "tune --nodes 3: the error does not say the cluster has 2 nodes"
ok "tune refuses --nodes 0, a node grid that does not fit and more nodes than the cluster has (exit 2, one line, nothing written)"
step "tune refusals"

# --- and nothing left behind -------------------------------------------------------
# The daemons end on SIGTERM; the job steps (slurmstepd, ranks) have ended
# with their jobs, so the hosts hold no process.
t0=$(date +%s.%N)
stop_daemons
expect_hosts_empty
trap - EXIT
cleanup
# munged, slurmctld and the slurmds name the work folder on their command line.
mine=$(pgrep -af "$work|hplx$$-")
[[ -z $mine ]] || fail "still running: $mine"
leftover=$(netns_leftover; find /tmp /dev/shm -maxdepth 1 -name "*hplx$$-*"; [[ -e $work ]] && echo "$work")
[[ -z $leftover ]] || fail "left behind: $leftover"
ok "munged, slurmctld and the slurmds stopped ($(since "$t0") s); namespaces, links, Open MPI's and Slurm's files removed"
echo "PASS ($(since "$started") s)"
