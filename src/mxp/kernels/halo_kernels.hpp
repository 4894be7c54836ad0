// Packing the halo's send buffer, as a kernel body (launched on the
// transfer queue): buf[i] = x[rows[i]] over every neighbour's rows, which
// are concatenated in the order of the messages.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::mxp::kernels {

template <class T>
struct PackBody {
  const T* x;
  const int* rows;
  T* buf;
  HPLX_HD void operator()(long i) const { buf[i] = x[rows[i]]; }
};

// The same, for a vector whose coarse points [0, coarse_end) still miss the
// prolongated correction z_c that the first kernel of the sweep adds
// (multigrid.cpp): buf[i] = x[row] + z_c[f2c[row]] there, the value x[row]
// has after that kernel (the same single addition, so the same bits).
template <class T>
struct PackProlongedBody {
  const T* x;
  const int* rows;
  T* buf;
  const int* f2c;
  const T* zc;
  long coarse_end;
  HPLX_HD void operator()(long i) const {
    const long r = rows[i];
    buf[i] = r < coarse_end ? x[r] + zc[f2c[r]] : x[r];
  }
};

}  // namespace hplx::mxp::kernels
