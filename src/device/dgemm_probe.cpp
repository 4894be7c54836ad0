#include "device/dgemm_probe.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/threads.hpp"
#include "core/timer.hpp"
#include "device/host_blas.hpp"

namespace hplx::device {
namespace {

constexpr double kProbeSeconds = 0.4;
constexpr long kMaxProbeReps = 10000;

}  // namespace

double probe_dgemm_gflops(int threads) {
  const int used = threads > 0 ? threads : blas_threads();
  ScopedThreads scope(threads > 0 ? threads : omp_get_max_threads(), used);
  // Large enough that every thread gets full DGEMM blocks; 3 matrices of
  // 1024^2 (24 MiB) or 2048^2 (96 MiB) doubles.
  const long n = used > 4 ? 2048 : 1024;
  std::vector<double> a(n * n), b(n * n), c(n * n, 0.0);
  for (long i = 0; i < n * n; ++i) {
    // Bounded values away from zero: no denormals however often C -= A B.
    a[i] = 0.5 + static_cast<double>(i % 7) / 64.0;
    b[i] = 0.25 - static_cast<double>(i % 5) / 64.0;
  }
  auto call = [&] {
    host_blas::gemm(host_blas::Trans::No, host_blas::Trans::No, n, n, n, -1.0, a.data(), n,
                    b.data(), n, 1.0, c.data(), n);
  };
  call();  // warm-up: thread pool start, page faults, caches
  double t0 = wall_time();
  call();
  const double one = std::max(wall_time() - t0, 1e-6);
  const long reps =
      std::clamp(static_cast<long>(std::ceil(kProbeSeconds / one)), 1L, kMaxProbeReps);
  t0 = wall_time();
  for (long r = 0; r < reps; ++r) call();
  const double elapsed = std::max(wall_time() - t0, 1e-9);
  const double flops = 2.0 * static_cast<double>(n) * n * n * static_cast<double>(reps);
  return flops / elapsed / 1e9;
}

}  // namespace hplx::device
