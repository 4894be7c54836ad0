#!/usr/bin/env bash
# The first run of hplx on an NVIDIA GPU (H100/H200 or A100), in one go:
#   1. build with the CUDA backend required (-DHPLX_CUDA=on),
#   2. the test suite, whose contract tests then run on the GPU too,
#   3. the update's DGEMM alone (build/bin/hplx_dgemm_probe: M = 20000,
#      40000, 60000, K = NB = 256, 512, 768, 1024),
#   4. hplx lu --backend cuda with no N (N fills about 85% of the GPU's free
#      memory), NB = the probe's best NB, with its residual check,
#   5. the LU's rate against the probe's at that NB, one JSON summary, and
#      `hplx report` of the LU run,
#   6. STREAM's kernels on the device (build/bin/hplx_stream_probe): the
#      memory bandwidth, the triad's best,
#   7. hplx mxp --backend cuda (local grid 256^3, 30 s per timed phase) with
#      --expect-bandwidth at that bandwidth: the expected rating beside the
#      measured one,
#   8. each MxP motif's GB/s against the triad (goal >= 75%) and mixed over
#      double penalized (goal >= 1.6), in mxp-summary.json.
#   9. hplx hpl-mxp --backend cuda (HPL-MxP) at N = HPLMXP_N (40000; its FP32
#      matrix takes 6.4 GB of the GPU, the FP64 one 12.8 GB of the host) with
#      FP16, BF16 and FP32 operands in the update, each with --compare-hpl
#      (hplx lu --backend cuda on the same N), the checks and speed-ups in
#      hpl-mxp-summary.json.
# Everything goes to $OUT [bench/results/<UTC date>-gpu-first-run/].
#
#   bench/gpu/first-run.sh                 # on the GPU machine, from the repository root
#   DRY_RUN=1 bench/gpu/first-run.sh       # anywhere: the same steps on the emulated
#                                          # device, small sizes, the existing build/
#   PREBUILT=DIR bench/gpu/first-run.sh    # on a GPU machine without the build
#                                          # prerequisites: DIR is the build/ folder of
#                                          # an archive made by bench/gpu/bundle.sh
#
# Settings (environment): LU_NS, the LU's sizes in order ("auto": about 85% of
# the GPU's memory; default "auto"); PROBE_M, PROBE_NB; STREAM_N; MXP_N,
# MXP_TIME; HPLMXP_N; STEP_TIMEOUT, seconds any one command may run (default
# none); KEEP_GOING=1 logs a failed step and goes on to the next.
#
# Needs on the GPU machine: CUDA (nvcc, cuBLAS), a C++20 compiler, CMake,
# Open MPI and OpenBLAS (scripts/install-deps.sh installs the Debian
# packages; a machine without network needs them carried as .deb files).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
DRY_RUN=${DRY_RUN:-0}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y-%m-%d)-gpu-first-run}
if [[ $DRY_RUN == 1 ]]; then
  BUILD_DIR=${BUILD_DIR:-build} BACKEND=emulated PROBE_M=${PROBE_M:-2000} PROBE_NB=${PROBE_NB:-256,512}
  LU_NS=${LU_NS:-1500} TESTS=${TESTS:-"BackendPresence|DeviceContract"}
  STREAM_N=${STREAM_N:-2000000} MXP_N=${MXP_N:-16} MXP_ARGS=(--time 0.2 --iterations 30)
  HPLMXP_N=${HPLMXP_N:-1000}
else
  BUILD_DIR=${BUILD_DIR:-build-gpu} BACKEND=cuda PROBE_M=${PROBE_M:-20000,40000,60000}
  PROBE_NB=${PROBE_NB:-256,512,768,1024} LU_NS=${LU_NS:-auto} TESTS=${TESTS:-.}
  STREAM_N=${STREAM_N:-268435456} MXP_N=${MXP_N:-256} MXP_ARGS=(--time "${MXP_TIME:-30}")
  HPLMXP_N=${HPLMXP_N:-40000}
  command -v nvidia-smi >/dev/null && nvidia-smi -L || {
    echo "first-run: no GPU seen by nvidia-smi; DRY_RUN=1 runs the steps on the emulated device" >&2
    exit 2
  }
fi
PREBUILT=${PREBUILT:-}
if [[ -n $PREBUILT ]]; then
  BUILD_DIR=$PREBUILT
  # The OpenBLAS the build was made with (bundle.sh), before the machine's.
  export LD_LIBRARY_PATH=$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
mkdir -p "$OUT"
log() { echo "first-run: $*" | tee -a "$OUT/steps.txt"; }
# A step's command, under STEP_TIMEOUT when it is set.
timed() { if [[ -n ${STEP_TIMEOUT:-} ]]; then timeout -k 10 "$STEP_TIMEOUT" "$@"; else "$@"; fi; }
# A failed step: the end of the run, or with KEEP_GOING=1 a line in steps.txt.
failed() {
  log "$*"
  [[ ${KEEP_GOING:-0} == 1 ]] || exit 1
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
log "$(date -u +%FT%TZ), backend $BACKEND, results in $OUT"

log "1. build ($BUILD_DIR)"
if [[ -n $PREBUILT ]]; then
  log "prebuilt: nothing to build"
elif [[ $DRY_RUN == 1 ]]; then
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target hplx hplx_dgemm_probe hplx_stream_probe >"$OUT/build.txt" 2>&1
else
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DHPLX_CUDA=on >"$OUT/build.txt" 2>&1
  cmake --build "$BUILD_DIR" -j "$(nproc)" >>"$OUT/build.txt" 2>&1
fi
"$BUILD_DIR/bin/hplx" --version | tee "$OUT/version.txt"

if [[ -n $PREBUILT ]]; then
  # No build tree to run ctest in: the binaries bundle.sh packs, their
  # instances on the CUDA backend (GTEST_FILTER), on 1 and 2 ranks.
  GTEST_FILTER=${GTEST_FILTER:-"*cuda*:*Cuda*:DeviceGemmPanel.*"}
  log "2. tests: the GPU test binaries, --gtest_filter='$GTEST_FILTER'"
  for t in device_test_backend_presence device_test_device_contract device_test_precision_cuda \
    mpi_test_lu_grids mpi_test_lu_phase_contract mpi_test_lu_vs_lapack mpi_test_panel_factor \
    mxp_kernels mxp_halo mxp_gmres; do
    for np in 1 2; do
      [[ $np == 2 && ($t == device_test_* || $t == mxp_kernels) ]] && continue
      if timed mpirun -n "$np" --oversubscribe --bind-to none "$BUILD_DIR/tests/$t" \
        --gtest_filter="$GTEST_FILTER" --gtest_color=no >"$OUT/test-$t-np$np.txt" 2>&1; then
        log "$t np$np: $(grep -E '^\[  PASSED  \]' "$OUT/test-$t-np$np.txt" | head -1)"
      else
        failed "$t np$np FAILED: $(grep -cE '^\[  FAILED  \]' "$OUT/test-$t-np$np.txt") lines; see test-$t-np$np.txt"
      fi
    done
  done
else
  log "2. tests (-R '$TESTS')"
  (cd "$BUILD_DIR" && ctest -j "$(nproc)" -R "$TESTS" --output-on-failure) >"$OUT/tests.txt" 2>&1 ||
    failed "tests FAILED: see $OUT/tests.txt"
  grep -E "tests passed|Skipped" "$OUT/tests.txt" | tee -a "$OUT/steps.txt"
fi

log "3. DGEMM probe, M in $PROBE_M, NB in $PROBE_NB"
timed "$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" --nb "$PROBE_NB" \
  --json "$OUT/probe.json" 2>&1 | tee "$OUT/probe.txt" || true
if [[ -s $OUT/probe.json ]]; then
  best_nb=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["shapes"]
print(max(r, key=lambda s: s["gflops_median"])["nb"])' "$OUT/probe.json")
else
  best_nb=${LU_NB:-512}
  failed "the DGEMM probe wrote no JSON; the LU runs at NB = $best_nb"
fi

for n in $LU_NS; do
  log "4. hplx lu --backend $BACKEND --n $n --nb $best_nb"
  size=()
  [[ $n == auto ]] || size=(--n "$n")
  timed "$BUILD_DIR/bin/hplx" lu --backend "$BACKEND" "${size[@]}" --nb "$best_nb" \
    --json "$OUT/lu-$n.json" 2>&1 | tee "$OUT/lu-$n.txt" || true
  if grep -q PASSED "$OUT/lu-$n.txt"; then
    cp "$OUT/lu-$n.json" "$OUT/lu.json"
  else
    failed "hplx lu --n $n did not pass its residual check"
  fi
done

log "5. summary and report"
if [[ ! -s $OUT/lu.json || ! -s $OUT/probe.json ]]; then
  failed "no summary: no LU passed or no probe"
else
  python3 - "$OUT" "$BACKEND" <<'PY' | tee -a "$OUT/steps.txt"
import json, sys
out, backend = sys.argv[1], sys.argv[2]
probe = json.load(open(f"{out}/probe.json"))
lu = json.load(open(f"{out}/lu.json"))["tests"][0]
at_nb = [s for s in probe["shapes"] if s["nb"] == lu["nb"]]
ref = max(s["gflops_median"] for s in at_nb)
summary = {"backend": backend, "device": probe["device"], "n": lu["n"], "nb": lu["nb"],
           "lu_gflops": lu["gflops"], "lu_seconds": lu["time_s"], "verdict": lu["verdict"],
           "probe_gflops_at_nb": ref, "lu_over_probe": lu["gflops"] / ref, "goal": 0.80}
json.dump(summary, open(f"{out}/summary.json", "w"), indent=2)
print(f"N = {lu['n']}, NB = {lu['nb']}: {lu['gflops']:.1f} Gflop/s, {lu['verdict']}; "
      f"DGEMM probe {ref:.1f}: {100 * summary['lu_over_probe']:.1f}% of it (goal 80%)")
PY
  "$BUILD_DIR/bin/hplx" report "$OUT/lu.json" -o "$OUT/report.html"
fi

log "6. device bandwidth: STREAM's kernels, $STREAM_N doubles per array"
timed "$BUILD_DIR/bin/hplx_stream_probe" --backend "$BACKEND" --n "$STREAM_N" \
  --json "$OUT/stream.json" 2>&1 | tee "$OUT/stream.txt" || true
expect=()
if [[ -s $OUT/stream.json ]]; then
  triad=$(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernels"]
print(round([x for x in k if x["kernel"] == "triad"][0]["gbs_best"], 1))' "$OUT/stream.json")
  expect=(--expect-bandwidth "$triad")
else
  triad=none
  failed "the STREAM probe wrote no JSON"
fi

log "7. hplx mxp --backend $BACKEND, local ${MXP_N}^3, expected at the triad's $triad GB/s"
timed "$BUILD_DIR/bin/hplx" mxp --backend "$BACKEND" --nx "$MXP_N" --ny "$MXP_N" --nz "$MXP_N" \
  "${MXP_ARGS[@]}" "${expect[@]}" --json "$OUT/mxp.json" 2>&1 | tee "$OUT/mxp.txt" || true
if ! grep -q "result is VALID" "$OUT/mxp.txt"; then
  failed "hplx mxp did not report VALID"
elif [[ $triad != none ]]; then

log "8. MxP motifs against the device's bandwidth"
python3 - "$OUT" "$triad" <<'PY' | tee -a "$OUT/steps.txt"
import json, sys
out, triad = sys.argv[1], float(sys.argv[2])
r = json.load(open(f"{out}/mxp.json"))["result"]
ranks = r["ranks"]
motifs = {}
for phase in ("mixed", "double"):
    m = r[phase]["motifs"]
    for name in ("spmv", "gs", "restriction", "prolongation", "ortho", "vector"):
        t = m["seconds"][name]
        gbs = m["bytes"][name] / ranks / t / 1e9 if t > 0 else 0.0
        motifs[f"{phase} {name}"] = {"gbs": gbs, "of_triad": gbs / triad}
penalized = r["rating_gflops"] / r["double"]["gflops"] if r["double"]["gflops"] > 0 else 0.0
summary = {"triad_gbs": triad, "rating_gflops": r["rating_gflops"],
           "expected_rating_gflops": r["expected"]["rating_gflops"],
           "mixed_over_double_penalized": penalized, "goal_mixed_over_double": 1.6,
           "motifs": motifs, "goal_motif_of_triad": 0.75}
json.dump(summary, open(f"{out}/mxp-summary.json", "w"), indent=2)
for name, m in motifs.items():
    flag = "" if m["of_triad"] >= 0.75 else "  (below the 75% goal)"
    print(f"{name:22s} {m['gbs']:9.1f} GB/s = {100 * m['of_triad']:5.1f}% of the triad{flag}")
print(f"rating {r['rating_gflops']:.1f} GFLOP/s, expected {summary['expected_rating_gflops']:.1f} "
      f"at {triad} GB/s; mixed / double penalized {penalized:.3f} (goal 1.6)")
PY
fi
log "9. hplx hpl-mxp --backend $BACKEND --n $HPLMXP_N --nb $best_nb, fp16, bf16 and fp32, --compare-hpl"
for precision in fp16 bf16 fp32; do
  timed "$BUILD_DIR/bin/hplx" hpl-mxp --backend "$BACKEND" --precision "$precision" --n "$HPLMXP_N" \
    --nb "$best_nb" --compare-hpl --json "$OUT/hpl-mxp-$precision.json" 2>&1 |
    tee "$OUT/hpl-mxp-$precision.txt" || log "hplx hpl-mxp --precision $precision failed (kept going)"
done
python3 - "$OUT" <<'PY' | tee -a "$OUT/steps.txt"
import json, os, sys
out = sys.argv[1]
summary = {}
for p in ("fp16", "bf16", "fp32"):
    path = f"{out}/hpl-mxp-{p}.json"
    if not os.path.exists(path):
        summary[p] = None
        continue
    t = json.load(open(path))["tests"][0]
    hpl = t.get("compare_hpl", {})
    summary[p] = {"score_gflops": t["gflops"], "passed": t["passed"],
                  "gmres_iterations": t["refinement"]["gmres_iterations"],
                  "phases_s": t["phases_s"], "hpl_gflops": hpl.get("gflops"),
                  "speedup_over_hpl": hpl.get("speedup")}
    s = summary[p]
    print(f"hpl-mxp {p}: score {s['score_gflops']:.1f} Gflop/s, passed {s['passed']}, "
          f"{s['gmres_iterations']} GMRES iterations, HPL {s['hpl_gflops']}, "
          f"speed-up {s['speedup_over_hpl']}")
json.dump(summary, open(f"{out}/hpl-mxp-summary.json", "w"), indent=2)
PY
log "done: $OUT/summary.json, $OUT/report.html, $OUT/mxp-summary.json, $OUT/hpl-mxp-summary.json"
