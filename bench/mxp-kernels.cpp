// The HPG-MxP sparse kernels alone on one rank (OMP_NUM_THREADS threads):
// SpMV, a Gauss-Seidel sweep and the fused residual + restriction on the
// fine level of an NX^3 problem, float and double, median of REPS calls,
// with the modelled GB/s of docs/MXP.md. For trying kernel changes without
// the solver around them:
//   build/bin/hplx_mxp_kernels [NX] [REPS] [BACKEND]     (default 64, 20, host)
// BACKEND portable: the host backend running the portable kernel bodies
// instead of its fast path (the cost of the bodies on a CPU).
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/timer.hpp"
#include "device/device.hpp"
#include "mxp/gauss_seidel.hpp"
#include "mxp/multigrid.hpp"
#include "mxp/problem.hpp"
#include "mxp/vector_ops.hpp"

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
const EllMatrix<T>& matrix_in(device::Device& dev, const EllMatrix<double>& a,
                              EllMatrix<T>& owned) {
  if constexpr (std::is_same_v<T, double>) {
    return a;
  } else {
    owned = convert_matrix<T>(dev, a);
    return owned;
  }
}

template <class T>
device::Buffer<T> filled(device::Device& dev, long n, T value) {
  device::Buffer<T> b = dev.alloc<T>(n);
  fill(dev.compute(), n, value, b.data());
  return b;
}

template <class T>
void run(device::Device& dev, const Problem& p, int reps, KernelPath path) {
  const Level& lv = p.levels[0];
  device::Queue& q = dev.compute();
  EllMatrix<T> owned;
  const EllMatrix<T>& a = matrix_in(dev, lv.a, owned);
  const long n = a.rows();
  device::Buffer<T> x = filled(dev, a.columns(), T(1)), y = filled(dev, n, T(0)),
                    b = filled(dev, n, T(1)), rc = filled(dev, p.levels[1].a.rows(), T(0));
  HaloExchange<T> halo(dev, &lv.halo, n, MPI_COMM_SELF);
  const char* name = sizeof(T) == 4 ? "float" : "double";
  const double t_spmv = median_seconds(reps, [&] {
    spmv_rows(q, a, x.data(), y.data(), 0, n, path);
    q.synchronize();
  });
  const double t_gs = median_seconds(reps, [&] {
    gs_sweep(q, a, lv.order, halo, b.data(), x.data(), false, nullptr, "GS", path);
    q.synchronize();
  });
  const double t_rs = median_seconds(reps, [&] {
    restrict_residual_rows(q, a, lv.fine_to_coarse.data(), b.data(), x.data(), rc.data(),
                           lv.order.coarse_begin(), lv.order.coarse_end(), path);
    q.synchronize();
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
  const std::string which = argc > 3 ? argv[3] : "host";
  const KernelPath path = which == "portable" ? KernelPath::Portable : KernelPath::Best;
  const auto dev = device::make_device(which == "portable" ? device::BackendKind::Host
                                                           : device::parse_backend(which));
  const Geometry g = make_geometry(0, 1, nx, nx, nx);
  const Problem p = generate_problem(*dev, g, {}, MPI_COMM_SELF);
  std::printf("local %d^3, %d threads, median of %d calls, %s%s\n", nx, omp_get_max_threads(), reps,
              dev->backend().describe().c_str(),
              path == KernelPath::Portable ? " (portable bodies)" : "");
  run<float>(*dev, p, reps, path);
  run<double>(*dev, p, reps, path);
  MPI_Finalize();
  return 0;
}
