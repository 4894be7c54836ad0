#!/usr/bin/env bash
# hplx runs OpenBLAS kernels its CPU can run at speed: on a CPU with AVX2
# and FMA, the core OpenBLAS reports last (after hplx's restart, when there
# is one) is not one of its pre-AVX2 fallbacks; and a core the user sets
# stays set.
#   blas_core.sh HPLX
set -u
hplx=$1
fallbacks=" Unknown Katmai Coppermine Northwood Prescott Banias Atom Core2 Penryn Dunnington Nehalem Athlon Opteron Barcelona Nano Sandybridge Opteron_SSE3 Bobcat "
fail=0
out=$(env -u OPENBLAS_CORETYPE OPENBLAS_VERBOSE=2 "$hplx" --version 2>&1)
core=$(sed -n 's/^Core: *\([A-Za-z0-9_]*\).*/\1/p' <<<"$out" | tail -1)
echo "OpenBLAS's core after hplx started: ${core:-none reported}"
grep -m1 "hplx restarted with" <<<"$out"
if [ -z "$core" ]; then
  echo "FAIL: OpenBLAS reported no core (OPENBLAS_VERBOSE=2)"; fail=1
elif grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && [[ $fallbacks == *" $core "* ]]; then
  echo "FAIL: this CPU has AVX2 and FMA, and hplx runs OpenBLAS's $core kernels"; fail=1
fi
if [[ $fallbacks == *" $core "* ]] && grep -q "hplx restarted with" <<<"$out"; then
  echo "FAIL: hplx says it set a core, and the core is a fallback"; fail=1
fi
# The user's choice is obeyed: no restart, no note.
out=$(OPENBLAS_CORETYPE=Prescott OPENBLAS_VERBOSE=2 "$hplx" --version 2>&1)
cores=$(grep -c "^Core:" <<<"$out")
if [ "$cores" != 1 ] || ! grep -q "^Core: Prescott" <<<"$out" || grep -q "hplx restarted with" <<<"$out"; then
  echo "FAIL: with OPENBLAS_CORETYPE=Prescott set, hplx must keep it and say nothing:"; echo "$out"; fail=1
fi
exit $fail
