#!/usr/bin/env bash
# Does the README's first command work on a bare Debian 12?
#
# Makes a minimal Debian 12 root (debootstrap --variant=minbase), installs
# only what the README says must be there before `make run` (make and git),
# clones this checkout's committed HEAD into it and runs, as a new user
# would:
#   short form (default):  make run      (install-deps.sh, configure, build
#                                          of hplx, its default run, PASSED)
#   FULL=1:                make run, then make test
# A package the build or the tests use that scripts/install-deps.sh forgets
# fails here, not on a user's machine: this project's own machines and CI
# come with packages a bare system lacks (pkg-config was one).
#
# Needs root (debootstrap, chroot, mounts) and Debian's debootstrap; the
# Debian mirror is the one this machine's apt uses. Everything it mounts
# and makes is removed on exit, also on failure or Ctrl-C (KEEP=1 keeps the
# root for a look; its path is printed). The chroot shares this machine's
# kernel: the tests that make network namespaces run there as root too.
#
#   sudo scripts/check-bare-system.sh            # short form (CI), ~10 min
#   sudo FULL=1 scripts/check-bare-system.sh     # and make test (docs/TESTING.md)
#
# Environment: FULL=1, KEEP=1, BARE_DIR (where to make the root; default a
# new folder under /var/tmp), BARE_SUITE (default bookworm), BARE_JOBS (make
# -j inside; default nproc).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
suite=${BARE_SUITE:-bookworm}
full=${FULL:-0}
keep=${KEEP:-0}
jobs=${BARE_JOBS:-$(nproc)}
# The README's stated prerequisites: what a user must install before the
# first command. Keep this line and the README's in step.
prerequisites=(make git)

say() { echo "check-bare-system: $*"; }
die() {
  say "FAIL: $*" >&2
  exit 1
}

[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot and mounts); try: sudo $0"
# The mounts go in a mount namespace of their own, private: on a system
# whose / is shared (systemd's default) a mount under the root's /dev would
# otherwise propagate to the host's /dev, and nothing is left behind if
# this script is killed.
if [[ -z ${HPLX_BARE_PRIVATE_MOUNTS:-} ]]; then
  HPLX_BARE_PRIVATE_MOUNTS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap (scripts/install-deps.sh installs it)"
git -C "$here" rev-parse --verify -q HEAD >/dev/null || die "$here is not a git checkout with a commit"
# The root sees the checkout alone: a worktree's .git file points outside it.
[[ -d $here/.git ]] || die "$here/.git is not a folder (a git worktree?): run the check from a clone of the repository"
[[ -z $(git -C "$here" status --porcelain --untracked-files=no) ]] ||
  say "note: uncommitted changes in $here are not checked (the clone takes HEAD $(git -C "$here" rev-parse --short HEAD))"

# The Debian mirror this machine's apt uses (deb822 .sources first, then
# one-line sources.list); debootstrap's own default when none is found.
debian_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r $f ]] || continue
    awk '/^URIs:/ {for (i = 2; i <= NF; i++) if ($i !~ /security/) {print $i; exit}}' "$f"
  done | head -n1 | grep . && return
  grep -hsE '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z]+://' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
    awk '{for (i = 2; i <= NF; i++) if ($i ~ /:\/\// && $i !~ /security/) {print $i; exit}}' | head -n1
}
mirror=$(debian_mirror || true)

root=${BARE_DIR:-$(mktemp -d /var/tmp/hplx-bare.XXXXXX)}
mkdir -p "$root"
chmod 755 "$root"  # it becomes /: mktemp's 0700 would lock out apt's _apt user
[[ -z $(ls -A "$root") ]] || die "BARE_DIR $root is not empty"
mounted=()

cleanup() {
  local rc=$? m i
  set +e
  # Processes the tests may have left in the root (none should be).
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    m=${mounted[i]}
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "could not unmount $m"
  done
  # Anything mounted below the root by the run itself (network namespaces'
  # /run/netns binds), deepest first.
  for m in $(awk -v r="$root/" 'index($2, r) == 1 {print $2}' /proc/self/mounts | sort -r); do
    umount -l "$m" 2>/dev/null
  done
  if [[ $keep == 1 ]]; then
    say "kept the root at $root (remove it with: rm -rf --one-file-system $root)"
  elif awk -v r="$root" '$2 == r || index($2, r "/") == 1 {f = 1} END {exit !f}' /proc/self/mounts; then
    say "something is still mounted under $root: not removing it"
  else
    rm -rf --one-file-system "$root"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$SECONDS
say "making a minimal Debian ($suite) in $root${mirror:+ from $mirror}"
debootstrap --variant=minbase "$suite" "$root" ${mirror:+"$mirror"} >"$root.debootstrap.log" 2>&1 ||
  {
    tail -n 20 "$root.debootstrap.log" >&2
    rm -f "$root.debootstrap.log"
    die "debootstrap failed"
  }
rm -f "$root.debootstrap.log"
say "root made in $((SECONDS - t0)) s"

bind() {  # bind SRC DEST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounted+=("$2")
  [[ ${3:-} == ro ]] && mount -o remount,bind,ro "$2"
  return 0
}
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount -t sysfs sys "$root/sys" && mounted+=("$root/sys")
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" && mounted+=("$root/dev/shm")
bind "$here" "$root/mnt/hplx-src" ro
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# The same apt sources as the host (the security suite among them), so the
# bare system gets the packages the project's machines have.
if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
  rm -f "$root/etc/apt/sources.list"
  cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
fi

# What runs inside: a login-like environment with nothing of this machine's.
inside() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -euo pipefail -c "$1"
}

step() {  # step NAME COMMAND: runs it inside, says how long it took
  local name=$1 t=$SECONDS
  say "$name"
  # In the background and waited for: a TERM then reaches the trap at once
  # (bash runs traps only between foreground commands), whose cleanup ends
  # the step's processes in the root.
  inside "$2" &
  if ! wait $!; then
    die "$name failed after $((SECONDS - t)) s"
  fi
  say "$name: ok in $((SECONDS - t)) s"
}

step "prerequisites: apt-get install ${prerequisites[*]}" \
  "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${prerequisites[*]} >/dev/null"
step "git clone" "git clone -q /mnt/hplx-src /root/hplx"
step "make run" "cd /root/hplx && make run JOBS=$jobs 2>&1 | tee /root/make-run.log | tail -n 25
  grep -q 'PASSED' /root/make-run.log || { echo 'make run: no PASSED line'; exit 1; }"
if [[ $full == 1 ]]; then
  step "make test" "cd /root/hplx && make test JOBS=$jobs 2>&1 | tee /root/make-test.log | tail -n 40"
fi
ran="make run"
[[ $full == 1 ]] && ran="make run and make test"
say "PASSED: bare Debian $suite with only ${prerequisites[*]} installed: $ran in $((SECONDS - t0)) s"
