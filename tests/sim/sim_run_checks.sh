#!/usr/bin/env bash
# hplx sim end to end: 16 simulated GPU ranks and 4 CPU ranks, checked as a
# user would read the result. Usage: sim_run_checks.sh HPLX DGX_SPEC
set -euo pipefail
HPLX=$1 SPEC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*"; exit 1; }

"$HPLX" sim "$SPEC" --n 16384 --nb 256 --grid 4x4 --json a.json > a.out 2> a.err || {
  cat a.out a.err; fail "hplx sim exited $?"; }
cat a.err
grep -E "^WR11C2R4 +16384 +256 +4 +4 " a.out || fail "no result line"
grep -q "Simulated run (hplx sim)" a.out || fail "the output does not say the run was simulated"
grep -q "16 ranks on 2 nodes of NVIDIA DGX H100" a.err || fail "the log does not say what was simulated"
"$HPLX" sim "$SPEC" --n 16384 --nb 256 --grid 4x4 --json b.json --quiet > b.out 2>&1 ||
  fail "second run failed"
"$HPLX" sim "$HERE/cpu-node.toml" --n 4000 --nb 128 --grid 2x2 --json c.json --quiet > c.out 2>&1 ||
  { cat c.out; fail "CPU run failed"; }
# DGEMM's spread (device.dgemm_cv, which calibrate measures): each call
# varies around its mean, the same way on every run of the same spec.
sed '/^fact_column_us/a dgemm_cv = 0.1' "$HERE/cpu-node.toml" > cv.toml
for r in v w; do
  "$HPLX" sim cv.toml --n 4000 --nb 128 --grid 2x2 --json $r.json --quiet > $r.out 2>&1 ||
    { cat $r.out; fail "CPU run with dgemm_cv failed"; }
done
# Ranks that are GPUs without a [host] table (device.gpu): simulated in
# order, with the split update hplx lu chooses for a device when P > 1.
"$HPLX" sim "$HERE/../../examples/systems/hdpex-p100.toml" --n 8000 --nb 384 --grid 2x1 \
  --json g.json --quiet > g.out 2>&1 || { cat g.out; fail "in-order GPU run failed"; }
# Three process rows, the long swap with equilibration (an HPL.dat: the
# flags have no equilibration): the simulated build's ring allgatherv and
# all-to-all schedules (src/core/collectives_smpi.cpp), whose messages would
# mismatch or never arrive if a round were wrong.
awk 'NR==6{$1=3000} NR==8{$1=96} NR==11{$1=3} NR==12{$1=2} NR==26{$1=1} NR==30{$1=1} {print}' \
  "$HERE/../../examples/HPL.dat" > e.dat
"$HPLX" sim "$HERE/cpu-node.toml" e.dat --json e.json --quiet > e.out 2>&1 ||
  { cat e.out; fail "3x2 CPU run with the long swap failed"; }
grep -E "^W.* +3000 +96 +3 +2 " e.out || { cat e.out; fail "no 3x2 result line"; }
# hplx sim's ranks share one copy of the rank program (smpi/privatization:no,
# docs/SIM.md): a rank's state kept in static data would be every rank's.
# The same run with a copy of the program per rank (SMPI's default) and
# SMPI's own CPU timers must give the same simulated time.
"$HPLX" sim "$HERE/cpu-node.toml" e.dat --keep kept --quiet > k.out 2>&1 ||
  { cat k.out; fail "3x2 run with --keep failed"; }
smpirun -platform kept/platform.xml -hostfile kept/hostfile -np 6 \
  --cfg=smpi/simulate-computation:no --cfg=smpi/wtime:0 --cfg=network/crosstraffic:0 \
  --cfg=smpi/privatization:dlopen --log=root.thres:warning \
  "$(dirname "$HPLX")/../libexec/hplx/hplx-sim-rank" --model kept/kernels.json --quiet \
  --json p.json e.dat > p.out 2>&1 || { cat p.out; fail "3x2 run with a program copy per rank failed"; }

python3 - <<'PY'
import json, math, sys
a = json.load(open("a.json")); b = json.load(open("b.json")); c = json.load(open("c.json"))
def check(ok, what):
    if not ok:
        print("FAIL:", what); sys.exit(1)
t = a["tests"][0]
check(t["verdict"] == "SIMULATED", f"verdict {t['verdict']}")
peak = 16 * 60000.0
check(0 < t["gflops"] < peak, f"{t['gflops']} Gflops is not below the 16 GPUs' DGEMM peak {peak}")
model = t["prediction"]["gflops"]
check(model / 10 < t["gflops"] < model * 10,
      f"{t['gflops']} Gflops simulated, {model} predicted by the model: an order of magnitude apart")
check(len(t["iterations"]) == math.ceil(16384 / 256), "one iteration record per panel")
check(t["prediction"]["spec"].endswith("dgx-h100.toml"),
      "the model's prediction is beside the simulation")
s = a["simulation"]
check(s["ranks"] == 16 and s["nodes"] == 2 and s["ranks_per_node"] == 8, f"simulation {s}")
check(s["kernels"]["gpu"] is True, "DGX ranks are GPU ranks")
check(b["tests"][0]["time_s"] == t["time_s"], "the same simulation twice gives the same time")
u = c["tests"][0]
check(c["simulation"]["kernels"]["gpu"] is False, "CPU spec: CPU ranks")
check(0 < u["gflops"] < 4 * 30.0, f"CPU ranks: {u['gflops']} Gflops is not below 4 x 30")
phases = u["phases_s"]
check(phases["update"] > phases["fact"] > 0, f"CPU phases {phases}")
v = json.load(open("v.json"))["tests"][0]; w = json.load(open("w.json"))["tests"][0]
check(v["time_s"] == w["time_s"], f"dgemm_cv: {v['time_s']} s and {w['time_s']} s on two runs")
check(v["time_s"] != u["time_s"] and abs(v["time_s"] / u["time_s"] - 1) < 0.2,
      f"dgemm_cv 0.1: {v['time_s']} s simulated, {u['time_s']} s without a spread")
g = json.load(open("g.json"))
check(g["simulation"]["kernels"]["gpu"] is False and g["simulation"]["kernels"]["device_ranks"] is True,
      f"hdpex-p100: in-order ranks that are GPUs: {g['simulation']['kernels']}")
gs = g["tests"][0]["schedule"]
check(gs["split"] > 0 and gs["split_auto"], f"hdpex-p100 2x1: the split update chosen: {gs}")
check(c["tests"][0]["schedule"]["split"] == 0, "CPU ranks 2x2: no split update")
e = json.load(open("e.json"))["tests"][0]
check(e["verdict"] == "SIMULATED" and 0 < e["gflops"] < 6 * 30.0, f"3x2 long swap: {e['verdict']}, {e['gflops']} Gflops")
check(e["phases_s"]["swap"] > 0, f"3x2 long swap: no row swap time {e['phases_s']}")
p = json.load(open("p.json"))["tests"][0]
check(p["time_s"] == e["time_s"],
      f"3x2: {e['time_s']} s simulated with one program copy, {p['time_s']} s with one per rank")
print(f"ok: 16 GPU ranks {t['gflops']:.0f} Gflops in {t['time_s']:.3f} s simulated "
      f"(model {t['prediction']['gflops']:.0f}); 4 CPU ranks {u['gflops']:.1f} Gflops")
PY
