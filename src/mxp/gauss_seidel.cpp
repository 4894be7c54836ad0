#include "mxp/gauss_seidel.hpp"

#include <algorithm>

#include "core/timer.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {
template <class T>
void gs_rows(const EllMatrix<T>& a, const T* __restrict b, T* x, long begin, long end,
             bool earlier_only) {
  // The rows of [begin, end) never read each other, so x may be read and
  // written by the same pass.
  const T* __restrict inv_diag = a.inv_diag.data();
  ell_row_sums<true>(
      a, x, begin, end, [b](long r) { return b[r]; },
      [x, inv_diag](long r, T acc) { x[r] += acc * inv_diag[r]; },
      earlier_only ? a.pattern->earlier_slots.data() : nullptr);
}

template <class T>
void gs_rows_sequential(const EllMatrix<T>& a, const T* __restrict b, T* x, long begin, long end) {
  const T* __restrict vals = a.values.data();
  const int* __restrict cols = a.pattern->cols.data();
  const T* __restrict inv_diag = a.inv_diag.data();
  for (long r = begin; r < end; ++r) {
    const long base = EllPattern::index(r, 0);
    T acc = b[r];
    for (int s = 0; s < kSlots; ++s)
      acc -= vals[base + s * kSliceRows] * x[cols[base + s * kSliceRows]];
    x[r] += acc * inv_diag[r];
  }
}

template <class T>
void gs_sweep(const EllMatrix<T>& a, const ColorOrdering& order, HaloExchange<T>& halo, const T* b,
              T* x, bool x_is_zero, MotifStats* stats, const char* name) {
  const double t0 = wall_time();
  double wait = 0, tw = t0;
  if (order.sequential) {
    // No overlap: the first row may already read the halo.
    if (x_is_zero) {
      fill(a.columns() - a.rows(), T(0), x + a.rows());
    } else {
      halo.begin(x);
      tw = wall_time();
      halo.finish();
      wait = wall_time() - tw;
    }
    gs_rows_sequential(a, b, x, 0, a.rows());
  } else if (x_is_zero) {
    fill(a.columns() - a.rows(), T(0), x + a.rows());
    // Color 0 first: its neighbours are all other colors, still zero, so
    // x = b / a_rr there without reading the matrix.
    const T* __restrict inv_diag = a.inv_diag.data();
    const long end0 = order.color_begin[1];
#pragma omp parallel for simd schedule(static)
    for (long r = 0; r < end0; ++r) x[r] = b[r] * inv_diag[r];
    for (int c = 1; c < kColors; ++c)
      gs_rows(a, b, x, order.color_begin[c], order.color_begin[c + 1], /*earlier_only=*/true);
  } else {
    halo.begin(x);
    gs_rows(a, b, x, order.color_begin[0], order.boundary_begin[0]);
    tw = wall_time();
    halo.finish();
    wait = wall_time() - tw;
    gs_rows(a, b, x, order.boundary_begin[0], order.color_begin[1]);
    for (int c = 1; c < kColors; ++c)
      gs_rows(a, b, x, order.color_begin[c], order.color_begin[c + 1]);
  }
  if (stats) {
    const double t1 = wall_time();
    if (wait > 0 || !x_is_zero) {  // a sweep that exchanged the halo
      if (!order.sequential) stats->span("interior rows", t0, tw);
      stats->span("halo wait", tw, tw + wait);
      stats->span(order.sequential ? "rows" : "halo rows and colors 1-7", tw + wait, t1);
      stats->span("halo exchange", t0, tw + wait, kTraceHalo);
    }
    stats->span(name, t0, t1);
    stats->halo_wait += wait;
    stats->gs += t1 - t0;
    // Matrix, 1/diag, b, x read and x written per row (a sweep from zero:
    // only the slots of earlier blocks, none in block 0).
    const long c0 = order.color_begin[1];
    stats->bytes_gs +=
        x_is_zero && !order.sequential
            ? static_cast<double>(a.pattern->earlier_entries) * (sizeof(T) + sizeof(int)) +
                  (a.rows() - c0) * 4.0 * sizeof(T) + c0 * 3.0 * sizeof(T)
            : a.rows() * ell_row_bytes<T>(4);
  }
}

template void gs_rows<float>(const EllMatrix<float>&, const float*, float*, long, long, bool);
template void gs_rows<double>(const EllMatrix<double>&, const double*, double*, long, long, bool);
template void gs_rows_sequential<float>(const EllMatrix<float>&, const float*, float*, long, long);
template void gs_rows_sequential<double>(const EllMatrix<double>&, const double*, double*, long,
                                         long);
template void gs_sweep<float>(const EllMatrix<float>&, const ColorOrdering&, HaloExchange<float>&,
                              const float*, float*, bool, MotifStats*, const char*);
template void gs_sweep<double>(const EllMatrix<double>&, const ColorOrdering&,
                               HaloExchange<double>&, const double*, double*, bool, MotifStats*,
                               const char*);

}  // namespace hplx::mxp
