#!/usr/bin/env bash
# Every checkpoint --resume cannot use is named in one line with the
# reason, before the matrix is allocated (exit status 2), and a
# half-written newest manifest is passed over for the one before, said so.
# A checkpoint is made by a run of 2 ranks (grid 1x2) killed with SIGKILL
# after its first manifest; each case resumes from a damaged copy of it:
#   bad_checkpoints.sh HPLX [MPIRUN]
set -u
[[ $# -ge 1 ]] || { echo "usage: bad_checkpoints.sh HPLX [MPIRUN]" >&2; exit 2; }
hplx=$(realpath "$1")
mpirun=${2:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
work=$(mktemp -d)
trap 'cd / && rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
. "$here/first_manifest.sh"
args=(lu --n 4000 --nb 64 --grid 1x2 --threads 1)
mpi=("$mpirun" -n 2 --oversubscribe --bind-to none)

# checkpoint_and_kill DIR ARGS...: hplx ARGS on 2 ranks with --checkpoint
# DIR until its first manifest is on the disk, then every rank killed.
checkpoint_and_kill() {
  local dir=$1 job
  shift
  setsid "${mpi[@]}" "$hplx" "$@" --checkpoint "$work/$dir" --checkpoint-every 0.2 \
    >"$dir-made.out" 2>&1 &
  job=$!
  wait_for_manifest "$dir" "$job" "$dir-made.out" "$dir"
  pkill -KILL -f "$hplx $* --checkpoint $work/$dir"
  wait "$job"
}

# The checkpoint: the first manifest, then every rank killed.
checkpoint_and_kill ck "${args[@]}"
manifest=$(ls ck/checkpoint-*.json | head -1)
[[ -n $manifest ]] || fail "no manifest made"
echo "made: $manifest"

# case NAME RC REGEX [--how SHELL-CODE] -- ARGS...: resume from a copy of
# the checkpoint (SHELL-CODE damages it, in its folder); the output has
# exactly one error line and it matches REGEX.
case_() {
  local name=$1 rc_want=$2 regex=$3 how=""
  shift 3
  [[ $1 == --how ]] && { how=$2; shift 2; }
  shift  # --
  rm -rf "c-$name" && cp -r ck "c-$name"
  (cd "c-$name" && eval "$how") || fail "$name: could not damage the copy"
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  last_out=$out
  local errors
  errors=$(grep -c "error" <<<"$out")
  if [[ $rc != "$rc_want" ]] || ! grep -Eq -- "$regex" <<<"$out" ||
    { [[ $rc_want == 2 ]] && [[ $errors != 1 ]]; }; then
    echo "$out" | tail -20
    fail "$name: exit status $rc (expected $rc_want), $errors error lines, or no line matching: $regex"
  fi
  echo "ok: $name: $(grep -E -- "$regex" <<<"$out" | head -1)"
}
resume() { echo "${mpi[@]}" "$hplx" "${args[@]}" --resume "$work/c-$1"; }

case_ no_folder 2 "--resume $work/nowhere: no such folder" -- \
  "${mpi[@]}" "$hplx" "${args[@]}" --resume "$work/nowhere"
case_ no_manifest 2 "no checkpoint in it \(no checkpoint-\*\.json\)" --how 'rm checkpoint-*.json' -- \
  $(resume no_manifest)
case_ half_written 0 "checkpoint-0001-000000099999\.json: cannot be read \(half-written\?\).*the checkpoint before it is used" \
  --how 'f=$(ls checkpoint-*.json); head -c 200 "$f" >checkpoint-0001-000000099999.json' -- \
  $(resume half_written)
grep -q "PASSED" <<<"$last_out" || fail "half_written: the run from the checkpoint before did not pass"
case_ checksum 2 "rank-1/1-trailing-[0-9]+\.bin: its checksum 0x[0-9a-f]{16} does not match the manifest's 0x[0-9a-f]{16}; the checkpoint .* cannot be used" \
  --how 'f=$(ls rank-1/1-trailing-*.bin); printf "\x55" | dd of="$f" bs=1 seek=4096 conv=notrunc status=none' -- \
  $(resume checksum)
case_ cut_short 2 "rank-0/1-trailing-[0-9]+\.bin: it has [0-9]+ bytes, the manifest says [0-9]+ \(cut short\?\)" \
  --how 'f=$(ls rank-0/1-trailing-*.bin); truncate -s -8 "$f"' -- $(resume cut_short)
case_ missing_file 2 "rank-0/1-state-[0-9]+\.bin: cannot open it: No such file" \
  --how 'rm rank-0/1-state-*.bin' -- $(resume missing_file)
case_ other_n 2 "written by a run whose test 1 has n 4000 against 4096" -- \
  "${mpi[@]}" "$hplx" lu --n 4096 --nb 64 --grid 1x2 --threads 1 --resume "$work/c-other_n"
case_ other_nb 2 "test 1 has nb 64 against 96" -- \
  "${mpi[@]}" "$hplx" lu --n 4000 --nb 96 --grid 1x2 --threads 1 --resume "$work/c-other_nb"
case_ other_grid 2 "test 1 has p 1 against 2" -- \
  "${mpi[@]}" "$hplx" lu --n 4000 --nb 64 --grid 2x1 --threads 1 --resume "$work/c-other_grid"
case_ other_option 2 "test 1 has depth 1 against 0" -- \
  $(resume other_option) --depth 0
case_ other_ranks 2 "written by a run of 2 ranks, this run has 3" -- \
  "$mpirun" -n 3 --oversubscribe --bind-to none "$hplx" "${args[@]}" --resume "$work/c-other_ranks"
case_ other_backend 2 "written by a run on the host backend, this run is on emulated" -- \
  $(resume other_backend) --backend emulated
cp "$hplx" other-hplx && printf 'x' >>other-hplx
case_ other_build 2 "written by another build of hplx \(version [^,]+, program checksum 0x[0-9a-f]{16}; this one: [^,]+, 0x[0-9a-f]{16}\)" -- \
  "${mpi[@]}" "$work/other-hplx" "${args[@]}" --resume "$work/c-other_build"

# hplx hpl-mxp with a bad pivot before its checkpoint (a zero diagonal: the
# first pivot is 0): the resumed run still says so, and fails (exit 1).
# (Its inf and NaN reach the later pivots, which say so too; the state also
# carries the flag, lu_nopiv.cpp.)
mxp=(hpl-mxp --n 6000 --nb 64 --grid 1x2 --threads 1 --diagonal-scale 0 --max-iterations 2)
checkpoint_and_kill mxp "${mxp[@]}"
case_ mxp_bad_pivot_resumed 1 "a pivot (of the LU )?was zero or not finite" \
  --how 'rm -rf ./* && cp -r ../mxp/. .' -- \
  "${mpi[@]}" "$hplx" "${mxp[@]}" --resume "$work/c-mxp_bad_pivot_resumed"
grep -q "resumed run" <<<"$last_out" || { echo "$last_out" | tail; fail "mxp_bad_pivot_resumed: not a resumed run"; }
echo PASS
