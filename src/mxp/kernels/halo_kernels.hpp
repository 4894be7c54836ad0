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

}  // namespace hplx::mxp::kernels
