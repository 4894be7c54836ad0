#!/usr/bin/env bash
# The figures docs/PERFORMANCE.md takes from a GPU, as medians of REPEAT
# runs with their bounds measured in the same call: the DGEMM probe and
# `hplx lu` at full memory (N by device memory), the FP16 GemmEx probe and
# `hplx hpl-mxp` fp16 at full memory, and the update's DTRSM + DGEMM in
# the LU's own layout (hplx_dgemm_probe --form lu); then, when time is
# left, `hplx hpl-mxp` once with `--panel-solve trsm` (against the
# default's median) and `hplx lu` at N = EXPLORE_N once for each setting of EXPLORE
# (FACT's settings to try next). check.sh's step timeouts, BUNDLE,
# PREBUILT and DRY_RUN apply alike.
#
#   BUNDLE=FILE bench/gpu/medians.sh       # on a lent GPU machine
#   DRY_RUN=1 bench/gpu/medians.sh         # the emulated device, small sizes
#
# Settings (environment): OUT, REPEAT (3), LU_NB (1024), HPLMXP_NB (4096),
# EXPLORE_N (60000), EXPLORE ('|'-separated settings: hplx lu options and
# NAME=VALUE environment words, e.g. "HPLX_UPDATE_SMS=116 --fact-blocks 16"),
# BUDGET (420).
# Prints one table; each run's record and output land in OUT. Exit status 1
# when a probe or every run of the LU or of HPL-MxP failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
DRY_RUN=${DRY_RUN:-0}
REPEAT=${REPEAT:-3}
BUDGET=${BUDGET:-420}
EXPLORE=${EXPLORE:-"--fact-blocks 16|--fact-blocks 64|HPLX_UPDATE_SMS=116|HPLX_UPDATE_SMS=100 --fact-blocks 32"}
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
# run LIMIT CMD...: under a timeout, never past the budget; false when skipped.
run() {
  local limit=$1 rest=$((BUDGET - (SECONDS - T0)))
  shift
  ((rest >= limit)) || return 1
  timeout -k 5 "$limit" "$@"
}

run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" --nb "$LU_NB" \
  --json "$OUT/dgemm.json" >"$OUT/dgemm.txt" 2>&1
# The update as the LU calls it (DTRSM of U in the matrix, then DGEMM there).
run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --form lu --m "$PROBE_M" \
  --nb "$LU_NB" --json "$OUT/dgemm-lu-form.json" >"$OUT/dgemm-lu-form.txt" 2>&1
run 60 "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --precision fp16 --m "$PROBE_M" \
  --nb "$HPLMXP_NB" --reps 3 --json "$OUT/gemmex.json" >"$OUT/gemmex.txt" 2>&1
for i in $(seq "$REPEAT"); do
  run 90 "$HPLX" lu --backend "$BACKEND" "${SIZE[@]}" --nb "$LU_NB" --json "$OUT/lu-$i.json" \
    >"$OUT/lu-$i.txt" 2>&1
done
for i in $(seq "$REPEAT"); do
  run 90 "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${MXP_SIZE[@]}" --nb "$HPLMXP_NB" \
    --json "$OUT/hpl-mxp-$i.json" >"$OUT/hpl-mxp-$i.txt" 2>&1
done
# HPL-MxP once with the panel's STRSMs (the default on a device is the
# inverted triangles' GEMMs): what --panel-solve inverse gained.
run 90 "$HPLX" hpl-mxp --backend "$BACKEND" --precision fp16 "${MXP_SIZE[@]}" --nb "$HPLMXP_NB" \
  --panel-solve trsm --json "$OUT/hpl-mxp-trsm.json" >"$OUT/hpl-mxp-trsm.txt" 2>&1
IFS='|' read -r -a settings <<<"$EXPLORE"
for i in "${!settings[@]}"; do
  # A setting's NAME=VALUE words go to the environment (HPLX_UPDATE_SMS=100),
  # the rest to hplx lu.
  envs=() opts=()
  for word in ${settings[$i]}; do
    if [[ $word == [A-Z]*=* ]]; then envs+=("$word"); else opts+=("$word"); fi
  done
  run 45 env "${envs[@]}" "$HPLX" lu --backend "$BACKEND" --n "$EXPLORE_N" --nb "$LU_NB" \
    "${opts[@]}" --json "$OUT/explore-$i.json" >"$OUT/explore-$i.txt" 2>&1
done

python3 - "$OUT" "$REPEAT" "$EXPLORE" <<'PY' | tee "$OUT/table.txt"
import json, statistics, sys
out, repeat, explore = sys.argv[1], int(sys.argv[2]), sys.argv[3].split("|")
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
form = load("dgemm-lu-form.json")
if form and form["shapes"] and dgemm:
    f = form["shapes"][0]
    print(f"the update in the LU's form: DTRSM + DGEMM {f['trsm_gemm_gflops_median']:.0f}, "
          f"DGEMM alone {f['gflops_median']:.0f} Gflop/s ({100 * f['gflops_median'] / dgemm:.1f}% "
          f"of the plain probe)")
m_mxp = row("hplx hpl-mxp fp16", mxp_n, mxp, gemmex, "the FP16 GemmEx probe")
if m_lu and m_mxp:
    print(f"hpl-mxp over lu (the medians): {m_mxp / m_lu:.2f}x")
trsm = load("hpl-mxp-trsm.json")
if trsm and trsm["tests"] and m_mxp:
    t = trsm["tests"][0]
    print(f"hpl-mxp fp16 with --panel-solve trsm: {t['gflops']:.1f} Gflop/s, passed {t['passed']}; "
          f"the default ({mxp_solve}) over it: {m_mxp / t['gflops']:.3f}x")
for i, setting in enumerate(explore):
    r = load(f"explore-{i}.json")
    t = r["tests"][0] if r and r["tests"] else None
    print(f"explore {setting}: " + (f"N = {t['n']}: {t['gflops']:.1f} Gflop/s, {t['verdict']}" if t else "no record"))
# A missing probe or median fails the script (CI's dry run catches it).
sys.exit(0 if dgemm and gemmex and m_lu and m_mxp else 1)
PY
