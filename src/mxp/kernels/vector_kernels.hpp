// Vector kernels of HPG-MxP as kernel bodies, one element per index, in
// any mix of float and double (seed 002: mixed-precision WAXPBY and friends
// without host copies); arithmetic and sums in double.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::mxp::kernels {

// w = alpha x + beta y.
template <class W, class X, class Y>
struct WaxpbyBody {
  double alpha, beta;
  const X* x;
  const Y* y;
  W* w;
  HPLX_HD void operator()(long i) const {
    w[i] = static_cast<W>(alpha * static_cast<double>(x[i]) + beta * static_cast<double>(y[i]));
  }
};

// y = alpha x (converting; alpha = 1 converts).
template <class Y, class X>
struct ScaleCopyBody {
  double alpha;
  const X* x;
  Y* y;
  HPLX_HD void operator()(long i) const {
    y[i] = static_cast<Y>(alpha * static_cast<double>(x[i]));
  }
};

// y = x converted (no scaling: exact where T holds the value).
template <class Y, class X>
struct ConvertBody {
  const X* x;
  Y* y;
  HPLX_HD void operator()(long i) const { y[i] = static_cast<Y>(x[i]); }
};

template <class T>
struct ScaleBody {
  T alpha;
  T* x;
  HPLX_HD void operator()(long i) const { x[i] *= alpha; }
};

template <class T>
struct FillBody {
  T value;
  T* x;
  HPLX_HD void operator()(long i) const { x[i] = value; }
};

// One term of x . y, in double (device::reduce_sum adds them).
template <class X, class Y>
struct DotBody {
  const X* x;
  const Y* y;
  HPLX_HD double operator()(long i) const {
    return static_cast<double>(x[i]) * static_cast<double>(y[i]);
  }
};

}  // namespace hplx::mxp::kernels
