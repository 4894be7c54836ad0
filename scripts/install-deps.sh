#!/usr/bin/env bash
# What hplx needs from the system, in two lists, and how it gets them.
#
#   scripts/install-deps.sh         the run list: building and running hplx
#                                   (make run, make build, make install)
#   scripts/install-deps.sh --test  the run list and the test list: what the
#                                   tests add (make test, test-sanitize, fuzz*)
#   scripts/install-deps.sh --list run|test   a list's Debian packages, one a line
#
# Two lists because the people who type `make run` are often on a cluster's
# node, where a second Slurm, a munged or a compiler for fuzzing is the last
# thing they want from a benchmark: those are the tests' needs, not hplx's.
#
# On Debian, as root or with sudo, it installs the missing packages
# (apt-get --no-install-recommends) and starts none of the services they
# bring: during the install a policy-rc.d denies starting a service that was
# not on the machine before (munge's postinst would start munged), and
# afterwards those services are disabled at boot. An existing policy-rc.d
# (the admin's) is left alone and decides.
#
# Elsewhere (not Debian, or not root and no sudo usable, or HPLX_NO_INSTALL=1)
# it installs nothing and asks for nothing: it says in one line which needs it
# could not find and how to provide them (the Debian package; the usual
# module or Spack name), and exits 0, so the build goes on with what CMake
# finds (PATH, MPI_HOME, CMAKE_PREFIX_PATH, OPENBLAS_ROOT; README.md).
set -euo pipefail

# One need a line: what | how to look for it | Debian packages | module or
# Spack name. Probes, all of which must hold: cmd:A,B (a program on PATH,
# A or B, or an executable path), header:H and lib:L (in the usual places and
# those the environment names: CPATH, LIBRARY_PATH, CMAKE_PREFIX_PATH, ...),
# file:F.
RUN_NEEDS=(
  "C++20 compiler|cmd:${CXX:-c++},g++|build-essential|gcc"
  "make|cmd:make|make|make"
  "CMake 3.25+|cmd:cmake|cmake|cmake"
  # CMake finds toml++ through pkg-config (src/model/CMakeLists.txt); a bare
  # Debian does not have it and --no-install-recommends does not bring it.
  "pkg-config|cmd:pkg-config,pkgconf|pkg-config|pkgconf"
  "MPI|cmd:mpicc,${MPI_HOME:-/nonexistent}/bin/mpicc|libopenmpi-dev openmpi-bin|openmpi"
  "OpenBLAS|header:cblas.h lib:openblas|libopenblas-openmp-dev|openblas"
  "fmt|header:fmt/format.h|libfmt-dev|fmt"
  "nlohmann-json|header:nlohmann/json.hpp|nlohmann-json3-dev|nlohmann-json"
  "CLI11|header:CLI/CLI.hpp|libcli11-dev|cli11"
  "toml++|header:toml++/toml.h|libtomlplusplus-dev|tomlplusplus"
  # The checkpoints' checksums (hplx lu --checkpoint).
  "xxHash|header:xxhash.h lib:xxhash|libxxhash-dev|xxhash"
)
TEST_NEEDS=(
  # The test programs; without it the build skips them (HPLX_BUILD_TESTS=auto).
  "GoogleTest|header:gtest/gtest.h|libgtest-dev|googletest"
  # tests/multihost: ip (namespaces, veth, bridge), unshare (hostnames),
  # pgrep (finding a rank to kill); python3 reads the JSON records in tests.
  "iproute2|cmd:ip|iproute2|iproute2"
  "util-linux|cmd:unshare cmd:nsenter|util-linux|util-linux"
  "procps|cmd:pgrep|procps|procps"
  "Python 3|cmd:python3|python3|python"
  # tests/multihost/slurm_two_hosts.sh: a Slurm cluster of those hosts
  # (slurmctld, a slurmd per host, sbatch/srun/scancel, munge's daemon and
  # key tool); srun --mpi=pmix's plugin is in slurm-wlm-basic-plugins, which
  # they bring, and uses Open MPI's libpmix2. The test runs daemons of its
  # own; the packages' services are not started (see above).
  "Slurm|cmd:slurmctld cmd:slurmd cmd:sbatch|slurmctld slurmd slurm-client|slurm"
  "munge|cmd:munged cmd:mungekey|munge|munge"
  # fuzz/ (make fuzz-smoke): clang and its runtime libraries, libFuzzer
  # among them (libclang_rt.fuzzer), which --no-install-recommends leaves out.
  "clang and libFuzzer|cmd:clang|clang libclang-rt-14-dev|llvm"
  # The man pages are generated from --help at build time (help2man; without
  # it the build makes none and says so); the install test loads the
  # installed hplx through Lmod and renders its man page (man-db).
  "help2man|cmd:help2man|help2man|help2man"
  "Lmod|file:/usr/share/lmod/lmod/init/bash|lmod|lmod"
  "man-db|cmd:man|man-db|man-db"
  # hplx sim (docs/SIM.md) and tests/sim's runs: SimGrid's SMPI compiles the
  # LU driver with smpicxx and runs it on a simulated cluster with smpirun.
  # The build skips the simulated cluster's rank program without it.
  "SimGrid|cmd:smpicxx cmd:smpirun|libsimgrid-dev|simgrid"
  # scripts/check-bare-system.sh (CI): a minimal Debian 12 made with it.
  "debootstrap|cmd:debootstrap|debootstrap|debootstrap"
)

say() { echo "install-deps: $*"; }
die() {
  echo "install-deps: error: $*" >&2
  exit 1
}

lists=run
case "${1:-}" in
  "") ;;
  --test) lists="run test" ;;
  --list)
    case "${2:-}" in
      run) needs=("${RUN_NEEDS[@]}") ;;
      test) needs=("${TEST_NEEDS[@]}") ;;
      *) die "--list takes run or test, not '${2:-}'" ;;
    esac
    for n in "${needs[@]}"; do
      IFS='|' read -r _ _ debs _ <<<"$n"
      printf '%s\n' $debs
    done
    exit 0
    ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *) die "unknown argument '$1' (allowed: --test, --list run|test, --help)" ;;
esac

needs=("${RUN_NEEDS[@]}")
[[ $lists == "run test" ]] && needs+=("${TEST_NEEDS[@]}")
packages=()
for n in "${needs[@]}"; do
  IFS='|' read -r _ _ debs _ <<<"$n"
  for p in $debs; do packages+=("$p"); done
done

# --- can this machine install? --------------------------------------------
SUDO=()
why_not=""
can_install() {
  if [[ ${HPLX_NO_INSTALL:-0} == 1 ]]; then
    why_not="HPLX_NO_INSTALL=1"
  elif ! command -v apt-get >/dev/null || ! command -v dpkg-query >/dev/null; then
    why_not="not Debian (no apt-get)"
  elif [[ $(id -u) == 0 ]]; then
    return 0
  elif ! command -v sudo >/dev/null; then
    why_not="not root and no sudo"
  elif sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
    return 0
  elif [[ -t 0 ]] && id -nG | tr ' ' '\n' | grep -qxE 'sudo|admin|wheel'; then
    # A Debian workstation's user: sudo asks for the password, as it should.
    SUDO=(sudo)
    return 0
  else
    why_not="not root and sudo is not usable here"
  fi
  return 1
}

# --- where the packages come from elsewhere: look for each need -----------
multiarch=$( (gcc -print-multiarch || dpkg-architecture -qDEB_HOST_MULTIARCH) 2>/dev/null || true)
split_path() { tr ':' '\n' <<<"${1:-}" | grep . || true; }
include_dirs() {
  split_path "${CPATH:-}"
  split_path "${CPLUS_INCLUDE_PATH:-}"
  split_path "${C_INCLUDE_PATH:-}"
  local p
  for p in $(split_path "${CMAKE_PREFIX_PATH:-}") ${OPENBLAS_ROOT:-} ${EBROOTOPENBLAS:-}; do
    echo "$p/include"
  done
  echo /usr/local/include
  [[ -n $multiarch ]] && echo "/usr/include/$multiarch" "/usr/include/$multiarch/openblas-openmp"
  echo /usr/include /usr/include/openblas
}
lib_dirs() {
  split_path "${LIBRARY_PATH:-}"
  split_path "${LD_LIBRARY_PATH:-}"
  local p
  for p in $(split_path "${CMAKE_PREFIX_PATH:-}") ${OPENBLAS_ROOT:-} ${EBROOTOPENBLAS:-}; do
    echo "$p/lib" "$p/lib64"
  done
  echo /usr/local/lib /usr/local/lib64
  [[ -n $multiarch ]] && echo "/usr/lib/$multiarch" "/usr/lib/$multiarch/openblas-openmp"
  echo /usr/lib64 /usr/lib
}
probe() {  # probe KIND:WHAT -> status 0 when found
  local kind=${1%%:*} what=${1#*:} d c
  case $kind in
    cmd)
      for c in ${what//,/ }; do
        if [[ $c == */* ]]; then [[ -x $c ]] && return 0; else command -v "$c" >/dev/null && return 0; fi
      done
      ;;
    header) for d in $(include_dirs); do [[ -r $d/$what ]] && return 0; done ;;
    lib) for d in $(lib_dirs); do compgen -G "$d/lib$what.so*" >/dev/null || [[ -r $d/lib$what.a ]] && return 0; done ;;
    file) [[ -r $what ]] && return 0 ;;
  esac
  return 1
}
report_not_installing() {
  local n what probes debs other p missing=()
  for n in "${needs[@]}"; do
    IFS='|' read -r what probes debs other <<<"$n"
    for p in $probes; do
      if ! probe "$p"; then
        missing+=("$what (Debian $debs; module/Spack $other)")
        break
      fi
    done
  done
  local list="run list"
  [[ $lists == "run test" ]] && list="run and test lists"
  if [[ ${#missing[@]} -eq 0 ]]; then
    say "installing nothing ($why_not): found all ${#needs[@]} needs of the $list"
  else
    local joined
    joined=$(printf '%s, ' "${missing[@]}")
    say "installing nothing ($why_not); not found: ${joined%, }; CMake will look on PATH and in MPI_HOME, CMAKE_PREFIX_PATH and OPENBLAS_ROOT (README.md: a site with modules)"
  fi
}

# --- Debian: install what is missing ---------------------------------------
if ! can_install; then
  report_not_installing
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  say "all ${#packages[@]} packages present"
  exit 0
fi

# The services on the machine now: init scripts and systemd units, by the
# name invoke-rc.d (munge) and deb-systemd-invoke (munge.service) pass to
# policy-rc.d.
services() {
  local f
  for f in /etc/init.d/* /lib/systemd/system/* /usr/lib/systemd/system/* /etc/systemd/system/*; do
    [[ -f $f ]] || continue
    case $f in
      */init.d/*) echo "${f##*/}" ;;
      *.service) f=${f##*/} && echo "${f%.service}" ;;
      *.socket | *.timer) echo "${f##*/}" ;;
    esac
  done | grep -v '@' | sort -u
}
before=$(services)
policy=/usr/sbin/policy-rc.d
wrote_policy=0
remove_policy() {
  if [[ $wrote_policy == 1 ]]; then
    "${SUDO[@]}" rm -f "$policy"
    wrote_policy=0
  fi
}
trap remove_policy EXIT
trap 'exit 130' INT TERM
if [[ ! -e $policy ]]; then
  # Services already here behave as without a policy: an action in
  # parentheses (the runlevel says no) or no init system at all means no.
  "${SUDO[@]}" tee "$policy" >/dev/null <<EOF
#!/bin/sh
# Written by hplx's scripts/install-deps.sh for one apt-get install and
# removed after it: the services that install brings are not started.
[ "\$1" = --quiet ] && shift
known="
$before
"
case "\$known" in
  *"
\${1%.service}
"*)
    case "\$2" in "("*) exit 101 ;; esac
    [ -e /sbin/init ] || [ -d /run/systemd/system ] || exit 101
    exit 0 ;;
esac
exit 101
EOF
  wrote_policy=1
  "${SUDO[@]}" chmod 755 "$policy"
fi

say "installing ${missing[*]}"
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
remove_policy

# Not at boot either: a new daemon stays off until its owner enables it. A
# daemon: an init script started in runlevels 2-5 (not procps's, which sets
# sysctls at boot: cmake depends on it), a service unit that is not a
# oneshot, a socket.
is_daemon() {
  local s=$1 f
  for f in /lib/systemd/system/$s /lib/systemd/system/$s.service; do
    [[ -f $f ]] || continue
    [[ $f == *.socket ]] && return 0
    [[ $f == *.service ]] && ! grep -qx 'Type=oneshot' "$f" && return 0
  done
  [[ -f /etc/init.d/$s ]] && grep -qE '^# *Default-Start:.*[2-5]' "/etc/init.d/$s"
}
new=$(comm -13 <(echo "$before") <(services))
daemons=()
for s in $new; do is_daemon "$s" && daemons+=("$s"); done
if [[ -n $new ]]; then
  for s in "${daemons[@]}"; do
    unit=$s
    [[ $s == *.socket ]] || unit=$s.service
    if [[ -e /lib/systemd/system/$unit ]]; then
      if command -v systemctl >/dev/null; then
        "${SUDO[@]}" systemctl disable --quiet "$unit" 2>/dev/null || true
      elif command -v deb-systemd-helper >/dev/null; then
        "${SUDO[@]}" deb-systemd-helper disable "$unit" >/dev/null 2>&1 || true
      fi
    fi
    if [[ -e /etc/init.d/$s ]] && command -v update-rc.d >/dev/null; then
      "${SUDO[@]}" update-rc.d "$s" disable >/dev/null 2>&1 || true
    fi
  done
  say "not started: $(echo $new); disabled at boot: ${daemons[*]:-none} (hplx and its tests start none of them)"
fi
