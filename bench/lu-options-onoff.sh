#!/usr/bin/env bash
# What each schedule option buys: hplx lu with an option on and off, runs
# alternating, REPS rounds, with the per-phase times of rank 0 from --json.
#
#   bench/lu-options-onoff.sh            # N = 10000, NB = 128, 3 rounds
#   N=5000 REPS=5 bench/lu-options-onoff.sh
#
# Configurations (all on every CPU of the machine, --bind-to none):
#   1x1 (1 rank x all threads): DEPTH 0; DEPTH 1 with --fact-overlap off; on
#   1x2 (2 ranks x half the threads): DEPTH 0; DEPTH 1
#   and `mpirun -np 1 hplx lu` with mpirun's default binding (the launch a
#   user types), to show hplx undoes the one-core binding.
# One line per run: round, configuration, netlib's result line, phase seconds.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HPLX=${HPLX:-$ROOT/build/bin/hplx}
N=${N:-10000}
NB=${NB:-128}
REPS=${REPS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[[ -x $HPLX ]] || { echo "lu-options-onoff: $HPLX not built (make build)" >&2; exit 2; }
JSON=$(mktemp)
trap 'rm -f "$JSON"' EXIT

phases() {
  python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))['tests'][0]['phases_s']
print(' '.join('%s=%.3f' % (k, v) for k, v in p.items()))" "$JSON"
}

for ((rep = 1; rep <= REPS; ++rep)); do
  for cfg in "1x1 0 on" "1x1 1 off" "1x1 1 on" "1x2 0 on" "1x2 1 on"; do
    read -r grid depth overlap <<<"$cfg"
    np=$((${grid%x*} * ${grid#*x}))
    line=$(mpirun -np "$np" --bind-to none "$HPLX" lu --n "$N" --nb "$NB" --grid "$grid" \
      --depth "$depth" --fact-overlap "$overlap" --json "$JSON" --quiet | grep '^W')
    echo "$rep grid=$grid depth=$depth overlap=$overlap | $line | $(phases)"
  done
  line=$(mpirun -np 1 "$HPLX" lu --n "$N" --nb "$NB" --quiet | grep '^W')
  echo "$rep plain-mpirun-np1 | $line"
done
