#!/usr/bin/env bash
# A run stopped by a signal keeps what it finished: hplx lu with a JSON
# record and an HPL.dat of 8 tests is sent SIGNAL once its record shows a
# finished test; the record must then say "interrupted" with the signal,
# hold the finished tests (at least 1, fewer than 8), and `hplx report`
# must say the run was interrupted.
#   interrupt_keeps_record.sh HPLX SIGNAL [LAUNCHER...]
# SIGNAL goes to the launched process (hplx itself, or mpirun, which passes
# the stop on to the ranks as SIGTERM). SIGNAL "KILL-RANK-1" instead kills
# rank 1 with SIGKILL (under a launcher): the job must then end within 10 s,
# the launcher must name the lost rank, and rank 0's record must keep the
# finished tests. SIGNAL "STOP-RANK-R" stops rank R with SIGSTOP in a run
# with --watchdog 2: the other rank's watchdog must then end the job within
# 10 s with exit status 3, saying where it stopped and that it waited for
# rank R, and mark the record interrupted by the watchdog (rank 1 does it
# when rank 0 is the one stopped).
# HPLX_SUBCOMMAND=hpl-mxp runs `hplx hpl-mxp` on the same HPL.dat instead
# (its record's tests say "passed": true rather than a verdict).
set -u
sub=${HPLX_SUBCOMMAND:-lu}
hplx=$1 signal=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill -KILL $pid 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
ranks=1
[[ $# -gt 0 ]] && ranks=2
sed -e "5s/^[0-9]*/8/" -e "6s/^.*/3000 3000 3000 3000 3000 3000 3000 3000  Ns/" \
  -e "11s/^[0-9]*/1/" -e "12s/^[0-9]*/$ranks/" "$src/examples/HPL.dat" >in.dat
# setsid: a job started from a script ignores SIGINT otherwise.
extra=()
[[ $signal == STOP-RANK-* ]] && extra=(--watchdog 2)
setsid "$@" "$hplx" "$sub" in.dat --json r.json --quiet "${extra[@]}" >out.txt 2>&1 &
pid=$!
done_tests() {
  python3 -c 'import json,sys; print(json.load(open("r.json"))["progress"]["done"])' 2>/dev/null || echo 0
}
for _ in $(seq 1 600); do
  [[ $(done_tests) -ge 1 ]] && break
  kill -0 $pid 2>/dev/null || { echo "FAIL: hplx ended before a test finished"; cat out.txt; exit 1; }
  sleep 0.1
done
start=$(date +%s)
if [[ $signal == *-RANK-* ]]; then
  target=${signal##*-}
  victim=""
  for p in $(pgrep -f "$hplx $sub in.dat"); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$target"; then victim=$p; fi
  done
  [[ -n $victim ]] || { echo "FAIL: rank $target not found"; exit 1; }
  kill -"${signal%%-*}" "$victim"
else
  kill -"$signal" $pid
fi
wait $pid
rc=$?
took=$(($(date +%s) - start))
echo "exit status after $signal: $rc, the job ended $took s after it"
if [[ $signal == STOP-RANK-* ]]; then
  other=$((1 - target))
  [[ $took -le 10 ]] || { echo "FAIL: the job took $took s to end (allowed: 10)"; exit 1; }
  [[ $rc -eq 3 ]] || { echo "FAIL: exit status $rc (expected 3, the watchdog's)"; cat out.txt; exit 1; }
  grep -m1 "watchdog: rank $other has made no progress.*waiting for rank $target" out.txt ||
    { echo "FAIL: rank $other does not say it waited for rank $target"; cat out.txt; exit 1; }
fi
if [[ $signal == KILL-RANK-1 ]]; then
  [[ $took -le 10 ]] || { echo "FAIL: the job took $took s to end (allowed: 10)"; exit 1; }
  grep -m1 "rank 1" out.txt || { echo "FAIL: the output does not name rank 1"; cat out.txt; exit 1; }
fi
[[ $rc -ne 0 ]] || { echo "FAIL: the run went on to the end (exit 0)"; exit 1; }
SIGNAL=$signal python3 - <<'PY' || exit 1
import json, os
r = json.load(open("r.json"))
print("record:", r["status"], "|", r.get("reason"), "|", len(r["tests"]), "tests")
assert r["status"] == "interrupted", r["status"]
assert r["reason"].startswith(("SIGINT", "SIGTERM", "watchdog")), r["reason"]
if os.environ["SIGNAL"].startswith("STOP"):
    assert r["reason"].startswith("watchdog: rank"), r["reason"]
assert 1 <= len(r["tests"]) < 8, len(r["tests"])
assert r["progress"]["done"] == len(r["tests"])
assert all(t.get("verdict") == "PASSED" or t.get("passed") is True for t in r["tests"])
PY
"$hplx" report r.json -o r.html -q || exit 1
grep -q "this run was interrupted" r.html || { echo "FAIL: the report does not say so"; exit 1; }
echo "PASS"
