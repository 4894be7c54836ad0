// netlib's recursive panel factorization cuts n columns into NDIV parts,
// each a multiple of NBMIN (HPL_pdrpan*): the width of every part but the
// last. One rule for host FACT, device FACT, FACT's model (fact_model.cpp) and the
// sub-panel boundaries LBCAST pipelines on.
#pragma once

namespace hplx::lu {

inline long recursion_part(long n, long nbmin, long ndiv) {
  return (((n + nbmin - 1) / nbmin + ndiv - 1) / ndiv) * nbmin;
}

}  // namespace hplx::lu
