// 2D block-cyclic index arithmetic (ScaLAPACK/HPL convention, source process 0).
// Global index g (0-based) of a dimension split in blocks of nb over np
// processes lives on process (g / nb) % np at local index
// (g / (nb * np)) * nb + g % nb. Host and device code (kernel bodies) use it.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::lu {

// Number of the n global indices owned by process `proc` of `np`.
HPLX_HD inline long local_count(long n, int nb, int proc, int np) {
  if (n <= 0) return 0;
  const long nblocks = n / nb;
  long count = (nblocks / np) * nb;
  const long extra = nblocks % np;
  if (proc < extra) {
    count += nb;
  } else if (proc == extra) {
    count += n % nb;
  }
  return count;
}

HPLX_HD inline int owner_of(long g, int nb, int np) {
  return static_cast<int>((g / nb) % np);
}

HPLX_HD inline long global_to_local(long g, int nb, int np) {
  return (g / (static_cast<long>(nb) * np)) * nb + g % nb;
}

HPLX_HD inline long local_to_global(long l, int nb, int proc, int np) {
  return ((l / nb) * np + proc) * static_cast<long>(nb) + l % nb;
}

// Number of local indices of `proc` whose global index is < g: the first
// local index at or after global index g.
HPLX_HD inline long local_start(long g, int nb, int proc, int np) {
  return local_count(g, nb, proc, np);
}

}  // namespace hplx::lu
