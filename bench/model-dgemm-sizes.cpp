// The update's DGEMM rate against the trailing matrix's row count M, as
// hplx lu runs it beside FACT: C (M x W) -= A (M x NB) B (NB x W) in
// 256-column chunks dealt over T OpenMP threads, 1-thread OpenBLAS each
// (T = 1: one thread). The sizes are measured in interleaved rounds, so
// that the machine's drift over minutes spreads over all of them instead
// of biasing one (docs/archive/MODEL-history.md, run 5).
//   built with the project as build/bin/hplx_model_dgemm_sizes
//   flock -x /tmp/hplx-cpu.lock build/bin/hplx_model_dgemm_sizes [rounds]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/blas_core.hpp"

extern "C" {
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*);
void openblas_set_num_threads(int);
}

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// GFLOPS of the dealt update over at least `min_s` seconds.
double rate(int m, int w, int k, int threads, double min_s) {
  std::vector<double> a(static_cast<size_t>(m) * k, 0.01), b(static_cast<size_t>(k) * w, 0.02),
      c(static_cast<size_t>(m) * w, 1.0);
  const int chunk = 256, chunks = (w + chunk - 1) / chunk;
  auto once = [&] {
#pragma omp parallel for num_threads(threads) schedule(dynamic)
    for (int i = 0; i < chunks; ++i) {
      const int j = i * chunk, n = std::min(chunk, w - j);
      const double minus = -1.0, one = 1.0;
      dgemm_("N", "N", &m, &n, &k, &minus, a.data(), &m, b.data() + static_cast<size_t>(j) * k, &k,
             &one, c.data() + static_cast<size_t>(j) * m, &m);
    }
  };
  once();
  int reps = 0;
  const double t0 = now();
  do {
    once();
    ++reps;
  } while (now() - t0 < min_s);
  return 2.0 * m * w * k * reps / (now() - t0) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  hplx::restart_with_better_blas_core(argv);  // OpenBLAS's kernels, as hplx runs them
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  openblas_set_num_threads(1);
  const int k = 192, w = 2048;
  const int sizes[] = {500, 1000, 2000, 4000, 8000, 12000, 16000};
  std::printf("round  threads  M=%s\n", "500 1000 2000 4000 8000 12000 16000 (GFLOPS)");
  for (int r = 0; r < rounds; ++r)
    for (int threads : {2, 1}) {
      std::printf("%5d  %7d ", r + 1, threads);
      for (int m : sizes) std::printf(" %7.2f", rate(m, w, k, threads, 0.6));
      std::printf("\n");
      std::fflush(stdout);
    }
}
