#include "mxp/ell_matrix.hpp"

#include "core/timer.hpp"
#include "mxp/host/ell_simd.hpp"
#include "mxp/kernels/ell_kernels.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

template <class T>
EllMatrix<T> convert_matrix(device::Device& dev, const EllMatrix<double>& a) {
  EllMatrix<T> out;
  out.pattern = a.pattern;
  out.global_nnz = a.global_nnz;
  out.values = dev.alloc<T>(a.values.size());
  out.inv_diag = dev.alloc<T>(a.inv_diag.size());
  convert(dev.compute(), a.values.size(), a.values.data(), out.values.data());
  convert(dev.compute(), a.inv_diag.size(), a.inv_diag.data(), out.inv_diag.data());
  return out;
}

// The one dispatch point of SpMV.
template <class T>
void spmv_rows(device::Queue& q, const EllMatrix<T>& a, const T* x, T* y, long begin, long end,
               KernelPath path) {
  if (begin >= end) return;
  const T* vals = a.values.data();
  const int* cols = a.pattern->cols.data();
  if (use_host_fast_path(q, path)) {
    const long rows = a.rows();
    q.execute([=] {
      T* __restrict out = y;
      host::ell_row_sums<false>(
          vals, cols, rows, x, begin, end, [](long) { return T(0); },
          [out](long r, T acc) { out[r] = acc; });
    });
  } else {
    device::launch(q, end - begin, kernels::SpmvBody<T>{vals, cols, x, y, begin});
  }
}

template <class T>
void spmv(device::Queue& q, const EllMatrix<T>& a, const ColorOrdering& order,
          HaloExchange<T>& halo, T* x, T* y, MotifStats* stats) {
  MotifClock clock(q, stats);
  const double t0 = clock.t0();
  halo.begin(q, x);
  for (int c = 0; c < kColors; ++c)
    spmv_rows(q, a, x, y, order.color_begin[c], order.boundary_begin[c]);
  const double tw = wall_time();
  halo.finish(q, x);
  const double tw1 = wall_time();
  for (int c = 0; c < kColors; ++c)
    spmv_rows(q, a, x, y, order.boundary_begin[c], order.color_begin[c + 1]);
  if (stats) {
    const double t1 = clock.end(&MotifStats::spmv, "SpMV");
    stats->span("interior rows", t0, tw);
    stats->span("halo wait", tw, tw1);
    stats->span("halo rows", tw1, t1);
    stats->span("halo exchange", t0, tw1, kTraceHalo);
    stats->halo_wait += tw1 - tw;
    stats->spmv_calls += 1;
    stats->flops_spmv += 2.0 * static_cast<double>(a.global_nnz);
    stats->bytes_spmv += a.rows() * ell_row_bytes<T>(2);
  }
}

template EllMatrix<float> convert_matrix<float>(device::Device&, const EllMatrix<double>&);
template EllMatrix<double> convert_matrix<double>(device::Device&, const EllMatrix<double>&);
template void spmv_rows<float>(device::Queue&, const EllMatrix<float>&, const float*, float*, long,
                               long, KernelPath);
template void spmv_rows<double>(device::Queue&, const EllMatrix<double>&, const double*, double*,
                                long, long, KernelPath);
template void spmv<float>(device::Queue&, const EllMatrix<float>&, const ColorOrdering&,
                          HaloExchange<float>&, float*, float*, MotifStats*);
template void spmv<double>(device::Queue&, const EllMatrix<double>&, const ColorOrdering&,
                           HaloExchange<double>&, double*, double*, MotifStats*);

}  // namespace hplx::mxp
