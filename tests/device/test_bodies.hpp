// Kernel bodies of the device contract tests, in a header so that a CUDA
// build compiles them for the GPU too (tests/device/gpu_instances.cu).
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

// A body of phases (device/launch.hpp's launch_phased): phase p moves
// every element of one buffer one place left (cyclically) into the other,
// plus 1, so each phase reads what other threads wrote in the phase
// before. After P phases the buffer P % 2 holds x0[(i + P) % n] + P.
struct ShiftPhases {
  double* buf[2];
  long n, count;
  HPLX_HD long phases() const { return count; }
  HPLX_HD long extent(long) const { return n; }
  HPLX_HD void operator()(long phase, long i) const {
    const double* from = buf[phase % 2];
    buf[(phase + 1) % 2][i] = from[(i + 1) % n] + 1.0;
  }
};

}  // namespace hplx::test
