#!/usr/bin/env bash
# Runs a command and checks what a user would see:
#   expect_run.sh RC REGEX [options] -- COMMAND...
# RC      the exit status the command must return
# REGEX   an extended regex that its stdout+stderr must match
# options:
#   --edit LINE=TEXT    make a copy of examples/HPL.dat with line LINE replaced
#                       by TEXT (repeatable); @DAT@ in COMMAND names the copy
#   --truncate N        keep only the first N lines of that copy
#   --absent FILE       FILE (relative to the scratch dir) must not exist after
#   --present FILE=RE   FILE must exist and match RE
#   --not REGEX         the output must NOT match REGEX
# The command runs in a fresh scratch directory; @SRC@ is the source tree.
set -u
rc_want=$1 regex=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/examples/HPL.dat" "$work/input.dat"
absent=() present=() nots=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --edit) line=${2%%=*} text=${2#*=}
            awk -v n="$line" -v t="$text" 'NR==n{print t; next}{print}' "$work/input.dat" >"$work/tmp" &&
              mv "$work/tmp" "$work/input.dat"; shift 2 ;;
    --truncate) head -n "$2" "$work/input.dat" >"$work/tmp" && mv "$work/tmp" "$work/input.dat"; shift 2 ;;
    --absent) absent+=("$2"); shift 2 ;;
    --present) present+=("$2"); shift 2 ;;
    --not) nots+=("$2"); shift 2 ;;
    *) echo "expect_run.sh: unknown option $1" >&2; exit 99 ;;
  esac
done
shift
args=()
for a in "$@"; do a=${a//@DAT@/$work/input.dat}; args+=("${a//@SRC@/$src}"); done
cd "$work"
out=$("${args[@]}" 2>&1)
rc=$?
fail=0
echo "$out" | tail -n 40
if [ "$rc" != "$rc_want" ]; then echo "FAIL: exit status $rc, expected $rc_want"; fail=1; fi
if ! grep -Ezq -- "$regex" <<<"$out"; then echo "FAIL: output does not match: $regex"; fail=1; fi
for r in "${nots[@]+"${nots[@]}"}"; do
  if grep -Ezq -- "$r" <<<"$out"; then echo "FAIL: output matches forbidden: $r"; fail=1; fi
done
for f in "${absent[@]+"${absent[@]}"}"; do
  if [ -e "$f" ]; then echo "FAIL: $f was left behind"; fail=1; fi
done
for p in "${present[@]+"${present[@]}"}"; do
  f=${p%%=*} r=${p#*=}
  if ! grep -Ezq -- "$r" "$f" 2>/dev/null; then echo "FAIL: $f missing or does not match $r"; fail=1; fi
done
exit $fail
