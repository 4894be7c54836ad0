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
  LU_N=(--n "${LU_N:-1500}") TESTS=${TESTS:-"BackendPresence|DeviceContract"}
  STREAM_N=${STREAM_N:-2000000} MXP_N=${MXP_N:-16} MXP_ARGS=(--time 0.2 --iterations 30)
  HPLMXP_N=${HPLMXP_N:-1000}
else
  BUILD_DIR=${BUILD_DIR:-build-gpu} BACKEND=cuda PROBE_M=${PROBE_M:-20000,40000,60000}
  PROBE_NB=${PROBE_NB:-256,512,768,1024} LU_N=() TESTS=${TESTS:-.}
  STREAM_N=${STREAM_N:-268435456} MXP_N=${MXP_N:-256} MXP_ARGS=(--time "${MXP_TIME:-30}")
  HPLMXP_N=${HPLMXP_N:-40000}
  command -v nvidia-smi >/dev/null && nvidia-smi -L || {
    echo "first-run: no GPU seen by nvidia-smi; DRY_RUN=1 runs the steps on the emulated device" >&2
    exit 2
  }
fi
mkdir -p "$OUT"
log() { echo "first-run: $*" | tee -a "$OUT/steps.txt"; }
log "$(date -u +%FT%TZ), backend $BACKEND, results in $OUT"

log "1. build ($BUILD_DIR)"
if [[ $DRY_RUN == 1 ]]; then
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target hplx hplx_dgemm_probe hplx_stream_probe >"$OUT/build.txt" 2>&1
else
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DHPLX_CUDA=on >"$OUT/build.txt" 2>&1
  cmake --build "$BUILD_DIR" -j "$(nproc)" >>"$OUT/build.txt" 2>&1
fi
"$BUILD_DIR/bin/hplx" --version | tee "$OUT/version.txt"

log "2. tests (-R '$TESTS')"
(cd "$BUILD_DIR" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  ctest -j "$(nproc)" -R "$TESTS" --output-on-failure) >"$OUT/tests.txt" 2>&1 || {
  log "tests FAILED: see $OUT/tests.txt"
  exit 1
}
grep -E "tests passed|Skipped" "$OUT/tests.txt" | tee -a "$OUT/steps.txt"

log "3. DGEMM probe, M in $PROBE_M, NB in $PROBE_NB"
"$BUILD_DIR/bin/hplx_dgemm_probe" --backend "$BACKEND" --m "$PROBE_M" --nb "$PROBE_NB" \
  --json "$OUT/probe.json" | tee "$OUT/probe.txt"
best_nb=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["shapes"]
print(max(r, key=lambda s: s["gflops_median"])["nb"])' "$OUT/probe.json")

log "4. hplx lu --backend $BACKEND ${LU_N[*]} --nb $best_nb"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  "$BUILD_DIR/bin/hplx" lu --backend "$BACKEND" "${LU_N[@]}" --nb "$best_nb" \
  --json "$OUT/lu.json" 2>&1 | tee "$OUT/lu.txt"
grep -q PASSED "$OUT/lu.txt" || { log "the LU did not pass its residual check"; exit 1; }

log "5. summary and report"
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

log "6. device bandwidth: STREAM's kernels, $STREAM_N doubles per array"
"$BUILD_DIR/bin/hplx_stream_probe" --backend "$BACKEND" --n "$STREAM_N" \
  --json "$OUT/stream.json" | tee "$OUT/stream.txt"
triad=$(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["kernels"]
print(round([x for x in k if x["kernel"] == "triad"][0]["gbs_best"], 1))' "$OUT/stream.json")

log "7. hplx mxp --backend $BACKEND, local ${MXP_N}^3, expected at the triad's $triad GB/s"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  "$BUILD_DIR/bin/hplx" mxp --backend "$BACKEND" --nx "$MXP_N" --ny "$MXP_N" --nz "$MXP_N" \
  "${MXP_ARGS[@]}" --expect-bandwidth "$triad" --json "$OUT/mxp.json" 2>&1 | tee "$OUT/mxp.txt"
grep -q "result is VALID" "$OUT/mxp.txt" || { log "hplx mxp did not report VALID"; exit 1; }

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
log "9. hplx hpl-mxp --backend $BACKEND --n $HPLMXP_N --nb $best_nb, fp16, bf16 and fp32, --compare-hpl"
for precision in fp16 bf16 fp32; do
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$BUILD_DIR/bin/hplx" hpl-mxp --backend "$BACKEND" --precision "$precision" --n "$HPLMXP_N" \
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
