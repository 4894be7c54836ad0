#include "mxp/gauss_seidel.hpp"

#include "core/error.hpp"
#include "core/timer.hpp"
#include "mxp/host/ell_simd.hpp"
#include "mxp/kernels/ell_kernels.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

// The one dispatch point of the Gauss-Seidel rows.
template <class T>
void gs_rows(device::Queue& q, const EllMatrix<T>& a, const T* b, T* x, long begin, long end,
             bool earlier_only, KernelPath path) {
  if (begin >= end) return;
  const T* vals = a.values.data();
  const int* cols = a.pattern->cols.data();
  const T* inv_diag = a.inv_diag.data();
  const unsigned char* limit = earlier_only ? a.pattern->earlier_slots.data() : nullptr;
  if (use_host_fast_path(q, path)) {
    const long rows = a.rows();
    q.execute([=] {
      // The rows of [begin, end) never read each other, so x may be read
      // and written by the same pass.
      const T* __restrict br = b;
      const T* __restrict dr = inv_diag;
      host::ell_row_sums<true>(
          vals, cols, rows, x, begin, end, [br](long r) { return br[r]; },
          [x, dr](long r, T acc) { x[r] += acc * dr[r]; }, limit);
    });
  } else {
    device::launch(q, end - begin, kernels::GsBody<T>{vals, cols, inv_diag, b, x, limit, begin});
  }
}

template <class T>
void gs_rows_prolongated(device::Queue& q, const EllMatrix<T>& a, const T* b, T* x, long begin,
                         long end, const FusedProlongation<T>& p, KernelPath path) {
  if (begin >= end) return;
  const T* vals = a.values.data();
  const int* cols = a.pattern->cols.data();
  const T* inv_diag = a.inv_diag.data();
  const int* f2c = p.f2c;
  const T* zc = p.zc;
  if (use_host_fast_path(q, path)) {
    const long rows = a.rows();
    q.execute([=] {
      // The slice's corrections are added before its row sums read x (the
      // loop calls init for every row of a slice first); a row reads no
      // other row of its colour, so only its own correction.
      const T* __restrict br = b;
      const T* __restrict dr = inv_diag;
      host::ell_row_sums<true>(
          vals, cols, rows, x, begin, end,
          [br, x, f2c, zc](long r) {
            x[r] += zc[f2c[r]];
            return br[r];
          },
          [x, dr](long r, T acc) { x[r] += acc * dr[r]; });
    });
  } else {
    device::launch(q, end - begin,
                   kernels::GsProlongBody<T>{vals, cols, inv_diag, b, x, f2c, zc, begin});
  }
}

template <class T>
void gs_rows_sequential(device::Queue& q, const EllMatrix<T>& a, const T* b, T* x, long begin,
                        long end) {
  if (begin >= end) return;
  device::launch(q, 1,
                 kernels::GsSequentialBody<T>{a.values.data(), a.pattern->cols.data(),
                                              a.inv_diag.data(), b, x, begin, end - begin});
}

template <class T>
void gs_sweep(device::Queue& q, const EllMatrix<T>& a, const ColorOrdering& order,
              HaloExchange<T>& halo, const T* b, T* x, bool x_is_zero, MotifStats* stats,
              const char* name, KernelPath path, const FusedProlongation<T>* prolongation) {
  if (prolongation && (x_is_zero || order.sequential || order.coarse_block != 0 ||
                       prolongation->coarse_end != order.color_begin[1]))
    throw Error("gs_sweep: a fused prolongation needs the coarse points as the first block");
  MotifClock clock(q, stats);
  const double t0 = clock.t0();
  double wait = 0, tw = t0;
  if (order.sequential) {
    // No overlap: the first row may already read the halo.
    if (x_is_zero) {
      fill(q, a.columns() - a.rows(), T(0), x + a.rows());
    } else {
      halo.begin(q, x);
      tw = wall_time();
      halo.finish(q, x);
      wait = wall_time() - tw;
    }
    gs_rows_sequential(q, a, b, x, 0, a.rows());
  } else if (x_is_zero) {
    fill(q, a.columns() - a.rows(), T(0), x + a.rows());
    // Color 0 first: its neighbours are all other colors, still zero, so
    // x = b / a_rr there without reading the matrix.
    run_elementwise(q, order.color_begin[1], kernels::DiagonalSolveBody<T>{a.inv_diag.data(), b, x},
                    path);
    for (int c = 1; c < kColors; ++c)
      gs_rows(q, a, b, x, order.color_begin[c], order.color_begin[c + 1], /*earlier_only=*/true,
              path);
  } else {
    // Colour 0's interior rows while the halo travels, then its boundary
    // rows. With a fused prolongation colour 0 is the coarse points: its
    // kernels add the correction, and the halo's packing adds it to the
    // values sent (the boundary rows are sent before they are relaxed).
    auto colour0 = [&](long begin, long end) {
      if (prolongation)
        gs_rows_prolongated(q, a, b, x, begin, end, *prolongation, path);
      else
        gs_rows(q, a, b, x, begin, end, false, path);
    };
    halo.begin(q, x, prolongation);
    colour0(order.color_begin[0], order.boundary_begin[0]);
    tw = wall_time();
    halo.finish(q, x);
    wait = wall_time() - tw;
    colour0(order.boundary_begin[0], order.color_begin[1]);
    for (int c = 1; c < kColors; ++c)
      gs_rows(q, a, b, x, order.color_begin[c], order.color_begin[c + 1], false, path);
  }
  if (stats) {
    const double t1 = clock.end(&MotifStats::gs, name);
    if (wait > 0 || !x_is_zero) {  // a sweep that exchanged the halo
      if (!order.sequential) stats->span("interior rows", t0, tw);
      stats->span("halo wait", tw, tw + wait);
      stats->span(order.sequential ? "rows" : "halo rows and colors 1-7", tw + wait, t1);
      stats->span("halo exchange", t0, tw + wait, kTraceHalo);
    }
    stats->halo_wait += wait;
    // Matrix, 1/diag, b, x read and x written per row (a sweep from zero:
    // only the slots of earlier blocks, none in block 0).
    const long c0 = order.color_begin[1];
    stats->bytes_gs +=
        x_is_zero && !order.sequential
            ? static_cast<double>(a.pattern->earlier_entries) * (sizeof(T) + sizeof(int)) +
                  (a.rows() - c0) * 4.0 * sizeof(T) + c0 * 3.0 * sizeof(T)
            : a.rows() * ell_row_bytes<T>(4);
    // A fused prolongation reads z_c and its index per coarse point (x is
    // read and written there by the sweep anyway).
    if (prolongation) stats->bytes_gs += order.color_begin[1] * double(sizeof(T) + sizeof(int));
  }
}

template void gs_rows<float>(device::Queue&, const EllMatrix<float>&, const float*, float*, long,
                             long, bool, KernelPath);
template void gs_rows<double>(device::Queue&, const EllMatrix<double>&, const double*, double*,
                              long, long, bool, KernelPath);
template void gs_rows_prolongated<float>(device::Queue&, const EllMatrix<float>&, const float*,
                                         float*, long, long, const FusedProlongation<float>&,
                                         KernelPath);
template void gs_rows_prolongated<double>(device::Queue&, const EllMatrix<double>&, const double*,
                                          double*, long, long, const FusedProlongation<double>&,
                                          KernelPath);
template void gs_rows_sequential<float>(device::Queue&, const EllMatrix<float>&, const float*,
                                        float*, long, long);
template void gs_rows_sequential<double>(device::Queue&, const EllMatrix<double>&, const double*,
                                         double*, long, long);
template void gs_sweep<float>(device::Queue&, const EllMatrix<float>&, const ColorOrdering&,
                              HaloExchange<float>&, const float*, float*, bool, MotifStats*,
                              const char*, KernelPath, const FusedProlongation<float>*);
template void gs_sweep<double>(device::Queue&, const EllMatrix<double>&, const ColorOrdering&,
                               HaloExchange<double>&, const double*, double*, bool, MotifStats*,
                               const char*, KernelPath, const FusedProlongation<double>*);

}  // namespace hplx::mxp
