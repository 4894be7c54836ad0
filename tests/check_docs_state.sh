#!/usr/bin/env bash
# The docs describe the current state (docs/DESIGN "Honest reporting"):
# dated narratives live in docs/archive. Fails, naming the file and line,
# when README.md or a page of docs/ outside docs/archive uses the words of
# a work diary: "session(s)", a heading or phrase naming a numbered run
# of a campaign ("Run 4", "run 5's verdict"), or a heading that carries a
# date ("## The third run on a GPU (2026-12-05)": a run log; the live page
# says when in its text).
#   check_docs_state.sh SOURCE_DIR
#   check_docs_state.sh --self-test SOURCE_DIR   (plants each kind in a copy)
set -u
diary='\b[Ss]essions?\b|\bRun [0-9]+[a-z]?\b|\brun [0-9]+[a-z]?'"'"'s\b|^#+ .*\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b'
check() {
  local root=$1 bad=0
  while IFS= read -r hit; do
    echo "${hit#"$root"/}: a work diary's words; the history goes to docs/archive"
    bad=1
  done < <(find "$root/docs" -maxdepth 1 -name '*.md' -print0 | xargs -0 grep -nHE "$diary" 2>/dev/null
           grep -nHE "$diary" "$root/README.md" 2>/dev/null)
  return $bad
}
if [ "${1:-}" = --self-test ]; then
  root=${2:?usage: check_docs_state.sh --self-test SOURCE_DIR}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/docs/archive"
  check "$tmp" >/dev/null || { echo "self-test: an empty tree failed"; exit 1; }
  echo "kept in the archive: the fifth session" >"$tmp/docs/archive/old.md"
  check "$tmp" >/dev/null || { echo "self-test: the archive was checked"; exit 1; }
  for planted in "as the fourth session measured" "### Run 4: the CPU terms" \
    "after run 5's verdict" "## The third run on a GPU (H200, 2026-12-05)"; do
    echo "$planted" >"$tmp/docs/PAGE.md"
    if check "$tmp" >/dev/null; then echo "self-test: missed '$planted'"; exit 1; fi
  done
  echo "self-test: every planted kind caught"
  exit 0
fi
check "${1:?usage: check_docs_state.sh SOURCE_DIR}"
