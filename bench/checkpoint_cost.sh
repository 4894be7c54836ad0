#!/usr/bin/env bash
# What one checkpoint of hplx lu costs at full memory, against the disk's
# own write rate measured in the same run:
#   1. dd writes as many bytes as the matrix into the checkpoint's folder
#      and syncs them (conv=fsync): the disk's rate, before the run and
#      again after it (the mean is the rate held against);
#   2. hplx lu --n N on 2 ranks (grid 1x2) with --checkpoint-every EVERY;
#      once the first manifest is on the disk the run is stopped (SIGKILL:
#      the solve's rest is not what is measured). The manifest gives what
#      the run waited (checkpoint_seconds) and the files' bytes (the whole
#      matrix: the first checkpoint writes the finished columns too);
#   3. the overhead at a 30-minute interval: that wait over 1800 s.
# Results: OUT/checkpoint-cost.json and the lines printed. Environment:
# EVERY (--checkpoint-every, default 20 s), WATCHDOG (below).
#   bench/checkpoint_cost.sh HPLX [N] [OUT] [DIR]
# N: default the largest multiple of 1000 whose matrix takes 70% of the
# memory available; DIR: where the checkpoint goes (default a folder in /var/tmp).
set -eu
hplx=$(realpath "$1")
avail_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
n=${2:-$(python3 -c "import math; print(int(math.sqrt(0.70 * $avail_kb * 1024 / 8) / 1000) * 1000)")}
out=${3:-.}
dir=${4:-/var/tmp/hplx-checkpoint-cost.$$}
every=${EVERY:-20}
# WATCHDOG: --watchdog's seconds (default 0: off); "default": hplx's own
# (a checkpoint's write at full memory must not look like a hung rank).
watchdog=(--watchdog "${WATCHDOG:-0}")
[[ ${WATCHDOG:-0} == default ]] && watchdog=()
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
mkdir -p "$out" "$dir"
trap 'rm -rf "$dir"' EXIT
bytes=$((n * (n + 1) * 8))
mib=$((bytes / 1048576))

# 1. the disk (again after the checkpoint: a VM's disk rate varies)
disk() {  # disk LABEL: dd's GB/s for as many bytes as the matrix
  local start s gbs
  start=$(date +%s.%N)
  dd if=/dev/zero of="$dir/dd.bin" bs=16M count=$((mib / 16)) conv=fsync status=none
  s=$(python3 -c "import time; print(time.time() - $start)")
  rm -f "$dir/dd.bin"
  gbs=$(python3 -c "print($mib * 1048576 / $s / 1e9)")
  echo "dd $1: $mib MiB written and synced in $s s: $gbs GB/s" >&2
  echo "$gbs"
}
dd_before=$(disk before)

# 2. the checkpoint
setsid mpirun -n 2 --oversubscribe --bind-to none "$hplx" lu --n "$n" --nb 256 --grid 1x2 \
  --threads 1 "${watchdog[@]}" --checkpoint "$dir/ck" --checkpoint-every "$every" >"$out/checkpoint-cost-run.out" 2>&1 &
job=$!
for _ in $(seq 1 3600); do
  compgen -G "$dir/ck/checkpoint-*.json" >/dev/null && break
  kill -0 "$job" 2>/dev/null || { cat "$out/checkpoint-cost-run.out"; echo "the run ended first" >&2; exit 1; }
  sleep 0.5
done
manifest=$(ls "$dir"/ck/checkpoint-*.json | head -1)
cp "$manifest" "$out/checkpoint-cost-manifest.json"
pkill -KILL -f "$hplx lu --n $n " || true
wait "$job" || true
dd_after=$(disk after)
dd_gbs=$(python3 -c "print(($dd_before + $dd_after) / 2)")

# 3. the figures
python3 - "$out/checkpoint-cost-manifest.json" "$n" "$dd_gbs" "$out/checkpoint-cost.json" \
  "$dd_before" "$dd_after" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
n, dd_gbs = int(sys.argv[2]), float(sys.argv[3])
dd_before, dd_after = float(sys.argv[5]), float(sys.argv[6])
written = sum(f["bytes"] for rank in m["files"] for f in rank)
wait = m["checkpoint_seconds"]
r = {"n": n, "matrix_bytes": n * (n + 1) * 8, "checkpoint_bytes": written,
     "checkpoint_column": m["column"], "checkpoint_wait_s": wait,
     "checkpoint_gbs": written / wait / 1e9, "dd_gbs": dd_gbs,
     "dd_gbs_before": dd_before, "dd_gbs_after": dd_after,
     "checkpoint_over_dd": written / wait / 1e9 / dd_gbs,
     "overhead_at_30_min": wait / 1800}
json.dump(r, open(sys.argv[4], "w"), indent=1)
print(f"checkpoint: {written / 1e9:.2f} GB at column {m['column']} of {n} in {wait:.2f} s: "
      f"{r['checkpoint_gbs']:.2f} GB/s, {100 * r['checkpoint_over_dd']:.0f}% of dd's {dd_gbs:.2f} GB/s "
      f"(the mean of {dd_before:.2f} before and {dd_after:.2f} after); "
      f"overhead at a 30-minute interval {100 * r['overhead_at_30_min']:.2f}%")
PY
