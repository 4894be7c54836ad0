// STREAM-style triad a = b + s c with OpenMP (OMP_NUM_THREADS threads), the
// bandwidth ceiling the HPG-MxP kernels are compared with. Counts 3 arrays
// per element (STREAM's convention, no write-allocate), best of 10 passes.
//   build/bin/hplx_stream_triad [elements]   (default 2e7 doubles per array)
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 20'000'000;
  std::vector<double> a(n), b(n), c(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  double best = 0;
  for (int pass = 0; pass < 10; ++pass) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (3.0 * 8 * n / t / 1e9 > best) best = 3.0 * 8 * n / t / 1e9;
  }
  std::printf("triad_gbs %.2f threads %d\n", best, omp_get_max_threads());
  return a[n / 2] == 7.0 ? 0 : 1;
}
