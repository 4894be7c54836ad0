#!/usr/bin/env bash
# PSS of smpimain: every 20 s, then every 2 s once the log shows iteration >= 3850.
log=$1; out=$2; t0=$(date +%s)
while true; do
  p=$(pgrep -f "smpimain.*hplx-sim-rank" | head -1)
  if [ -z "$p" ]; then
    sleep 1; [ $(( $(date +%s) - t0 )) -gt 60 ] && ! pgrep -f "hplx sim" >/dev/null && break; continue
  fi
  it=$(grep -o "iteration [0-9]*" "$log" | tail -1 | awk '{print $2}')
  pss=$(awk '/^Pss:/ {print $2}' /proc/$p/smaps_rollup 2>/dev/null)
  echo "$(( $(date +%s) - t0 )) $(date +%T) iteration ${it:-0} pss_kib=${pss:-0}" >> "$out"
  if [ "${it:-0}" -ge 3200 ]; then sleep 2; else sleep 20; fi
done
