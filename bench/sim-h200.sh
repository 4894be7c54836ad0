#!/usr/bin/env bash
# hplx sim of the one GPU hplx lu has run on (examples/systems/h200.toml)
# against that GPU's measured runs, and what the model says would close the
# gap to the DGEMM probe. Each line: the command, its result line, the
# measured Gflop/s and the error. Then the same spec with one figure
# changed at a time (the update at the DGEMM's rate, FACT as fast beside
# the update as alone, both), as predictions; and the trade HPLX_UPDATE_SMS
# makes, assumed: FACT as fast beside the update as alone, the update's
# rate cut in the ratio of the SMs it keeps (UPDATE_SMS of 132); then
# hplx lu's --update-sms with --update-sms-below, which keeps them only
# where the trailing matrix is small, on both FACT tables.
#   bench/sim-h200.sh                        # writes OUT/summary.txt
#   HPLX=build-gpu/bin/hplx OUT=/tmp/x bench/sim-h200.sh
set -euo pipefail
cd "$(dirname "$0")/.."
HPLX=${HPLX:-build/bin/hplx}
SPEC=${SPEC:-examples/systems/h200.toml}
UPDATE_SMS=${UPDATE_SMS:-116}
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-sim-h200}
mkdir -p "$OUT"
sum=$OUT/summary.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The measured runs (docs/GPU.md): Gflop/s by where FACT ran, N and overlap.
#   first run (2026-11-27, bench/results/2026-11-27-gpu-first-run-h200/run1):
#     host FACT, not beside the update (--fact-overlap off)
#   second run (2026-11-28, bench/results/2026-11-28-gpu-check-h200):
#     device FACT at full memory (call3/med, the median of 3), the A/B at
#     N = 60000 (call1/lu-ab-*.json)
measured() {
  case "$1" in
    host-off-20000) echo 1690 ;;
    host-off-60000) echo 5766 ;;
    host-off-123904) echo 11672 ;;
    host-on-60000) echo 7927 ;;
    device-on-60000) echo 26953.4 ;;
    device-on-123904) echo 41932.2 ;;
  esac
}

# SPEC FACT OVERLAP N [OPTION...]: the simulated Gflop/s (and the command and result in the summary).
simulate() {
  local spec=$1 on=$2 overlap=$3 n=$4 out
  shift 4
  local cmd=("$HPLX" sim "$spec" --n "$n" --nb 1024 --fact-on "$on" --fact-overlap "$overlap" "$@")
  out=$("${cmd[@]}" 2>&1) || { echo "$out" >&2; echo "FAIL: ${cmd[*]}" >&2; exit 1; }
  echo "\$ hplx sim ${spec#"$work"/} --n $n --nb 1024 --fact-on $on --fact-overlap $overlap${*:+ $*}" >> "$sum"
  grep -E "^WR" <<< "$out" | head -1 | tee -a "$sum" | awk '{ print $7 }'
}

{
  echo "# hplx sim $SPEC, build $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(nproc) cores here"
  echo "# the update's rate and FACT's: update_share_of_dgemm and [device.fact_probe] in the spec"
} > "$sum"
for run in host-off-20000 host-off-60000 host-off-123904 host-on-60000 device-on-60000 \
  device-on-123904; do
  IFS=- read -r on overlap n <<< "$run"
  got=$(simulate "$SPEC" "$on" "$overlap" "$n")
  want=$(measured "$run")
  awk -v g="$got" -v w="$want" 'BEGIN { printf "  measured %.0f Gflop/s: simulated %+.1f%%\n", w, 100 * (g / w - 1) }' >> "$sum"
done

# One figure changed at a time, at full memory with FACT on the device.
python3 - "$SPEC" "$work" "$UPDATE_SMS" >> "$sum" <<'PY'
import re, sys
spec, work, update_sms = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(spec).read()
alone = re.search(r"^alone_ms = (.*)$", text, re.M).group(1)
full = re.sub(r"^update_share_of_dgemm = .*$", "update_share_of_dgemm = 1", text, flags=re.M)
quiet = re.sub(r"^beside_ms = .*$", "beside_ms = " + alone, text, flags=re.M)
both = re.sub(r"^beside_ms = .*$", "beside_ms = " + alone, full, flags=re.M)
# The pivot search in two levels (2026-11-29; PivotSearch in
# src/lu/kernels/fact_kernels.hpp), an estimate from the probe's table:
# the part of each panel's time that grows with the rows, taken as the
# pick's chain of candidate loads (ceil(rows / 256) per column before),
# less what the two levels still scan per column.
import math
def table(name):
    return eval(re.search(rf"^{name} = (.*)$", text, re.M).group(1))
jbs, rows = table("jb"), table("rows")
def scanned_before(m):
    return math.ceil(m / 256)
def scanned_now(m):  # the chunks' level and the pick, as PivotSearch::of
    chunks = min(max(math.ceil(m / 16), 1), 4096)
    groups = math.ceil(math.sqrt(chunks))
    return math.ceil(chunks / groups) + groups
def shortened(ms):
    out = []
    for jb, times in zip(jbs, ms):
        mean_r, mean_t = sum(rows) / len(rows), sum(times) / len(times)
        slope = sum((r - mean_r) * (t - mean_t) for r, t in zip(rows, times)) / sum(
            (r - mean_r) ** 2 for r in rows)  # ms per row
        per_load = slope * 256 / jb  # ms per candidate load of one column
        out.append([round(t - jb * per_load * (scanned_before(r) - scanned_now(r)), 2)
                    for r, t in zip(rows, times)])
    return out
pick = re.sub(r"^alone_ms = .*$", f"alone_ms = {shortened(table('alone_ms'))}", text, flags=re.M)
pick = re.sub(r"^beside_ms = .*$", f"beside_ms = {shortened(table('beside_ms'))}", pick, flags=re.M)
pick_full = re.sub(r"^update_share_of_dgemm = .*$", "update_share_of_dgemm = 1", pick, flags=re.M)
print("# the two-level search's FACT, estimated:",
      re.search(r"^alone_ms = .*$", pick, re.M).group(0) + ";",
      re.search(r"^beside_ms = .*$", pick, re.M).group(0))
# SMs kept for FACT: FACT beside the update as alone, the update's share
# of the DGEMM's rate times update_sms / 132.
share = float(re.search(r"^update_share_of_dgemm = (.*)$", text, re.M).group(1))
def kept_sms(t):
    t = re.sub(r"^beside_ms = .*$", re.search(r"^alone_ms = (.*)$", t, re.M).group(0).replace(
        "alone_ms", "beside_ms"), t, flags=re.M)
    return re.sub(r"^update_share_of_dgemm = .*$",
                  f"update_share_of_dgemm = {share * update_sms / 132:.4f}", t, flags=re.M)
print(f"# SMs kept for FACT (assumed): update_share_of_dgemm {share} x {update_sms} / 132, "
      "beside_ms = alone_ms")
for name, t in (("update-at-dgemm", full), ("fact-unslowed", quiet), ("both", both),
                ("two-level-search", pick), ("two-level-search-update-at-dgemm", pick_full),
                ("update-sms", kept_sms(text)), ("two-level-search-update-sms", kept_sms(pick))):
    open(f"{work}/{name}.toml", "w").write(t)
PY
echo "# what-if, N = 123904, FACT on the device (the probe: 61431 Gflop/s at NB 1024)" >> "$sum"
for what in update-at-dgemm fact-unslowed both two-level-search two-level-search-update-at-dgemm \
  update-sms two-level-search-update-sms; do
  got=$(simulate "$work/$what.toml" device on 123904)
  awk -v g="$got" 'BEGIN { printf "  %.1f%% of the probe\n", 100 * g / 61431 }' >> "$sum"
done
# hplx lu --update-sms N --update-sms-below ROWS: SMs kept for FACT only in
# the iterations with fewer than ROWS trailing rows (the spec's
# device.multiprocessors; FACT beside such an update at its alone time).
echo "# --update-sms N --update-sms-below ROWS at N = 123904, FACT on the device" >> "$sum"
for table in "$SPEC" "$work/two-level-search.toml"; do
  for sms in 116 124 128; do
    for below in 60000 80000 100000; do
      got=$(simulate "$table" device on 123904 --update-sms "$sms" --update-sms-below "$below")
      awk -v g="$got" 'BEGIN { printf "  %.1f%% of the probe\n", 100 * g / 61431 }' >> "$sum"
    done
  done
done
cat "$sum"
