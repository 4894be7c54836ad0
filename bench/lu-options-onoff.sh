#!/usr/bin/env bash
# What each optimization buys on this machine: hplx lu with one option off
# and on, everything else equal, runs alternating, REPS rounds, with rank 0's
# per-phase times from --json. Prints one line per run, then a table of
# medians (Gflops and phase seconds) per experiment and setting.
#
#   bench/lu-options-onoff.sh                  # N = 10000, NB = 128, 3 rounds
#   N=5000 REPS=5 bench/lu-options-onoff.sh
#   ONLY="split bcast-pipeline" bench/lu-options-onoff.sh
#
# Experiments (name: grid and fixed options | off | on). Ranks x threads fill
# the machine's CPUs (--bind-to none; 1x1 runs all threads in one rank).
# plain-launch compares `mpirun -np 1` (mpirun's default binding) with
# --bind-to none.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
N=${N:-10000}
NB=${NB:-128}
REPS=${REPS:-3}
ONLY=${ONLY:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[[ -x $HPLX ]] || { echo "lu-options-onoff: $HPLX not built (make build)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

EXPERIMENTS=(
  "look-ahead|1x2|--depth 0|--depth 1"
  "fact-overlap|1x1 --depth 1|--fact-overlap off|--fact-overlap on"
  "threaded-panel|1x1 --depth 0|--fact-threads 1|--fact-threads 2"
  "split|2x1 --depth 1|--split 0|--split 0.5"
  "swap-pipeline|2x1 --depth 1|--swap-pipeline off|--swap-pipeline on"
  "bcast-pipeline|1x2 --depth 1|--bcast-pipeline off|--bcast-pipeline on"
  "modified-long-swap|2x1 --depth 1 --swap long|--long-swap netlib|--long-swap modified"
  "core-sharing|1x1 --depth 0|--core-sharing off|--core-sharing on"
)

run() {  # name setting grid options...
  local name=$1 setting=$2 grid=$3
  shift 3
  local np=$((${grid%x*} * ${grid#*x}))
  local json="$OUT/$name-$setting-$rep.json"
  local line
  line=$(mpirun -np "$np" --bind-to none "$HPLX" lu --n "$N" --nb "$NB" --grid "$grid" "$@" \
    --json "$json" --quiet | grep '^W')
  echo "$rep $name $setting | $line | $(python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['tests'][0]['phases_s']
print(' '.join('%s=%.3f' % (k, v) for k, v in p.items()))" "$json")"
}

for ((rep = 1; rep <= REPS; ++rep)); do
  for e in "${EXPERIMENTS[@]}"; do
    IFS='|' read -r name fixed off on <<<"$e"
    [[ -z $ONLY || " $ONLY " == *" $name "* ]] || continue
    read -r grid rest <<<"$fixed"
    # shellcheck disable=SC2086
    run "$name" off "$grid" $rest $off
    # shellcheck disable=SC2086
    run "$name" on "$grid" $rest $on
  done
  # The launch a user types: `mpirun -np 1 hplx lu` with mpirun's default
  # binding (one core), which hplx undoes, against --bind-to none.
  if [[ -z $ONLY || " $ONLY " == *" plain-launch "* ]]; then
    run plain-launch bindnone 1x1
    json="$OUT/plain-launch-default-$rep.json"
    line=$(mpirun -np 1 "$HPLX" lu --n "$N" --nb "$NB" --json "$json" --quiet | grep '^W')
    echo "$rep plain-launch default | $line"
  fi
done

echo
echo "medians over $REPS rounds, N=$N NB=$NB (seconds are rank 0's; phases overlap with look-ahead)"
python3 - "$OUT" <<'EOF'
import glob, json, os, statistics, sys
rows = {}
for f in glob.glob(os.path.join(sys.argv[1], '*.json')):
    name, setting, _ = os.path.basename(f)[:-5].rsplit('-', 2)
    t = json.load(open(f))['tests'][0]
    rows.setdefault((name, setting), []).append(t)
keys = ['fact', 'bcast', 'swap', 'swap_copy', 'update', 'wait', 'bcast_hidden', 'swap_hidden']
print('%-20s %-4s %8s %7s ' % ('experiment', 'set', 'Gflops', 'time') + ' '.join('%12s' % k for k in keys))
for (name, setting) in sorted(rows, key=lambda k: (k[0], k[1] != 'off')):
    ts = rows[(name, setting)]
    med = lambda xs: statistics.median(xs)
    print('%-20s %-4s %8.2f %7.2f ' % (name, setting, med([t['gflops'] for t in ts]),
                                      med([t['time_s'] for t in ts])) +
          ' '.join('%12.3f' % med([t['phases_s'][k] for t in ts]) for k in keys))
EOF
