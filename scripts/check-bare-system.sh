#!/usr/bin/env bash
# Does the README's first command work on a bare Debian 12?
#
# Makes a minimal Debian 12 root (debootstrap --variant=minbase), installs
# only what the README says must be there before `make run` (make and git),
# clones this checkout's committed HEAD into it and runs, as a new user
# would:
#   short form (default):  make run      (install-deps.sh, configure, build
#                                          of hplx, its default run, PASSED)
#   FULL=1:                those, then make test
# A package the build or the tests use that scripts/install-deps.sh forgets
# fails here, not on a user's machine: this project's own machines and CI
# come with packages a bare system lacks (pkg-config was one).
#
# Then, in the same root (a second debootstrap would cost minutes):
#   - what `make run` installed is the run list (and what it depends on),
#     none of the test list, and no service: no munged, slurmctld or slurmd
#     runs, no init script or systemd unit came; the download and installed
#     sizes are printed;
#   - an ordinary user, with apt-get and sudo unusable (stubs that fail and
#     log), is given the checkout and runs `make run` there: install-deps.sh
#     must find everything without root, apt-get never run and sudo asked
#     nothing, and the run PASS (the build is root's: building needs no
#     root, and a second build of hplx cost CI about 4 minutes);
#   - `install-deps.sh --test` installs the test list: still no munged,
#     slurmctld or slurmd, and their services disabled at boot; sizes printed.
# The root is made to start services as a booted Debian would (below), so a
# package whose postinst starts a daemon (munge's) starts it here unless
# install-deps.sh prevents it.
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

source "$here/scripts/debian-mirror.sh"
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
# A bare root has no init, and invoke-rc.d starts no service without one
# (nor without a runlevel), which would hide a package that starts its
# daemon. Here it has both, as a booted sysvinit Debian: a maintainer
# script's `invoke-rc.d munge start` runs the init script.
printf '#!/bin/sh\n# check-bare-system.sh: a booted Debian in runlevel 2\necho "N 2"\n' >"$root/sbin/runlevel"
chmod 755 "$root/sbin/runlevel"
[[ -e $root/sbin/init ]] || ln -s /bin/true "$root/sbin/init"

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

# Fails if a daemon of the test list runs in the root; names anything else
# still running there.
no_daemons() {  # no_daemons WHEN
  local p comm others=()
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] || continue
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    case $comm in
      munged | slurmctld | slurmd) die "$comm (pid ${p#/proc/}) runs in the root after $1" ;;
      *) others+=("$comm") ;;
    esac
  done
  say "no munged, slurmctld or slurmd runs after $1${others[*]:+ (still running there: ${others[*]})}"
}
# The checks that run inside the root, in a file there (quoting them for
# `inside` would hide what they do). checks.sh WHAT [ARGS]:
cat >"$root/root/checks.sh" <<'CHECKS'
#!/bin/bash
# check-bare-system.sh's checks inside the bare root.
set -euo pipefail
cd /srv/hplx
packages() { dpkg-query -W -f='${Package}\n' | sort; }
debs() { find /var/cache/apt/archives -maxdepth 1 -name '*.deb' | sort; }
case $1 in
  snapshot)  # what the root has now, for `delta` after the next install
    packages >/root/pkgs.before
    debs >/root/debs.before
    ;;
  delta)  # delta NAME [UNWANTED...]: what came since the snapshot, its sizes; none of UNWANTED
    name=$2
    shift 2
    new=$(comm -13 /root/pkgs.before <(packages))
    [[ -n $new ]] || { echo "$name: no package"; exit 0; }
    kib=$(dpkg-query -W -f='${Installed-Size}\n' $new | awk '{s += $1} END {print s + 0}')
    bytes=$(comm -13 /root/debs.before <(debs) | xargs -r stat -c %s | awk '{s += $1} END {print s + 0}')
    echo "$name: $(wc -w <<<"$new") packages, download $((bytes / 1048576)) MiB, installed $((kib / 1024)) MiB"
    # Asked for, not only depended on (cmake depends on procps): manual.
    bad=$(comm -12 <(comm -12 <(echo "$new") <(apt-mark showmanual | sort)) <(printf '%s\n' "$@" | sort -u))
    [[ -z $bad ]] || { echo "$name asked for packages of the test list: "$bad; exit 1; }
    came=$(comm -12 <(echo "$new") <(printf '%s\n' "$@" | sort -u))
    [[ -z $came ]] || echo "$name: of the test list, as dependencies: "$came
    services=$(dpkg -L $new | grep -E '^(/usr)?(/etc/init\.d/|/lib/systemd/system/[^/]*\.(service|socket|timer)$)' || true)
    # Daemons among them: what install-deps.sh's is_daemon calls one.
    daemons=$(for f in $services; do
      case $f in
        *.socket) echo "$f" ;;
        *.service) grep -qx 'Type=oneshot' "$f" || echo "$f" ;;
        */init.d/*) grep -qE '^# *Default-Start:.*[2-5]' "$f" && echo "$f" ;;
      esac
    done; true)
    echo "$name: services that came: "${services:-none}"; daemons: "${daemons:-none}
    ;;
  run-list)  # the run list is there, and nothing of the test list or a service came with it
    run=$(bash scripts/install-deps.sh --list run | sort -u)
    for p in $run; do
      dpkg-query -W -f='${Status}' "$p" | grep -q 'install ok installed' || { echo "$p is missing"; exit 1; }
    done
    echo "run list: "$run
    out=$(bash /root/checks.sh delta "make run" $(comm -23 <(bash scripts/install-deps.sh --list test | sort -u) <(echo "$run")))
    echo "$out"
    grep -q 'daemons: none' <<<"$out" || { echo "make run brought a daemon"; exit 1; }
    ;;
  as-user)  # as-user NAME: make run as an ordinary user in root's checkout; apt-get and sudo fail and log
    # (N = 4000: what differs from root's make run is install-deps.sh without
    # root, not the build, which is there, nor the minute's run)
    user=$2
    useradd -m "$user"
    for c in apt-get sudo; do
      printf '#!/bin/sh\necho "%s $*" >>/tmp/asked-root\necho "%s: not usable here" >&2\nexit 1\n' "$c" "$c" >/usr/local/bin/$c
      chmod 755 /usr/local/bin/$c
    done
    chown -R "$user:" /srv/hplx
    rc=0
    runuser -u "$user" -- env -i HOME="/home/$user" TERM=dumb LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin \
      bash -c "cd /srv/hplx && make run RUN_ARGS='--n 4000'" </dev/null >/root/make-run-user.log 2>&1 || rc=$?
    rm -f /usr/local/bin/apt-get /usr/local/bin/sudo
    chown -R root: /srv/hplx
    grep '^install-deps:' /root/make-run-user.log || true
    tail -n 3 /root/make-run-user.log
    [[ $rc == 0 ]] || { tail -n 25 /root/make-run-user.log; echo "make run as $user: exit $rc"; exit 1; }
    grep -q 'PASSED' /root/make-run-user.log || { echo 'no PASSED line'; exit 1; }
    # `sudo -n true` asks nothing: it is how install-deps.sh learns sudo is not usable.
    asked=$(grep -vx 'sudo -n true' /tmp/asked-root 2>/dev/null || true)
    [[ -z $asked ]] || { echo "asked for root: $asked"; exit 1; }
    ;;
  test-list)  # install-deps.sh --test; the services it brought do not start at boot
    bash scripts/install-deps.sh --test
    bash /root/checks.sh delta "the test list"
    for s in munge slurmd slurmctld; do
      if ls /etc/rc[2-5].d/S*"$s" /etc/systemd/system/*.wants/"$s".service 2>/dev/null | grep .; then
        echo "$s starts at boot"
        exit 1
      fi
    done
    ;;
esac
CHECKS

step "prerequisites: apt-get install ${prerequisites[*]}" \
  "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${prerequisites[*]} >/dev/null"
step "git clone" "git clone -q /mnt/hplx-src /srv/hplx"
inside "bash /root/checks.sh snapshot"
t_run=$SECONDS
step "make run" "cd /srv/hplx && make run JOBS=$jobs 2>&1 | tee /root/make-run.log | tail -n 25
  grep -q 'PASSED' /root/make-run.log || { echo 'make run: no PASSED line'; exit 1; }"
t_run=$((SECONDS - t_run))
no_daemons "make run"
step "make run installed the run list only" "bash /root/checks.sh run-list"
# An ordinary user where nothing can be installed: the build's packages are
# there, apt-get and sudo fail.
step "make run as an ordinary user, apt-get and sudo unusable" "bash /root/checks.sh as-user hplxuser"
no_daemons "make run as an ordinary user"
inside "bash /root/checks.sh snapshot"
step "install-deps.sh --test (the test list)" "bash /root/checks.sh test-list"
no_daemons "the test list's install"

if [[ $full == 1 ]]; then
  step "make test" "cd /srv/hplx && make test JOBS=$jobs 2>&1 | tee /root/make-test.log | tail -n 40"
fi
ran="make run in $t_run s, make run as an ordinary user without root, the test list's install"
[[ $full == 1 ]] && ran="$ran, make test"
say "PASSED: bare Debian $suite with only ${prerequisites[*]} installed: $ran; no munged, slurmctld or slurmd; $((SECONDS - t0)) s in all"
