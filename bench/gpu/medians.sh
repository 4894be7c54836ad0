#!/usr/bin/env bash
# The figures docs/PERFORMANCE.md takes from a GPU, as medians of REPEAT
# runs with their bounds measured in the same call: the DGEMM probe and
# `hplx lu` at full memory (N by device memory), the FP16 GemmEx probe and
# `hplx hpl-mxp` fp16 at full memory, and the update's DTRSM + DGEMM in
# the LU's own layout (hplx_dgemm_probe --form lu, at M = PROBE_M and at
# the full-memory run's first update); then, when time is left,
# `hplx hpl-mxp` once with `--panel-solve inverse` and once with `trsm`
# (against the default's median) and `hplx lu` at N = EXPLORE_N once for
# each setting of EXPLORE (FACT's settings to try next), and at full
# memory once for each of EXPLORE_FULL. The probes' operands are random, as the
# LU's matrix; the DGEMM probe runs once more on constants, which a GPU
# multiplies at a lower power. Where nvidia-smi is present, the GPU's SM
# clock and power are sampled every 200 ms throughout (OUT/clocks.csv,
# each step's span in OUT/steps.csv), and the table gives their medians
# during the probe and during the LU. check.sh's step timeouts, BUNDLE,
# PREBUILT and DRY_RUN apply alike.
#
#   BUNDLE=FILE bench/gpu/medians.sh       # on a lent GPU machine
#   DRY_RUN=1 bench/gpu/medians.sh         # the emulated device, small sizes
#
# Settings (environment): OUT, REPEAT (3), LU_NB (1024), HPLMXP_NB (4096),
# EXPLORE_N (60000), EXPLORE ('|'-separated settings: hplx lu options and
# NAME=VALUE environment words, e.g. "HPLX_UPDATE_SMS=116 --fact-blocks 16"),
# EXPLORE_FULL (the same, at full memory; empty: none), MXP_UPDATE_SMS
# (hpl-mxp options tried once at full memory; empty: none), BUDGET (420).
# Prints one table; each run's record and output land in OUT. Exit status 1
# when a probe or every run of the LU or of HPL-MxP failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
DRY_RUN=${DRY_RUN:-0}
REPEAT=${REPEAT:-3}
BUDGET=${BUDGET:-420}
EXPLORE=${EXPLORE:-"--fact-leaf fused3|--nbmin 16|--nbmin 8|--update-sms 124 --fact-blocks 16|--fact-blocks 64|--fact-blocks 16|--update-sms 116 --fact-blocks 16"}
# Settings tried once at full memory, against the LU's median there: SMs
# kept for FACT in the late iterations, where FACT outlasts the update
# beside it (bench/sim-h200.sh's best two; docs/GPU.md).
MXP_UPDATE_SMS=${MXP_UPDATE_SMS-"--update-sms 124 --update-sms-below 80000"}
EXPLORE_FULL=${EXPLORE_FULL:-"--update-sms 124 --update-sms-below 60000 --fact-blocks 16|--update-sms 128 --update-sms-below 80000 --fact-blocks 16"}
if [[ $DRY_RUN == 1 ]]; then
  BUILD_DIR=${BUILD_DIR:-build} BACKEND=emulated SIZE=(--n 1200) MXP_SIZE=(--n 800)
  LU_NB=${LU_NB:-128} HPLMXP_NB=${HPLMXP_NB:-128} PROBE_M=1500 EXPLORE_N=${EXPLORE_N:-1000}
else
  BUILD_DIR=${BUILD_DIR:-build-gpu} BACKEND=cuda SIZE=() MXP_SIZE=()
  LU_NB=${LU_NB:-1024} HPLMXP_NB=${HPLMXP_NB:-4096} PROBE_M=60000 EXPLORE_N=${EXPLORE_N:-60000}
fi
# shellcheck source=bench/gpu/use_build.sh
source bench/gpu/use_build.sh
use_build medians
HPLX=$BUILD_DIR/bin/hplx
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-gpu-medians}
mkdir -p "$OUT"
T0=$SECONDS
# The clocks and power every 200 ms, and each step's span (the same clock).
sampler=
if command -v nvidia-smi >/dev/null && [[ $DRY_RUN != 1 ]]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits \
    -lms 200 >"$OUT/clocks.csv" 2>&1 &
  sampler=$!
  trap 'kill $sampler 2>/dev/null' EXIT
fi
stamp() { date '+%Y/%m/%d %H:%M:%S.%3N'; }
# run LIMIT CMD...: under a timeout, never past the budget; false when skipped.
STEP=
run() {
  local limit=$1 rest=$((BUDGET - (SECONDS - T0))) begin rc
  shift
  ((rest >= limit)) || return 1
  begin=$(stamp)
  timeout -k 5 "$limit" "$@"
  rc=$?
  echo "$STEP,$begin,$(stamp)" >>"$OUT/steps.csv"
  return $rc
}

STEP=dgemm
run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" --nb "$LU_NB" \
  --json "$OUT/dgemm.json" >"$OUT/dgemm.txt" 2>&1
STEP=dgemm-constant
run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" --nb "$LU_NB" \
  --data constant --json "$OUT/dgemm-constant.json" >"$OUT/dgemm-constant.txt" 2>&1
# The update as the LU calls it (DTRSM of U in the matrix, then DGEMM there).
STEP=lu-form
run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --form lu --m "$PROBE_M" \
  --nb "$LU_NB" --json "$OUT/dgemm-lu-form.json" >"$OUT/dgemm-lu-form.txt" 2>&1
STEP=gemmex
run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --precision fp16 --m "$PROBE_M" \
  --nb "$HPLMXP_NB" --reps 3 --json "$OUT/gemmex.json" >"$OUT/gemmex.txt" 2>&1
STEP=lu
for i in $(seq "$REPEAT"); do
  run 90 "$HPLX" lu --backend "$BACKEND" "${SIZE[@]}" --nb "$LU_NB" --json "$OUT/lu-$i.json" \
    >"$OUT/lu-$i.txt" 2>&1
done
# The update in the LU's form at the full-memory run's first update: its
# M, its leading dimension.
full_n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tests"][0]["n"])' \
  "$OUT/lu-1.json" 2>/dev/null)
STEP=lu-form-full
[[ -n $full_n ]] && run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --form lu \
  --m $((full_n - LU_NB)) --nb "$LU_NB" --reps 3 --json "$OUT/dgemm-lu-form-full.json" \
  >"$OUT/dgemm-lu-form-full.txt" 2>&1
STEP=hpl-mxp
for i in $(seq "$REPEAT"); do
  run 90 "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${MXP_SIZE[@]}" --nb "$HPLMXP_NB" \
    --json "$OUT/hpl-mxp-$i.json" >"$OUT/hpl-mxp-$i.txt" 2>&1
done
# HPL-MxP once with each other panel solve (the default beside an fp16
# update is the inverted triangles' GEMMs in TF32): what inverse-tf32
# gained over the same GEMMs in FP32 (inverse) and over STRSM (trsm).
for solve in inverse trsm; do
  STEP=hpl-mxp-$solve
  run 90 "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${MXP_SIZE[@]}" --nb "$HPLMXP_NB" \
    --panel-solve "$solve" --json "$OUT/hpl-mxp-$solve.json" >"$OUT/hpl-mxp-$solve.txt" 2>&1
done
# And once with SMs kept for FACT in the late iterations (MXP_UPDATE_SMS:
# hpl-mxp's --update-sms and --update-sms-below; empty: not run).
if [[ -n $MXP_UPDATE_SMS ]]; then
  STEP=hpl-mxp-update-sms
  # shellcheck disable=SC2086 # the setting's words are options
  run 90 "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${MXP_SIZE[@]}" --nb "$HPLMXP_NB" \
    $MXP_UPDATE_SMS --json "$OUT/hpl-mxp-update-sms.json" >"$OUT/hpl-mxp-update-sms.txt" 2>&1
fi
# explore NAME TIMEOUT SETTINGS SIZE...: hplx lu once for each of the
# '|'-separated SETTINGS at SIZE, records in OUT/NAME-<i>.json. A setting's
# NAME=VALUE words go to the environment (HPLX_UPDATE_SMS=100), the rest
# to hplx lu.
explore() {
  local name=$1 timeout=$2 settings
  IFS='|' read -r -a settings <<<"$3"
  shift 3
  STEP=$name
  for i in "${!settings[@]}"; do
    envs=() opts=()
    for word in ${settings[$i]}; do
      if [[ $word == [A-Z]*=* ]]; then envs+=("$word"); else opts+=("$word"); fi
    done
    run "$timeout" env "${envs[@]}" "$HPLX" lu --backend "$BACKEND" "$@" --nb "$LU_NB" \
      "${opts[@]}" --json "$OUT/$name-$i.json" >"$OUT/$name-$i.txt" 2>&1
  done
}
explore explore 45 "$EXPLORE" --n "$EXPLORE_N"
explore explore-full 90 "$EXPLORE_FULL" "${SIZE[@]}"

python3 - "$OUT" "$REPEAT" "$EXPLORE" "$EXPLORE_FULL" "$MXP_UPDATE_SMS" <<'PY' | tee "$OUT/table.txt"
import json, statistics, sys
out, repeat, explore = sys.argv[1], int(sys.argv[2]), sys.argv[3].split("|")
explore_full = sys.argv[4].split("|") if sys.argv[4] else []
mxp_update_sms = sys.argv[5]
def load(name):
    try:
        return json.load(open(f"{out}/{name}"))
    except (OSError, ValueError):
        return None
def probe(name):
    r = load(name)
    return max(s["gflops_median"] for s in r["shapes"]) if r and r["shapes"] else None
def passed_rates(prefix, passed):
    rates, n = [], None
    for i in range(1, repeat + 1):
        r = load(f"{prefix}-{i}.json")
        if r and r["tests"] and passed(r["tests"][0]):
            rates.append(r["tests"][0]["gflops"])
            n = r["tests"][0]["n"]
    return rates, n
dgemm, gemmex = probe("dgemm.json"), probe("gemmex.json")
lu, lu_n = passed_rates("lu", lambda t: t.get("verdict") == "PASSED")
mxp, mxp_n = passed_rates("hpl-mxp", lambda t: bool(t.get("passed")))
first = load("hpl-mxp-1.json")
mxp_solve = first["tests"][0].get("panel_solve", "?") if first and first["tests"] else "?"
def row(what, n, rates, bound, bound_name):
    if not rates:
        print(f"{what}: no passed run")
        return
    m = statistics.median(rates)
    share = f", {100 * m / bound:.1f}% of {bound_name} {bound:.0f}" if bound else ""
    print(f"{what} N = {n}: median {m:.1f} Gflop/s of {len(rates)} passed "
          f"({', '.join(f'{x:.0f}' for x in rates)}){share}")
    return m
m_lu = row("hplx lu", lu_n, lu, dgemm, "the DGEMM probe")
constant = probe("dgemm-constant.json")
if constant and dgemm:
    print(f"the DGEMM probe on random operands {dgemm:.0f}, on constants {constant:.0f} Gflop/s "
          f"(random / constant {dgemm / constant:.3f})")
for name in ("dgemm-lu-form.json", "dgemm-lu-form-full.json"):
    form = load(name)
    if form and form["shapes"] and dgemm:
        f = form["shapes"][0]
        print(f"the update in the LU's form, M = {f['m']}: DTRSM + DGEMM "
              f"{f['trsm_gemm_gflops_median']:.0f}, DGEMM alone {f['gflops_median']:.0f} Gflop/s "
              f"({100 * f['gflops_median'] / dgemm:.1f}% of the plain probe)")
# The SM clock and power while the probe and the LU ran (nvidia-smi's samples).
def spans(step):
    try:
        return [l.strip().split(",")[1:] for l in open(f"{out}/steps.csv") if l.startswith(step + ",")]
    except OSError:
        return []
def during(step):
    clocks, watts = [], []
    try:
        for line in open(f"{out}/clocks.csv"):
            f = [x.strip() for x in line.split(",")]
            if len(f) >= 3 and any(b <= f[0] <= e for b, e in spans(step)):
                clocks.append(float(f[1]))
                watts.append(float(f[2]))
    except (OSError, ValueError):
        return None
    return (statistics.median(clocks), statistics.median(watts), len(clocks)) if clocks else None
for step in ("dgemm", "dgemm-constant", "lu"):
    d = during(step)
    if d:
        print(f"during {step}: SM clock {d[0]:.0f} MHz, power {d[1]:.0f} W (medians of {d[2]} samples)")
m_mxp = row("hplx hpl-mxp fp16", mxp_n, mxp, gemmex, "the FP16 GemmEx probe")
if m_lu and m_mxp:
    print(f"hpl-mxp over lu (the medians): {m_mxp / m_lu:.2f}x")
for solve in ("inverse", "trsm"):
    other = load(f"hpl-mxp-{solve}.json")
    if other and other["tests"] and m_mxp:
        t = other["tests"][0]
        print(f"hpl-mxp fp16 with --panel-solve {solve}: {t['gflops']:.1f} Gflop/s, passed {t['passed']}, "
              f"{t['refinement']['gmres_iterations']} GMRES iterations; "
              f"the default ({mxp_solve}) over it: {m_mxp / t['gflops']:.3f}x")
held = load("hpl-mxp-update-sms.json")
if held and held["tests"] and m_mxp:
    t = held["tests"][0]
    print(f"hpl-mxp fp16 with {mxp_update_sms}: {t['gflops']:.1f} Gflop/s, passed {t['passed']}; "
          f"{t['gflops'] / m_mxp:.3f}x the median")
for i, setting in enumerate(explore):
    r = load(f"explore-{i}.json")
    t = r["tests"][0] if r and r["tests"] else None
    print(f"explore {setting}: " + (f"N = {t['n']}: {t['gflops']:.1f} Gflop/s, {t['verdict']}" if t else "no record"))
for i, setting in enumerate(explore_full):
    r = load(f"explore-full-{i}.json")
    t = r["tests"][0] if r and r["tests"] else None
    ratio = f", {t['gflops'] / m_lu:.3f}x the median above" if t and m_lu else ""
    print(f"explore at full memory {setting}: " +
          (f"N = {t['n']}: {t['gflops']:.1f} Gflop/s, {t['verdict']}{ratio}" if t else "no record"))
# A missing probe or median fails the script (CI's dry run catches it).
sys.exit(0 if dgemm and gemmex and m_lu and m_mxp else 1)
PY
