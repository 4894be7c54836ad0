#!/usr/bin/env bash
# The HIP build's checks that need no AMD GPU (scripts/check-hip-build.sh
# runs them in its Debian 13 root, from the build folder):
#   hip_build_checks.sh BUILD_DIR
# - every program linked: hplx, the probes, the test programs;
# - hplx links the HIP runtime and rocBLAS;
# - `hplx --version` lists hip and says it has not run on an AMD GPU;
# - `hplx lu --backend hip` without an AMD GPU: one line, exit 2;
# - the device layer's contract and backend tests pass (host and emulated
#   here; the hip cases skip with the reason), and the 16-bit conversions
#   agree with hip_fp16.h's and hip_bf16.h's host conversions.
set -euo pipefail
build=${1:?usage: hip_build_checks.sh BUILD_DIR}
bin=$build/bin tests=$build/tests
fail() {
  echo "hip-build-checks: FAIL: $*" >&2
  exit 1
}
say() { echo "hip-build-checks: $*"; }

for p in bin/hplx bin/hplx_dgemm_probe bin/hplx_fact_probe bin/hplx_stream_probe \
  tests/device_test_device_contract tests/device_test_backend_presence tests/device_test_precision_gpu; do
  [[ -x $build/$p ]] || fail "$build/$p was not linked"
done
say "$(find "$bin" "$tests" -maxdepth 1 -type f -executable | wc -l) programs linked in $bin and $tests"

libs=$(ldd "$bin/hplx")
grep -q 'libamdhip64' <<<"$libs" || fail "hplx does not link the HIP runtime (libamdhip64)"
grep -q 'librocblas' <<<"$libs" || fail "hplx does not link rocBLAS"
say "hplx links $(grep -oE 'lib(amdhip64|rocblas)[^ ]*' <<<"$libs" | sort -u | tr '\n' ' ')"

version=$("$bin/hplx" --version)
grep -q '^backends: host, emulated, hip$' <<<"$version" || fail "hplx --version lacks 'backends: host, emulated, hip': $version"
grep -q 'it has not run on an AMD GPU' <<<"$version" || fail "hplx --version does not say the backend has not run on an AMD GPU"
grep -E '^(hip|GPU libraries):' <<<"$version"

rc=0
out=$(HIP_VISIBLE_DEVICES= ROCR_VISIBLE_DEVICES= "$bin/hplx" lu --backend hip --n 100 2>&1) || rc=$?
[[ $rc == 2 ]] || fail "hplx lu --backend hip without an AMD GPU exited $rc, not 2: $out"
[[ $(wc -l <<<"$out") == 1 ]] || fail "hplx lu --backend hip without an AMD GPU said more than one line: $out"
grep -q -- '--backend hip: no AMD GPU is present' <<<"$out" || fail "unexpected message: $out"
say "without an AMD GPU: $out"

for t in device_test_device_contract device_test_backend_presence device_test_precision_gpu; do
  "$tests/$t" --gtest_brief=1 >"/tmp/$t.log" 2>&1 || {
    tail -n 30 "/tmp/$t.log"
    fail "$t failed"
  }
  say "$t: $(grep -E '^\[  PASSED  \]' "/tmp/$t.log")"
done
say "PASSED"
