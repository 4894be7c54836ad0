// The kernel body of Queue::convert: one element of an m x n column-major
// FP32 matrix rounded to 16 bits (precision.hpp), the same code on the host,
// the emulated device and a GPU (src/device/cuda/convert_instances.cu).
#pragma once

#include "device/kernel_body.hpp"
#include "device/precision.hpp"

namespace hplx::device {

template <class T>
struct RoundMatrix {
  long m;
  const float* a;
  long lda;
  T* b;
  long ldb;
  HPLX_HD void operator()(long index) const {
    const long j = index / m, i = index - j * m;
    b[i + j * ldb] = round_to<T>(a[i + j * lda]);
  }
};

}  // namespace hplx::device
