// The HPG-MxP sparse kernels alone on one rank (OMP_NUM_THREADS threads):
// SpMV, a Gauss-Seidel sweep and the fused residual + restriction on the
// fine level of an NX^3 problem, float and double, median of REPS calls,
// with the modelled GB/s of docs/MXP.md. For trying kernel changes without
// the solver around them:
//   build/bin/hplx_mxp_kernels [NX] [REPS]     (default 64, 20)
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/timer.hpp"
#include "mxp/gauss_seidel.hpp"
#include "mxp/multigrid.hpp"
#include "mxp/problem.hpp"

using namespace hplx;
using namespace hplx::mxp;

namespace {

template <class F>
double median_seconds(int reps, F f) {
  std::vector<double> t;
  f();  // warm up
  for (int i = 0; i < reps; ++i) {
    const double t0 = wall_time();
    f();
    t.push_back(wall_time() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The level's double matrix itself, or its copy in T.
template <class T>
const EllMatrix<T>& matrix_in(const EllMatrix<double>& a, EllMatrix<T>& owned) {
  if constexpr (std::is_same_v<T, double>) {
    return a;
  } else {
    owned = convert_matrix<T>(a);
    return owned;
  }
}

template <class T>
void run(const Problem& p, int reps) {
  const Level& lv = p.levels[0];
  EllMatrix<T> owned;
  const EllMatrix<T>& a = matrix_in(lv.a, owned);
  const long n = a.rows();
  std::vector<T> x(a.columns(), T(1)), y(n), b(n, T(1)), rc(p.levels[1].a.rows());
  HaloExchange<T> halo(&lv.halo, n, MPI_COMM_SELF);
  const char* name = sizeof(T) == 4 ? "float" : "double";
  const double t_spmv = median_seconds(reps, [&] { spmv_rows(a, x.data(), y.data(), 0, n); });
  const double t_gs = median_seconds(
      reps, [&] { gs_sweep(a, lv.order, halo, b.data(), x.data(), false, nullptr); });
  const double t_rs = median_seconds(reps, [&] {
    restrict_residual_rows(a, lv.fine_to_coarse, b.data(), x.data(), rc.data(),
                           lv.order.coarse_begin(), lv.order.coarse_end());
  });
  const double nc = double(lv.order.coarse_end() - lv.order.coarse_begin());
  std::printf(
      "%-6s spmv %7.3f ms %6.2f GB/s   gs %7.3f ms %6.2f GB/s   restrict %7.3f ms %6.2f GB/s\n",
      name, 1e3 * t_spmv, n * ell_row_bytes<T>(2) / t_spmv / 1e9, 1e3 * t_gs,
      n * ell_row_bytes<T>(4) / t_gs / 1e9, 1e3 * t_rs,
      (nc * ell_row_bytes<T>(2) + n * sizeof(T)) / t_rs / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int nx = argc > 1 ? std::atoi(argv[1]) : 64;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  const Geometry g = make_geometry(0, 1, nx, nx, nx);
  const Problem p = generate_problem(g, {}, MPI_COMM_SELF);
  std::printf("local %d^3, %d threads, median of %d calls\n", nx, omp_get_max_threads(), reps);
  run<float>(p, reps);
  run<double>(p, reps);
  MPI_Finalize();
  return 0;
}
