#!/usr/bin/env bash
# The device check: everything a session measures on a lent GPU, in one
# call of at most BUDGET seconds (default 480). Each step has its own
# timeout, is skipped when the budget left is shorter, writes its files
# under $OUT as it goes and one line to $OUT/steps.txt; $OUT/summary.json
# holds the keys ../shared/DESIGN.md lists under "Measuring on a GPU" that
# the steps reached (a key a step could not measure is absent, and
# steps.txt says why).
#
#   0. environment: nvidia-smi -q -d CLOCK,POWER, the CUDA libraries found
#   1. correctness on the device: the programs of gpu-tests.txt, their
#      device instances, on 1, 2 and 4 ranks; later steps are skipped if
#      one fails
#   2. the update's DGEMM alone (hplx_dgemm_probe, M = 60000, NB 512, 1024)
#   3. hplx lu at N = AB_N (60000): host FACT against device FACT, each
#      with its per-iteration record; one trace
#   4. hplx lu at full memory (no --n) with the default FACT
#   5. device FACT alone and beside the update's DGEMM (hplx_fact_probe,
#      M = FACT_M: 124000, 61000, 20000; JB 512, 1024), the fused leaf
#      and the kernel leaf at NBMIN 4, with FACT's fixed costs apart
#      (--overheads: per launch, per grid-wide barrier, per small TRSM and
#      GEMM, alone and beside the DGEMM), then the fused leaf at NBMIN 16
#      and the widest JB, the fused leaf in three phases per column
#      (fused3) at the widest JB, then the largest panel with the update's cuBLAS
#      calls held to UPDATE_SMS SMs (HPLX_UPDATE_SMS, 124 of an H100's or
#      H200's 132) and the fused leaf on 16 blocks
#   6. STREAM on the device; hplx mxp at MXP_N^3 with --expect-bandwidth
#   7. the FP16 and BF16 GemmEx probe (M = GEMMEX_M, NB = HPLMXP_NB), then
#      hplx hpl-mxp with FP16 and with BF16 at full memory (HPLMXP_N: a
#      given N), at the NB of the best FP16 rate; the ratio to step 4's
#      hplx lu at full memory
#
#   bench/gpu/check.sh                    # on the GPU machine, from the repository root
#   BUNDLE=FILE bench/gpu/check.sh        # a GPU machine without the build prerequisites
#                                         # (the lent ones): FILE from bench/gpu/bundle.sh is
#                                         # unpacked, its libraries added under / (none replaced)
#   PREBUILT=DIR bench/gpu/check.sh       # DIR: the build/ folder of such an archive, unpacked
#   DRY_RUN=1 bench/gpu/check.sh          # anywhere: the same steps on the emulated device,
#                                         # small sizes, the build in build/ (CI runs this)
#
# Settings (environment): OUT [bench/results/<UTC date>-gpu-check-<device>],
# COMMIT (the commit built, where the copy has no .git), STEPS (the steps
# to run, comma-separated: environment, correctness, dgemm-probe, fact-ab,
# full-memory, fact-probe, mxp, hpl-mxp; all by default; a lease too short
# for all of them splits them over two calls), KEEP_GOING=1 (the measuring
# steps run after a failed correctness step: each LU run still checks its
# own residual), BUDGET, AB_N, PROBE_M, PROBE_NB, FACT_M, FACT_JB,
# STREAM_N, MXP_N, MXP_TIME, HPLMXP_N, HPLMXP_NB, GEMMEX_M, UPDATE_SMS.
# Exit status: 0 when every step that ran passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
DRY_RUN=${DRY_RUN:-0}
BUDGET=${BUDGET:-480}
STEPS=${STEPS:-}  # all
UPDATE_SMS=${UPDATE_SMS:-124}  # the fact-probe step's SMs left to the update (of 132)
T0=$SECONDS
if [[ $DRY_RUN == 1 ]]; then
  # The LU grid suite on the emulated device takes minutes on CI's two
  # cores (make test runs it there): its programs still start here.
  BUILD_DIR=${BUILD_DIR:-build} BACKEND=emulated
  TEST_FILTER=${TEST_FILTER:-"*emulated*:*Emulated*-*LuGrids.EveryShape*"}
  PROBE_M=${PROBE_M:-1500} PROBE_NB=${PROBE_NB:-128,256} AB_N=${AB_N:-1200} AB_NB=${AB_NB:-128}
  FACT_M=${FACT_M:-3000,1500} FACT_JB=${FACT_JB:-64,128}
  FULL_N=${FULL_N:-1600} STREAM_N=${STREAM_N:-1000000} MXP_N=${MXP_N:-16} MXP_TIME=${MXP_TIME:-0.2}
  HPLMXP_N=${HPLMXP_N:-800} HPLMXP_NB=${HPLMXP_NB:-64,128} GEMMEX_M=${GEMMEX_M:-1500}
  DEVICE_NAME=emulated
  TEST_RANKS_MAX=2  # CI's two cores
else
  BUILD_DIR=${BUILD_DIR:-build-gpu} BACKEND=cuda TEST_FILTER=${TEST_FILTER:-"*cuda*:*Cuda*:DeviceGemmPanel.*"}
  PROBE_M=${PROBE_M:-60000} PROBE_NB=${PROBE_NB:-512,1024} AB_N=${AB_N:-60000} AB_NB=${AB_NB:-1024}
  FACT_M=${FACT_M:-124000,61000,20000} FACT_JB=${FACT_JB:-512,1024}
  FULL_N=${FULL_N:-} STREAM_N=${STREAM_N:-268435456} MXP_N=${MXP_N:-256} MXP_TIME=${MXP_TIME:-10}
  HPLMXP_N=${HPLMXP_N:-} HPLMXP_NB=${HPLMXP_NB:-1024,2048,4096} GEMMEX_M=${GEMMEX_M:-60000}
  TEST_RANKS_MAX=4
  if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "check: no GPU seen by nvidia-smi; DRY_RUN=1 runs the steps on the emulated device" >&2
    exit 2
  fi
  DEVICE_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr -cs 'A-Za-z0-9' '-' |
    sed 's/^NVIDIA-//; s/-$//' | tr 'A-Z' 'a-z')
fi
# shellcheck source=bench/gpu/use_build.sh
source bench/gpu/use_build.sh
use_build check
HPLX=$BUILD_DIR/bin/hplx
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-gpu-check-$DEVICE_NAME}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
FAILED=0
BROKEN=""  # set when correctness failed: the measuring steps are skipped

log() { echo "check: $*" | tee -a "$OUT/steps.txt"; }
left() { echo $((BUDGET - (SECONDS - T0))); }
# summary KEY VALUE: one key of summary.json (VALUE is JSON: a number,
# true/false, or a quoted string).
summary() { echo "$1 $2" >>"$OUT/summary.kv"; }
# run_step NAME TIMEOUT FUNCTION: runs it when the budget allows, under its
# timeout, and logs one line with its status and seconds.
run_step() {
  local name=$1 limit=$2 fn=$3 t=$SECONDS rc
  if [[ -n $STEPS && ,$STEPS, != *,$name,* ]]; then
    return
  fi
  if [[ -n $BROKEN && $name != correctness && ${KEEP_GOING:-0} != 1 ]]; then
    log "$name: skipped ($BROKEN)"
    return
  fi
  if (($(left) < limit)); then
    log "$name: skipped ($(left) s of the budget left, the step may take $limit)"
    return
  fi
  STEP_END=$((SECONDS + limit))
  "$fn"
  rc=$?
  if ((rc == 0)); then
    log "$name: ok in $((SECONDS - t)) s"
  else
    FAILED=1
    log "$name: FAILED (status $rc) after $((SECONDS - t)) s"
  fi
}
# timed CMD...: the command under what is left of the step's timeout.
timed() {
  local rest=$((STEP_END - SECONDS))
  ((rest > 0)) || return 124
  timeout -k 5 "$rest" "$@"
}
json_get() {  # json_get FILE PYTHON-EXPRESSION-OF-r
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

step_environment() {
  {
    date -u +%FT%TZ
    "$HPLX" --version
    if [[ $DRY_RUN == 1 ]]; then
      echo "dry run: the emulated device"
    else
      nvidia-smi -L
      nvidia-smi -q -d CLOCK,POWER
    fi
    echo "CUDA libraries found:"
    ldconfig -p 2>/dev/null | grep -E 'lib(cudart|cublas|cublasLt|cusolver|nccl|nvshmem)\.so' || echo "  (none by ldconfig)"
    nproc
  } >"$OUT/environment.txt" 2>&1
  summary date "\"$(date -u +%F)\""
  summary commit "\"${COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || "$HPLX" --version | head -1)}\""
  summary device "\"$DEVICE_NAME\""
  [[ $("$HPLX" --version) =~ backends:.*$BACKEND ]] || {
    echo "check: $HPLX has no $BACKEND backend" | tee -a "$OUT/steps.txt"
    return 1
  }
}

step_correctness() {
  local name ranks np file ok=0
  while read -r name ranks; do
    [[ -z $name || $name == \#* ]] && continue
    if [[ ! -x $BUILD_DIR/tests/$name ]]; then
      # A build without CUDA (a dry run's) has no CUDA-only programs.
      log "  $name: not built"
      [[ $DRY_RUN == 1 ]] || ok=1
      continue
    fi
    for np in $ranks; do
      ((np > TEST_RANKS_MAX)) && continue
      file=$OUT/test-$name-np$np.txt
      if timed mpirun -n "$np" --oversubscribe --bind-to none "$BUILD_DIR/tests/$name" \
        --gtest_filter="$TEST_FILTER" --gtest_color=no >"$file" 2>&1 </dev/null; then
        # (mpirun reads standard input: without </dev/null it eats this loop's list)
        log "  $name np$np: $(grep -E '^\[  PASSED  \]' "$file" | head -1 || echo "no PASSED line")"
      else
        log "  $name np$np: FAILED ($(grep -cE '^\[  FAILED  \]' "$file") lines), see $(basename "$file")"
        ok=1
      fi
    done
  done <bench/gpu/gpu-tests.txt
  ((ok == 0)) || BROKEN="a correctness test failed"
  return $ok
}

BEST_NB=$AB_NB
step_probe() {
  timed "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" --nb "$PROBE_NB" \
    --json "$OUT/probe.json" >"$OUT/probe.txt" 2>&1 || return 1
  cat "$OUT/probe.txt" >>"$OUT/steps.txt"
  summary dgemm_probe_gflops "$(json_get "$OUT/probe.json" 'max(s["gflops_median"] for s in r["shapes"])')"
  summary dgemm_probe_data "\"$(json_get "$OUT/probe.json" 'r["data"]')\""
  BEST_NB=$(json_get "$OUT/probe.json" 'max(r["shapes"], key=lambda s: s["gflops_median"])["nb"]')
}

# lu_run TAG ARGS...: hplx lu with a JSON record; true when it PASSED.
lu_run() {
  local tag=$1
  shift
  timed "$HPLX" lu --backend "$BACKEND" "$@" --json "$OUT/lu-$tag.json" >"$OUT/lu-$tag.txt" 2>&1
  grep -E '^W[RC]|PASSED|FAILED' "$OUT/lu-$tag.txt" | sed "s/^/  $tag: /" | tee -a "$OUT/steps.txt"
  grep -q PASSED "$OUT/lu-$tag.txt"
}
FACT_ON_FLAG=0
step_fact_ab() {
  local ok=0
  # (grep -q would close the pipe on hplx: pipefail then reports its SIGPIPE)
  [[ $("$HPLX" lu --help 2>&1) == *--fact-on* ]] && FACT_ON_FLAG=1
  if ((FACT_ON_FLAG == 0)); then
    log "  this build has no --fact-on: host FACT only"
    lu_run ab-host --n "$AB_N" --nb "$AB_NB" --trace "$OUT/trace-ab-host.json" || ok=1
    return $ok
  fi
  lu_run ab-host --n "$AB_N" --nb "$AB_NB" --fact-on host || ok=1
  lu_run ab-device --n "$AB_N" --nb "$AB_NB" --fact-on device --trace "$OUT/trace-ab-device.json" || ok=1
  if [[ -s $OUT/lu-ab-host.json && -s $OUT/lu-ab-device.json ]]; then
    local h d
    h=$(json_get "$OUT/lu-ab-host.json" 'r["tests"][0]["gflops"]')
    d=$(json_get "$OUT/lu-ab-device.json" 'r["tests"][0]["gflops"]')
    log "  N = $AB_N: $(python3 -c "print(f'device FACT {$d:.1f}, host FACT {$h:.1f} Gflop/s: {$d / $h:.3f}x')") (goal >= 3)"
    summary lu_ab_n "$AB_N"
    summary lu_ab_host_fact_gflops "$h"
    summary lu_ab_device_fact_gflops "$d"
  fi
  return $ok
}

step_full_memory() {
  local size=() nb=$BEST_NB
  [[ -n $FULL_N ]] && size=(--n "$FULL_N")
  [[ $DRY_RUN == 1 ]] && nb=$AB_NB
  lu_run full "${size[@]}" --nb "$nb"
  local rc=$?
  [[ -s $OUT/lu-full.json ]] || return 1
  local n gflops passed
  n=$(json_get "$OUT/lu-full.json" 'r["tests"][0]["n"]')
  gflops=$(json_get "$OUT/lu-full.json" 'r["tests"][0]["gflops"]')
  passed=$(json_get "$OUT/lu-full.json" 'str(r["tests"][0]["verdict"] == "PASSED").lower()')
  summary lu_n "$n"
  summary lu_nb "$nb"
  summary lu_gflops "$gflops"
  summary lu_passed "$passed"
  summary lu_fact_on "\"$(json_get "$OUT/lu-full.json" 'r["tests"][0].get("schedule", {}).get("fact_on", "host")')\""
  # The host's waits for the device inside the iteration loop (0 is the
  # design with FACT on the device on one rank; -1: not counted).
  summary lu_loop_host_waits "$(json_get "$OUT/lu-full.json" 'r["tests"][0].get("device_loop", {}).get("host_waits", -1)')"
  if [[ -s $OUT/probe.json ]]; then
    local ref
    ref=$(json_get "$OUT/probe.json" "max(s['gflops_median'] for s in r['shapes'] if s['nb'] == $nb)")
    summary lu_share_of_dgemm "$(python3 -c "print(round($gflops / $ref, 4))")"
    log "  N = $n, NB = $nb: $(python3 -c "print(round($gflops, 1))") Gflop/s, $(python3 -c "print(round(100 * $gflops / $ref, 1))")% of the DGEMM probe at that NB (goal 80%)"
  fi
  "$HPLX" report "$OUT/lu-full.json" -o "$OUT/report.html" >/dev/null 2>&1 || true
  return $rc
}

step_fact_probe() {
  timed "$BUILD_DIR/bin/hplx_fact_probe" --backend "$BACKEND" --m "$FACT_M" --jb "$FACT_JB" \
    --overheads --json "$OUT/fact-probe.json" >"$OUT/fact-probe.txt" 2>&1 || return 1
  sed 's/^/  /' "$OUT/fact-probe.txt" >>"$OUT/steps.txt"
  # The largest panel's FACT beside the DGEMM (the fused leaf, then the
  # kernel leaf), against its iteration's update.
  summary fact_beside_gemm_ms "$(json_get "$OUT/fact-probe.json" 'r["shapes"][0]["fact_beside_ms_median"]')"
  summary fact_kernels_beside_gemm_ms "$(json_get "$OUT/fact-probe.json" 'r["shapes"][1]["fact_beside_ms_median"]')"
  summary fact_update_ms "$(json_get "$OUT/fact-probe.json" 'r["shapes"][0]["update_ms_at_m"]')"
  # FACT's fixed costs beside the DGEMM, in microseconds, and what one
  # panel of the widest JB makes of them (--overheads).
  summary fact_launch_beside_gemm_us "$(json_get "$OUT/fact-probe.json" 'r["overheads"]["launch_us"][1]')"
  summary fact_barrier_beside_gemm_us "$(json_get "$OUT/fact-probe.json" 'r["overheads"]["barrier_us"][1]')"
  summary fact_fixed_beside_gemm_ms "$(json_get "$OUT/fact-probe.json" 'r["overheads"]["fixed_ms"][1]')"
  # The fused leaf 16 columns wide at the widest JB (a quarter of NBMIN 4's
  # recursion calls, each row's update four columns at a time), against
  # NBMIN 4's shapes above; what is left of the step's time allowing.
  timed "$BUILD_DIR/bin/hplx_fact_probe" --backend "$BACKEND" --m "$FACT_M" --jb "${FACT_JB##*,}" \
    --leaf fused --nbmin 16 --json "$OUT/fact-probe-nbmin16.json" >"$OUT/fact-probe-nbmin16.txt" \
    2>&1 || return 0
  sed 's/^/  /' "$OUT/fact-probe-nbmin16.txt" >>"$OUT/steps.txt"
  summary fact_nbmin16_beside_gemm_ms \
    "$(json_get "$OUT/fact-probe-nbmin16.json" 'r["shapes"][0]["fact_beside_ms_median"]')"
  # The fused leaf in three phases per column (--fact-leaf fused3) at the
  # widest JB, against the four-phase leaf's shapes above.
  timed "$BUILD_DIR/bin/hplx_fact_probe" --backend "$BACKEND" --m "$FACT_M" --jb "${FACT_JB##*,}" \
    --leaf fused3 --json "$OUT/fact-probe-fused3.json" >"$OUT/fact-probe-fused3.txt" 2>&1 || return 0
  sed 's/^/  /' "$OUT/fact-probe-fused3.txt" >>"$OUT/steps.txt"
  summary fact_fused3_beside_gemm_ms \
    "$(json_get "$OUT/fact-probe-fused3.json" 'r["shapes"][0]["fact_beside_ms_median"]')"
  summary fact_fused3_alone_ms \
    "$(json_get "$OUT/fact-probe-fused3.json" 'r["shapes"][0]["fact_alone_ms_median"]')"
  # The largest panel with SMs kept from the update's DGEMM for FACT: FACT
  # beside it and the DGEMM's own rate on the SMs it keeps.
  HPLX_UPDATE_SMS=$UPDATE_SMS timed "$BUILD_DIR/bin/hplx_fact_probe" --backend "$BACKEND" \
    --m "${FACT_M%%,*}" --jb "${FACT_JB##*,}" --leaf fused --blocks 16 \
    --json "$OUT/fact-probe-update-sms.json" >"$OUT/fact-probe-update-sms.txt" 2>&1 || return 0
  sed 's/^/  /' "$OUT/fact-probe-update-sms.txt" >>"$OUT/steps.txt"
  summary fact_update_sms_beside_gemm_ms \
    "$(json_get "$OUT/fact-probe-update-sms.json" 'r["shapes"][0]["fact_beside_ms_median"]')"
  summary fact_update_sms_gemm_gflops \
    "$(json_get "$OUT/fact-probe-update-sms.json" 'r["shapes"][0]["gemm_gflops_alone"]')"
}

step_mxp() {
  timed "$BUILD_DIR/bin/hplx_stream_probe" --backend "$BACKEND" --n "$STREAM_N" \
    --json "$OUT/stream.json" >"$OUT/stream.txt" 2>&1 || return 1
  local triad
  triad=$(json_get "$OUT/stream.json" 'round([x for x in r["kernels"] if x["kernel"] == "triad"][0]["gbs_best"], 1)')
  summary triad_gbs "$triad"
  local mxp=("$HPLX" mxp --backend "$BACKEND" --nx "$MXP_N" --ny "$MXP_N" --nz "$MXP_N"
    --time "$MXP_TIME" --expect-bandwidth "$triad" --json "$OUT/mxp.json")
  timed "${mxp[@]}" >"$OUT/mxp.txt" 2>&1
  # The V-cycles replayed as CUDA Graphs (the default) are new on a GPU: if
  # that run fails, the same run with direct launches still measures.
  if ! grep -q "result is VALID" "$OUT/mxp.txt"; then
    mv "$OUT/mxp.txt" "$OUT/mxp-graphs-failed.txt"
    log "mxp: the run with V-cycle graphs failed (mxp-graphs-failed.txt); again with --graphs off"
    summary mxp_graphs_failed true
    timed "${mxp[@]}" --graphs off >"$OUT/mxp.txt" 2>&1
  fi
  grep -q "result is VALID" "$OUT/mxp.txt" && summary mxp_valid true || {
    summary mxp_valid false
    return 1
  }
  python3 - "$OUT" "$triad" <<'PY' | tee -a "$OUT/steps.txt"
import json, sys
out, triad = sys.argv[1], float(sys.argv[2])
r = json.load(open(f"{out}/mxp.json"))["result"]
shares = {}
for name in ("spmv", "gs", "restriction", "prolongation", "ortho", "vector"):
    m = r["mixed"]["motifs"]
    t = m["seconds"][name]
    # A motif fused into another (the prolongation into GS) has no time
    # or bytes of its own: it counts in that motif's share.
    if t == 0 and m["bytes"][name] == 0:
        continue
    shares[name] = m["bytes"][name] / r["ranks"] / t / 1e9 / triad if t > 0 else 0.0
with open(f"{out}/summary.kv", "a") as kv:
    kv.write(f"mxp_rating {r['rating_gflops']}\n")
    kv.write(f"mxp_rating_share_of_expected {r['rating_gflops'] / r['expected']['rating_gflops']}\n")
    kv.write(f"mxp_min_motif_share {min(shares.values())}\n")
    kv.write(f"mxp_mixed_over_double {r['rating_gflops'] / r['double']['gflops']}\n")
    kv.write(f"mxp_vcycle_graphs {'true' if r['mixed'].get('vcycle_graphs') else 'false'}\n")
print("  mixed motifs' share of the triad: " + ", ".join(f"{k} {100 * v:.0f}%" for k, v in shares.items()))
PY
}

step_hpl_mxp() {
  # The 16-bit update alone (GemmEx, FP32 C) at M = GEMMEX_M for each NB of
  # HPLMXP_NB; HPL-MxP then runs at the NB of the best FP16 rate.
  local p
  for p in fp16 bf16; do
    timed "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --precision "$p" \
      --m "$GEMMEX_M" --nb "$HPLMXP_NB" --reps 3 --json "$OUT/gemmex-$p.json" \
      >>"$OUT/gemmex.txt" 2>&1 || return 1
  done
  local nb size=()
  nb=$(json_get "$OUT/gemmex-fp16.json" 'max(r["shapes"], key=lambda s: s["gflops_median"])["nb"]')
  [[ -n $HPLMXP_N ]] && size=(--n "$HPLMXP_N")
  for p in fp16 bf16; do
    timed "$HPLX" hpl-mxp --backend "$BACKEND" --precision "$p" "${size[@]}" --nb "$nb" \
      --json "$OUT/hpl-mxp-$p.json" >"$OUT/hpl-mxp-$p.txt" 2>&1 || return 1
  done
  python3 - "$OUT" <<'PY' | tee -a "$OUT/steps.txt"
import json, sys
out = sys.argv[1]
def best(p):
    return max(s["gflops_median"] for s in json.load(open(f"{out}/gemmex-{p}.json"))["shapes"])
t = json.load(open(f"{out}/hpl-mxp-fp16.json"))["tests"][0]
bf = json.load(open(f"{out}/hpl-mxp-bf16.json"))["tests"][0]
kv = {}
for line in open(f"{out}/summary.kv"):
    key, _, value = line.strip().partition(" ")
    kv[key] = json.loads(value)
n, phases = t["n"], t["phases_s"]
factor_gflops = 2 / 3 * n**3 / phases["factor"] / 1e9
rows = {
    "gemmex_fp16_gflops": best("fp16"),
    "gemmex_bf16_gflops": best("bf16"),
    "hpl_mxp_n": n,
    "hpl_mxp_nb": t["nb"],
    "hpl_mxp_gflops": t["gflops"],
    "hpl_mxp_passed": bool(t["passed"]),
    "hpl_mxp_panel_solve": t["panel_solve"],
    "hpl_mxp_gmres_iterations": t["refinement"]["gmres_iterations"],
    "hpl_mxp_factorization_share_of_gemmex": factor_gflops / best("fp16"),
    "hpl_mxp_refinement_share": (phases["solve"] + phases["refine"]) / t["time_s"],
    "hpl_mxp_bf16_gflops": bf["gflops"],
    "hpl_mxp_bf16_passed": bool(bf["passed"]),
}
if kv.get("lu_gflops"):  # hplx lu at full memory (step full-memory)
    rows["hpl_mxp_over_lu"] = t["gflops"] / kv["lu_gflops"]
with open(f"{out}/summary.kv", "a") as f:
    for key, value in rows.items():
        f.write(f"{key} {json.dumps(value)}\n")
print(f"  hpl-mxp fp16 N = {n}, NB = {t['nb']}, panel solve {t['panel_solve']}: "
      f"{t['gflops']:.1f} Gflop/s, passed {t['passed']} in {t['refinement']['gmres_iterations']} "
      f"GMRES iterations; "
      f"factorization {100 * rows['hpl_mxp_factorization_share_of_gemmex']:.1f}% of the FP16 GemmEx "
      f"probe (goal 50%); refinement and solves {100 * rows['hpl_mxp_refinement_share']:.1f}% "
      f"(goal 15%); over hplx lu at full memory {rows.get('hpl_mxp_over_lu')} (goal 4); "
      f"bf16 {bf['gflops']:.1f} Gflop/s, passed {bf['passed']}")
PY
}

log "$(date -u +%FT%TZ): backend $BACKEND, build $BUILD_DIR, budget $BUDGET s, results in $OUT"
rm -f "$OUT/summary.kv"
touch "$OUT/summary.kv"
ALL_STEPS="environment correctness dgemm-probe fact-ab full-memory fact-probe mxp hpl-mxp"
for name in ${STEPS//,/ }; do
  [[ " $ALL_STEPS " == *" $name "* ]] ||
    { log "STEPS: no step named '$name' (allowed: ${ALL_STEPS// /, })"; exit 2; }
done
run_step environment 20 step_environment
run_step correctness 120 step_correctness
run_step dgemm-probe 60 step_probe
run_step fact-ab 130 step_fact_ab
run_step full-memory 150 step_full_memory
run_step fact-probe 100 step_fact_probe
run_step mxp 90 step_mxp
run_step hpl-mxp 200 step_hpl_mxp

python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
summary = {}
for line in open(f"{out}/summary.kv"):
    key, value = line.rstrip("\n").split(" ", 1)
    summary[key] = json.loads(value)
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
PY
log "done in $((SECONDS - T0)) s: $OUT/summary.json"
cat "$OUT/summary.json"
exit $FAILED
