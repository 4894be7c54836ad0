# wait_for_manifest DIR JOB LOG WHAT: waits (at most 30 s) until a
# checkpoint manifest is in DIR, failing with LOG shown where the job JOB
# ends first or none comes (sourced by tests/e2e/bad_checkpoints.sh and
# tests/multihost/resume_after_kill.sh, whose `fail` it calls; not run).
# shellcheck shell=bash

wait_for_manifest() {
  local dir=$1 job=$2 log=$3 what=$4
  for _ in $(seq 1 600); do
    compgen -G "$dir/checkpoint-*.json" >/dev/null && return 0
    kill -0 "$job" 2>/dev/null || { cat "$log"; fail "$what ended before a checkpoint"; }
    sleep 0.05
  done
  fail "$what: no checkpoint in 30 s"
}
