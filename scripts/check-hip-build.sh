#!/usr/bin/env bash
# Does the HIP backend (AMD GPUs) build? No AMD GPU is needed, nor lent to
# this project: this compiles and links it, as CI does on every change.
#
# In a Debian 13 (trixie) root, made by debootstrap and kept as a cache
# between runs, with Debian's HIP 5.7 and rocBLAS 5.5 (hipcc,
# libamdhip64-dev, librocblas-dev) and the build's own packages: configures
# this checkout with -DHPLX_HIP=on -DGPU_TARGETS=gfx90a (MI250X), builds
# every program the CUDA build has (hplx, the probes, the test programs),
# checks that hplx links the HIP runtime and rocBLAS, that `hplx --version`
# lists the backend and says it has not run on an AMD GPU, that `--backend
# hip` without an AMD GPU is one line and exit 2, and runs the device
# contract and backend tests of this build (on its host and emulated
# backends; hip reports no GPU).
#
#   sudo scripts/check-hip-build.sh            # prepare (or reuse) the root, then build
#   sudo scripts/check-hip-build.sh prepare    # only make the root (CI starts it early)
#   sudo scripts/check-hip-build.sh build      # only build (the root must be ready)
#
# Environment: HIP_ROOT (the cached root; default /var/tmp/hplx-hip-root),
# GPU_TARGETS (default gfx90a), HIP_JOBS (make -j; default nproc),
# HIP_BUILD_TARGETS (the CMake targets to build; default all, every program;
# CI builds only those with HIP code in them or that the checks run: hplx,
# the probes and the device tests, named in .ci/run),
# HIP_BUILD_TYPE (Check: -O0, the default; Release),
# HIP_FRESH=1 (make the root again). A cold root took 11-12 minutes here
# (debootstrap, then about 1.1 GB of packages); a cached one is reused at
# once (docs/TESTING.md has the times).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
root=${HIP_ROOT:-/var/tmp/hplx-hip-root}
targets=${GPU_TARGETS:-gfx90a}
jobs=${HIP_JOBS:-$(nproc)}
# Check (the default): -O0, a compile-and-link check at about half of
# Release's build time (the programs here run only small tests); Release:
# the build a user makes.
build_type=${HIP_BUILD_TYPE:-Check}
build_targets=${HIP_BUILD_TARGETS:-all}
[[ $build_targets =~ ^[A-Za-z0-9_\ ]+$ ]] ||
  { echo "check-hip-build: FAIL: HIP_BUILD_TARGETS='$build_targets': CMake target names separated by spaces" >&2; exit 1; }
what=${1:-all}
suite=trixie
# Debian 13's HIP and rocBLAS, and what the build needs besides
# (scripts/install-deps.sh's run list and GoogleTest, by Debian name).
packages=(hipcc libamdhip64-dev librocblas-dev
  build-essential cmake pkg-config make git libopenmpi-dev openmpi-bin libopenblas-openmp-dev
  libfmt-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libxxhash-dev libgtest-dev
  python3)
stamp=$root/.hplx-hip-root

say() { echo "check-hip-build: $*"; }
die() {
  say "FAIL: $*" >&2
  exit 1
}
case $what in all | prepare | build) ;; *) die "unknown step '$what'; allowed: prepare, build (none: both)" ;; esac
[[ $(id -u) == 0 ]] || die "needs root (debootstrap, chroot and mounts); try: sudo $0"
# Mounts in a private mount namespace: none outlives the script.
if [[ -z ${HPLX_HIP_PRIVATE_MOUNTS:-} ]]; then
  HPLX_HIP_PRIVATE_MOUNTS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$here/scripts/debian-mirror.sh"

mount_root() {
  mount -t proc proc "$root/proc"
  mount -t sysfs sys "$root/sys"  # hwloc (Open MPI) reads the CPU topology there
  mount --bind /dev "$root/dev"
  mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
  mkdir -p "$root/mnt/hplx-src"
  mount --bind "$here" "$root/mnt/hplx-src"
  mount -o remount,bind,ro "$root/mnt/hplx-src"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}
inside() {
  chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -euo pipefail -c "$1"
}

prepare() {
  local t=$SECONDS want
  want="$suite ${packages[*]}"
  if [[ ${HIP_FRESH:-0} != 1 && -f $stamp && $(cat "$stamp") == "$want" ]]; then
    say "the cached root $root has Debian $suite's HIP and rocBLAS: reused"
    return
  fi
  command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
  rm -rf --one-file-system "$root"
  mkdir -p "$root"
  chmod 755 "$root"
  local mirror
  mirror=$(debian_mirror || true)
  say "making a Debian $suite root in $root${mirror:+ from $mirror}"
  debootstrap --variant=minbase "$suite" "$root" ${mirror:+"$mirror"} >"$root.debootstrap.log" 2>&1 ||
    {
      tail -n 20 "$root.debootstrap.log" >&2
      die "debootstrap failed"
    }
  rm -f "$root.debootstrap.log"
  say "root made in $((SECONDS - t)) s"
  mount_root
  inside "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${packages[*]} >/root/apt.log 2>&1 ||
    { tail -n 30 /root/apt.log; exit 1; }
    apt-get clean"
  umount -l "$root/mnt/hplx-src" "$root/dev/shm" "$root/dev" "$root/sys" "$root/proc"
  echo "$want" >"$stamp"
  say "root ready with HIP and rocBLAS in $((SECONDS - t)) s"
}

build() {
  local t=$SECONDS
  [[ -f $stamp ]] || die "no prepared root at $root: run '$0 prepare' first"
  mount_root
  say "configure and build with -DHPLX_HIP=on -DGPU_TARGETS=$targets, $build_type (make -j$jobs), targets: $build_targets"
  inside "rm -rf /root/hipbuild && cd /root &&
    cmake -S /mnt/hplx-src -B hipbuild -DHPLX_HIP=on -DGPU_TARGETS='$targets' -DHPLX_BUILD_TESTS=on \
      -DHPLX_SIM=off -DCMAKE_BUILD_TYPE=$build_type -DCMAKE_CXX_FLAGS_CHECK='-O0' -DCMAKE_HIP_FLAGS_CHECK='-O0' \
      >/root/configure.log 2>&1 || { tail -n 30 /root/configure.log; exit 1; }
    grep 'hplx: ' /root/configure.log
    cmake --build hipbuild -j$jobs --target $build_targets >/root/build.log 2>&1 || { grep -E 'error|Error' /root/build.log | head -n 40; exit 1; }"
  say "built in $((SECONDS - t)) s"
  inside "bash /mnt/hplx-src/tests/gpu/hip_build_checks.sh /root/hipbuild"
  local what_linked="every program links"
  [[ $build_targets == all ]] || what_linked="$build_targets link"
  say "PASSED: the HIP backend builds for $targets on Debian $suite, $what_linked, $((SECONDS - t)) s (build and checks)"
}

case $what in
  prepare) prepare ;;
  build) build ;;
  all)
    prepare
    build
    ;;
esac
