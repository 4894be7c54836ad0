#!/usr/bin/env bash
# Proves the device check before a GPU is lent (CI runs it): bench/gpu/
# check.sh is the one call a lent GPU gets, so a broken script wastes the
# window. Three checks:
#   1. its plan for the GPU: the steps' timeouts and the archive's fit its
#      budget, and the budget fits one device call (540 s of a 570 s call);
#   2. a dry run on the emulated device (small sizes, the build in
#      BUILD_DIR) passes every part, writes every key of
#      bench/gpu/summary-keys.txt and an archive holding the records;
#   3. a second dry run with one part's correctness failing (PLANT, default
#      mxp: its first command replaced by /bin/false) skips that part's
#      timed steps and nothing else: their keys are absent, every other key
#      is written and every exploration runs.
#
#   tests/gpu/check_dry_run.sh [WORKDIR]     # BUILD_DIR=build by default
set -euo pipefail
cd "$(dirname "$0")/../.."
WORKDIR=${1:-build/gpu-check-dry-run}
PLANT=${PLANT:-mxp}
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# 1. The plan.
PLAN=1 bench/gpu/check.sh >"$WORKDIR/plan.txt"
python3 - "$WORKDIR/plan.txt" <<'PY' || fail "the plan does not fit the window"
import sys
lines = open(sys.argv[1]).read().splitlines()
budget = int(lines[0].split()[1])
pack = int(lines[0].split(" and ")[1].split()[0])
steps = [l.split() for l in lines if l.startswith("step ")]
explore = [l.split() for l in lines if l.startswith("explore ")]
total = sum(int(s[2]) for s in steps) + pack
assert budget <= 540, f"budget {budget} s: a device call is at most 570 s"
assert total <= budget, f"steps' timeouts and the archive: {total} s, over the budget {budget}"
assert all(int(e[2]) + pack <= budget for e in explore), "an exploration longer than the budget"
names = [s[1] for s in steps]
assert names == ["environment", "correctness", "probes", "lu", "hpl-mxp", "mxp"], names
print(f"plan: {len(steps)} steps, {total} s of timeouts with the archive, within {budget} s; "
      f"{len(explore)} explorations in the time left")
PY

keys_of() {  # the contract keys of summary-keys.txt, "step key" a line
  grep -vE '^(#|$)' bench/gpu/summary-keys.txt
}
parts_of() {  # the parts of a parts file
  grep -vE '^(#|$)' "$1" | awk '{print $1}' | sort -u
}

# 2. The dry run.
# The two dry runs at once (each keeps about one CPU busy): the full one,
# and the one with PLANT's command replaced by /bin/false (checked below).
awk -v p="$PLANT" '!done && $1 == p { $0 = p " 1 /bin/false"; done = 1 } { print }' bench/gpu/parts.txt \
  >"$WORKDIR/parts-planted.txt"
DRY_RUN=1 PARTS="$WORKDIR/parts-planted.txt" OUT="$WORKDIR/planted" bench/gpu/check.sh \
  >"$WORKDIR/planted.log" 2>&1 &
planted=$!
rc=0
DRY_RUN=1 OUT="$WORKDIR/full" bench/gpu/check.sh >"$WORKDIR/full.log" 2>&1 || rc=$?
planted_rc=0
wait "$planted" || planted_rc=$?
((rc == 0)) || { tail -30 "$WORKDIR/full.log"; fail "the dry run exited with $rc"; }
S=$WORKDIR/full/summary.json
for p in $(parts_of bench/gpu/parts.txt); do
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get("ok_" + sys.argv[2]) is True else 1)' \
    "$S" "$p" || fail "dry run: ok_$p is not true"
done
while read -r step key; do
  python3 -c 'import json,sys; sys.exit(0 if sys.argv[2] in json.load(open(sys.argv[1])) else 1)' "$S" "$key" ||
    fail "dry run: summary.json lacks $key (step $step)"
done < <(keys_of)
# (grep -q would close the pipe on tar: pipefail then reports its SIGPIPE)
tar -tJf "$WORKDIR/full/files.tar.xz" >"$WORKDIR/full-archive.txt"
grep -q 'files/lu-1.json' "$WORKDIR/full-archive.txt" || fail "the archive lacks files/lu-1.json"
[[ $(find "$WORKDIR/full" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ') == 'files.tar.xz steps.txt summary.json ' ]] ||
  fail "OUT holds more than summary.json, steps.txt and files.tar.xz: $(ls "$WORKDIR/full")"
grep -q '^check: explore .*: ok in' "$WORKDIR/full/steps.txt" || fail "dry run: no exploration ran"
echo "dry run: every part ok, every key written, $(grep -c '^check: explore .*: ok' "$WORKDIR/full/steps.txt") explorations; $(tail -1 "$WORKDIR/full/steps.txt" | sed 's/^check: //')"

# 3. One part planted to fail.
rc=$planted_rc
((rc == 1)) || { tail -30 "$WORKDIR/planted.log"; fail "planted failure: exit status $rc, not 1"; }
S=$WORKDIR/planted/summary.json
T=$WORKDIR/planted/steps.txt
for p in $(parts_of bench/gpu/parts.txt); do
  want=true
  [[ $p == "$PLANT" ]] && want=false
  python3 -c 'import json,sys; sys.exit(0 if json.dumps(json.load(open(sys.argv[1])).get("ok_" + sys.argv[2])) == sys.argv[3] else 1)' \
    "$S" "$p" "$want" || fail "planted $PLANT: ok_$p is not $want"
done
# The steps and explorations that need the planted part, from the plan.
needing=$(awk -v p="$PLANT" '($1 == "step" && ("," $4 ",") ~ ("," p ",")) || ($1 == "explore" && ("," $4 ",") ~ ("," p ",")) {print $2}' \
  "$WORKDIR/plan.txt")
[[ -n $needing ]] || fail "planted $PLANT: no step needs it, so the check proves nothing"
for name in $needing; do
  grep -qE "^check: (explore )?$name: skipped \(ok_$PLANT false\)" "$T" || fail "planted $PLANT: $name was not skipped"
done
skipped=$(grep -cE '^check: .*: skipped' "$T" || true)
((skipped == $(wc -w <<<"$needing"))) || fail "planted $PLANT: $skipped steps skipped, not only those needing it: $(grep skipped "$T")"
while read -r step key; do
  has=$(python3 -c 'import json,sys; print(sys.argv[2] in json.load(open(sys.argv[1])))' "$S" "$key")
  if [[ " $needing " == *" $step "* ]]; then
    [[ $has == False ]] || fail "planted $PLANT: $key written by the skipped step $step"
  else
    [[ $has == True ]] || fail "planted $PLANT: $key (step $step) missing, though $step does not need $PLANT"
  fi
done < <(keys_of)
echo "planted failure in $PLANT: ok_$PLANT false; skipped only $(echo $needing | tr ' ' ','); every other key written"
echo "PASS: the device check fits its window, writes every key, and contains a failed part"
