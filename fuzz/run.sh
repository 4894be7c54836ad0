#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ one after the other, each for SECONDS,
# from its seed corpus (fuzz/corpus/TARGET, read only: what the run finds
# goes to BUILD/corpus/TARGET) with its dictionary, and prints one line of
# figures per target. Exit status 1 on any finding: a crash, a sanitizer
# report, a leak, a timeout (-timeout), memory beyond -rss_limit_mb, an
# exception other than the parser's UsageError, or a failed FUZZ_CHECK;
# the input is left in BUILD/artifacts/.
#   fuzz/run.sh BUILD SECONDS [TARGET ...]   (targets: hpl_dat system_spec run_record flags mxp_flags)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: fuzz/run.sh BUILD SECONDS [TARGET ...]}
seconds=${2:?usage: fuzz/run.sh BUILD SECONDS [TARGET ...]}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hpl_dat system_spec run_record flags mxp_flags)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
mkdir -p "$build/artifacts" "$build/logs"
failed=()
for t in "${targets[@]}"; do
  bin=$build/bin/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: $bin is missing (make fuzz-smoke builds it)"; exit 2; }
  mkdir -p "$build/corpus/$t"
  log=$build/logs/$t.log
  start=$(date +%s)
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="fuzz/dict/$t.dict" -artifact_prefix="$build/artifacts/$t-" \
    "$build/corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  wall=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]+).*/\1/p' <<<"$last")
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then verdict="no findings"; else verdict="FINDING (exit $rc), see $log"; failed+=("$t"); fi
  printf 'fuzz_%-12s %4ss  %9s execs  %6s exec/s  corpus %-12s cov %-5s ft %-6s rss %sMB  %s\n' \
    "$t" "$wall" "${execs:-?}" "${rate:-?}" "${corp:-?}" "${cov:-?}" "${ft:-?}" "${rss:-?}" "$verdict"
  if [ $rc -ne 0 ]; then
    grep -E 'ERROR|runtime error|SUMMARY|FUZZ_CHECK|what\(\)|Test unit written' "$log" | head -8
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
