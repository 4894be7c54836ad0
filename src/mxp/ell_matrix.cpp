#include "mxp/ell_matrix.hpp"

#include <algorithm>

#include "core/timer.hpp"

namespace hplx::mxp {

template <class T>
EllMatrix<T> convert_matrix(const EllMatrix<double>& a) {
  EllMatrix<T> out;
  out.pattern = a.pattern;
  out.global_nnz = a.global_nnz;
  out.values.resize(a.values.size());
  out.inv_diag.resize(a.inv_diag.size());
  const long nv = static_cast<long>(a.values.size());
#pragma omp parallel for schedule(static)
  for (long i = 0; i < nv; ++i) out.values[i] = static_cast<T>(a.values[i]);
  for (size_t i = 0; i < a.inv_diag.size(); ++i) out.inv_diag[i] = static_cast<T>(a.inv_diag[i]);
  return out;
}

template <class T>
void spmv_rows(const EllMatrix<T>& a, const T* x, T* __restrict y, long begin, long end) {
  ell_row_sums<false>(
      a, x, begin, end, [](long) { return T(0); }, [y](long r, T acc) { y[r] = acc; });
}

template <class T>
void spmv(const EllMatrix<T>& a, const ColorOrdering& order, HaloExchange<T>& halo, T* x, T* y,
          MotifStats* stats) {
  const double t0 = wall_time();
  halo.begin(x);
  for (int c = 0; c < kColors; ++c)
    spmv_rows(a, x, y, order.color_begin[c], order.boundary_begin[c]);
  const double tw = wall_time();
  halo.finish();
  const double tw1 = wall_time();
  for (int c = 0; c < kColors; ++c)
    spmv_rows(a, x, y, order.boundary_begin[c], order.color_begin[c + 1]);
  if (stats) {
    const double t1 = wall_time();
    stats->span("interior rows", t0, tw);
    stats->span("halo wait", tw, tw1);
    stats->span("halo rows", tw1, t1);
    stats->span("SpMV", t0, t1);
    stats->span("halo exchange", t0, tw1, kTraceHalo);
    stats->halo_wait += tw1 - tw;
    stats->spmv += t1 - t0;
    stats->spmv_calls += 1;
    stats->flops_spmv += 2.0 * static_cast<double>(a.global_nnz);
    stats->bytes_spmv += a.rows() * ell_row_bytes<T>(2);
  }
}

template EllMatrix<float> convert_matrix<float>(const EllMatrix<double>&);
template EllMatrix<double> convert_matrix<double>(const EllMatrix<double>&);
template void spmv_rows<float>(const EllMatrix<float>&, const float*, float*, long, long);
template void spmv_rows<double>(const EllMatrix<double>&, const double*, double*, long, long);
template void spmv<float>(const EllMatrix<float>&, const ColorOrdering&, HaloExchange<float>&,
                          float*, float*, MotifStats*);
template void spmv<double>(const EllMatrix<double>&, const ColorOrdering&, HaloExchange<double>&,
                           double*, double*, MotifStats*);

}  // namespace hplx::mxp
