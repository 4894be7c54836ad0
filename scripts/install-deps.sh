#!/usr/bin/env bash
# The one list of Debian packages hplx needs to build and test. Idempotent:
# installs only what is missing. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  build-essential cmake make
  # CMake finds toml++ through pkg-config (src/model/CMakeLists.txt); a bare
  # Debian does not have it and --no-install-recommends does not bring it.
  pkg-config
  libopenmpi-dev openmpi-bin
  libopenblas-openmp-dev
  libgtest-dev
  libcli11-dev
  nlohmann-json3-dev
  libfmt-dev
  libtomlplusplus-dev
  # tests/multihost: ip (namespaces, veth, bridge), unshare (hostnames),
  # pgrep (finding a rank to kill); python3 reads the JSON records in tests.
  iproute2 util-linux procps python3
  # tests/multihost/slurm_two_hosts.sh: a Slurm cluster of those hosts
  # (slurmctld, a slurmd per host, sbatch/srun/scancel, munge's daemon and
  # key tool); srun --mpi=pmix's plugin is in slurm-wlm-basic-plugins, which
  # they bring, and uses Open MPI's libpmix2. About 3 MiB to download, 13 MiB
  # installed. slurmd's and slurmctld's services do not start (no
  # /etc/slurm/slurm.conf); the test runs a munged of its own beside any
  # the package starts.
  slurmctld slurmd slurm-client munge
  # fuzz/ (make fuzz-smoke): clang and its runtime libraries, libFuzzer
  # among them (libclang_rt.fuzzer), which --no-install-recommends leaves out.
  clang libclang-rt-14-dev
  # The man pages are generated from --help at build time (help2man); the
  # install test loads the installed hplx through Lmod and renders its man
  # page (man-db).
  help2man lmod man-db
  # hplx sim (docs/SIM.md): SimGrid's SMPI compiles the LU driver with
  # smpicxx and runs it on a simulated cluster with smpirun.
  libsimgrid-dev
  # scripts/check-bare-system.sh (CI): a minimal Debian 12 made with it, where
  # the README's first command must work with nothing but this list.
  debootstrap
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
