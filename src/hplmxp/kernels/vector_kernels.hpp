// The refinement's vector operations as kernel bodies (gmres_ir.cpp,
// generated_matrix.cpp): its FP64 vectors live in the queue's memory, and
// only scalars reach the host (dot products, and chunks' maxima for the
// check's max-norms).
#pragma once

#include <cmath>

#include "device/kernel_body.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::hplmxp::kernels {

// a(i) b(i): a dot product's terms (device::reduce_sum adds them in a
// fixed order).
struct DotTerms {
  const double* a;
  const double* b;
  HPLX_HD double operator()(long i) const { return a[i] * b[i]; }
};

// y = alpha x + beta y.
struct Axpby {
  double alpha;
  const double* x;
  double beta;
  double* y;
  HPLX_HD void operator()(long i) const { y[i] = alpha * x[i] + beta * y[i]; }
};

// maxima(c) = the largest |v(i)| of chunk c (kChunk entries), NaN counted
// as infinity (a NaN must not pass the check): the host then takes the
// largest of n / kChunk numbers instead of n. Index: chunk.
struct ChunkMaxima {
  const double* v;
  long n;
  double* maxima;
  static constexpr long kChunk = 1024;
  HPLX_HD void operator()(long c) const {
    const long end = (c + 1) * kChunk < n ? (c + 1) * kChunk : n;
    double m = 0;
    for (long i = c * kChunk; i < end; ++i) {
      const double a = v[i] < 0 ? -v[i] : v[i];
      if (!(a <= m)) m = a == a ? a : INFINITY;
    }
    maxima[c] = m;
  }
};

// y = x / d.
struct Divided {
  const double* x;
  double d;
  double* y;
  HPLX_HD void operator()(long i) const { y[i] = x[i] / d; }
};

// y = value.
struct Filled {
  double value;
  double* y;
  HPLX_HD void operator()(long i) const { y[i] = value; }
};

// to = FP32 of from, and back.
struct ToFloat {
  const double* from;
  float* to;
  HPLX_HD void operator()(long i) const { to[i] = static_cast<float>(from[i]); }
};
struct ToDouble {
  const float* from;
  double* to;
  HPLX_HD void operator()(long i) const { to[i] = static_cast<double>(from[i]); }
};

// local(jl) = global(global index of local column or row jl): a process's
// share of a replicated vector, and the way back (local(il) to its global
// row).
struct GatherLocal {
  const double* global;
  double* local;
  int nb, proc, np;
  HPLX_HD void operator()(long l) const { local[l] = global[lu::local_to_global(l, nb, proc, np)]; }
};
struct ScatterLocal {
  const double* local;
  double* global;
  int nb, proc, np;
  HPLX_HD void operator()(long l) const { global[lu::local_to_global(l, nb, proc, np)] = local[l]; }
};

}  // namespace hplx::hplmxp::kernels
