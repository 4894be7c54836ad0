#!/usr/bin/env bash
# check.sh's clock and power sampler on an AMD GPU, in the format of its
# nvidia-smi sampler (clocks.csv): "local time, clock MHz, power W,
# temperature C" every 200 ms, from the amdgpu driver's hwmon files of the
# first GPU (freq1_input: the shader clock in Hz; power1_average or
# power1_input in microwatts; temp1_input in millidegrees). Runs until
# killed. Never run on an AMD GPU (docs/GPU.md).
#   bench/gpu/amd_sampler.sh > clocks.csv &
set -uo pipefail
hw=
for d in /sys/class/drm/card*/device/hwmon/hwmon*; do
  [[ -r $d/freq1_input ]] && hw=$d && break
done
[[ -n $hw ]] || {
  echo "amd_sampler: no amdgpu hwmon with freq1_input under /sys/class/drm" >&2
  exit 1
}
power=$hw/power1_average
[[ -r $power ]] || power=$hw/power1_input
read_or_0() { cat "$1" 2>/dev/null || echo 0; }
while :; do
  printf '%s, %d, %.1f, %d\n' "$(date '+%Y/%m/%d %H:%M:%S.%3N')" "$(($(read_or_0 "$hw/freq1_input") / 1000000))" \
    "$(awk -v u="$(read_or_0 "$power")" 'BEGIN {print u / 1e6}')" "$(($(read_or_0 "$hw/temp1_input") / 1000))"
  sleep 0.2
done
