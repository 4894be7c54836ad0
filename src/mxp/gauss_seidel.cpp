#include "mxp/gauss_seidel.hpp"

#include <algorithm>

#include "core/timer.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {
namespace {
constexpr long kChunk = 256;
}

template <class T>
void gs_rows(const EllMatrix<T>& a, const T* __restrict b, T* x, long begin, long end) {
  const long n = a.rows();
  const T* __restrict vals = a.values.data();
  const int* __restrict cols = a.pattern->cols.data();
  const T* __restrict inv_diag = a.inv_diag.data();
#pragma omp parallel for schedule(static)
  for (long c0 = begin; c0 < end; c0 += kChunk) {
    const long len = std::min(kChunk, end - c0);
    T acc[kChunk];
    for (long i = 0; i < len; ++i) acc[i] = b[c0 + i];
    for (int s = 0; s < kSlots; ++s) {
      const T* v = vals + s * n + c0;
      const int* c = cols + s * n + c0;
#pragma omp simd
      for (long i = 0; i < len; ++i) acc[i] -= v[i] * x[c[i]];
    }
    for (long i = 0; i < len; ++i) x[c0 + i] += acc[i] * inv_diag[c0 + i];
  }
}

template <class T>
void gs_sweep(const EllMatrix<T>& a, const ColorOrdering& order, HaloExchange<T>& halo, const T* b,
              T* x, bool x_is_zero, MotifStats* stats) {
  const double t0 = wall_time();
  double wait = 0;
  if (x_is_zero) {
    fill(a.columns() - a.rows(), T(0), x + a.rows());
    for (int c = 0; c < kColors; ++c)
      gs_rows(a, b, x, order.color_begin[c], order.color_begin[c + 1]);
  } else {
    halo.begin(x);
    gs_rows(a, b, x, order.color_begin[0], order.boundary_begin[0]);
    const double tw = wall_time();
    halo.finish();
    wait = wall_time() - tw;
    gs_rows(a, b, x, order.boundary_begin[0], order.color_begin[1]);
    for (int c = 1; c < kColors; ++c)
      gs_rows(a, b, x, order.color_begin[c], order.color_begin[c + 1]);
  }
  if (stats) {
    stats->halo_wait += wait;
    stats->gs += wall_time() - t0;
    // Matrix, 1/diag, b, x read and x written per row.
    stats->bytes_gs += a.rows() * (ell_row_bytes<T>(4));
  }
}

template void gs_rows<float>(const EllMatrix<float>&, const float*, float*, long, long);
template void gs_rows<double>(const EllMatrix<double>&, const double*, double*, long, long);
template void gs_sweep<float>(const EllMatrix<float>&, const ColorOrdering&, HaloExchange<float>&,
                              const float*, float*, bool, MotifStats*);
template void gs_sweep<double>(const EllMatrix<double>&, const ColorOrdering&,
                               HaloExchange<double>&, const double*, double*, bool, MotifStats*);

}  // namespace hplx::mxp
