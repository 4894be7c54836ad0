// Kernel bodies of the device contract tests, in a header so that a CUDA
// build compiles them for the GPU too (tests/device/cuda_instances.cu).
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::test {

struct AxpyBody {
  double alpha;
  const double* x;
  double* y;
  HPLX_HD void operator()(long i) const { y[i] += alpha * x[i]; }
};

// x[i] itself, as a term of a sum.
struct TermBody {
  const double* x;
  HPLX_HD double operator()(long i) const { return x[i]; }
};

struct SquareBody {
  const double* x;
  HPLX_HD double operator()(long i) const { return x[i] * x[i]; }
};

}  // namespace hplx::test
