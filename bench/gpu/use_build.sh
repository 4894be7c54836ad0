# Sourced by check.sh: the build it runs. BUNDLE=FILE
# unpacks an archive of bench/gpu/bundle.sh and copies its libraries under
# / without replacing any (a lent GPU machine has no build prerequisites);
# PREBUILT=DIR (or the unpacked bundle) takes its binaries and puts the
# OpenBLAS they were built with first on the library path. Sets BUILD_DIR;
# `use_build NAME` says NAME in its one-line errors (exit 2).
use_build() {
  local name=$1
  if [[ -n ${BUNDLE:-} ]]; then
    [[ ${DRY_RUN:-0} == 1 ]] && { echo "$name: BUNDLE installs libraries under /: not with DRY_RUN" >&2; exit 2; }
    PREBUILT=$(mktemp -d /tmp/hplx-bundle.XXXXXX)
    tar -xJf "$BUNDLE" -C "$PREBUILT" && cp -rn "$PREBUILT/root/." / && ldconfig || {
      echo "$name: cannot unpack $BUNDLE" >&2
      exit 2
    }
    PREBUILT=$PREBUILT/build
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export OMPI_MCA_plm_rsh_agent=false  # no ssh there: mpirun on this node only
  fi
  if [[ -n ${PREBUILT:-} ]]; then
    BUILD_DIR=$PREBUILT
    # The OpenBLAS the build was made with (bundle.sh), before the machine's.
    export LD_LIBRARY_PATH=$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
}
