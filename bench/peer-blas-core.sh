# Sourced by the scripts that run a peer (netlib HPL, hpcc, the HPL-MxP
# reference) beside hplx: the peer must run the same OpenBLAS kernels. On a
# CPU its OpenBLAS does not know, hplx restarts with OPENBLAS_CORETYPE set
# (src/core/blas_core.hpp), a peer would keep the library's slow fallback;
# this exports what hplx would set, so both sides run it. Needs $HPLX; an
# OPENBLAS_CORETYPE already set is left as it is (hplx obeys it too).
if [[ -z ${OPENBLAS_CORETYPE:-} ]]; then
  peer_core=$("$HPLX" --version 2>/dev/null | sed -n 's/.*hplx restarted with OPENBLAS_CORETYPE=\([A-Za-z0-9_]*\).*/\1/p')
  if [[ -n $peer_core ]]; then
    export OPENBLAS_CORETYPE=$peer_core
    echo "$(basename "$0"): OpenBLAS does not know this CPU: hplx and the peer both run with OPENBLAS_CORETYPE=$peer_core" >&2
  fi
  unset peer_core
fi
