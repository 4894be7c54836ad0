// FACT alone, as in rocHPL's Fig. 5: an M x NB panel on one process (the
// column is MPI_COMM_SELF, so A1 is the first NB rows and A2 the rest),
// factored with one thread and with an OpenMP team of all threads, for M = NB
// to 64 NB. Prints a markdown table of the medians of 5 runs.
//
//   build/bin/hplx_panel_bench [NB]
//
// The variant is hplx's default, RFACT Crout, PFACT Right, NBMIN 4, NDIV 2.
// A third column times the unthreaded factorization with BLAS's own threads,
// the way FACT runs when it is not overlapped with the update.
#include <cblas.h>
#include <fmt/format.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/blas_core.hpp"
#include "core/timer.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/panel.hpp"

namespace {

using hplx::lu::Factorization;
using hplx::lu::Panel;
using hplx::lu::PanelRows;

constexpr int kRepetitions = 5;

std::vector<double> random_panel(long m, int nb) {
  std::mt19937_64 gen(42);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> a(m * nb);
  for (auto& v : a) v = u(gen);
  return a;
}

// Median seconds of kRepetitions factorizations of `a` (after one untimed
// run that starts the thread pools) with a team of up to `team` threads and
// `blas_threads` threads for BLAS calls made outside the team.
double median_seconds(const std::vector<double>& a, long m, int nb, int team, int blas_threads) {
  Panel p;
  p.jb = nb;
  p.m2 = m - nb;
  p.a2_first = nb;
  const PanelRows rows{nb, 1, 0, nb};
  openblas_set_num_threads(blas_threads);
  std::vector<double> times;
  for (int r = 0; r <= kRepetitions; ++r) {
    p.w.resize(static_cast<long>(a.size()));
    std::copy(a.begin(), a.end(), p.w.begin());
    const double start = hplx::wall_time();
    hplx::lu::factor_stacked_panel(p, rows, Factorization::Crout, Factorization::Right, 4, 2,
                                   MPI_COMM_SELF, team);
    if (r > 0) times.push_back(hplx::wall_time() - start);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double gflops(long m, int nb, double seconds) {
  const double n = nb;
  return (static_cast<double>(m) * n * n - n * n * n / 3.0) / seconds * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  hplx::restart_with_better_blas_core(argv);  // OpenBLAS's kernels, as hplx runs them
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const int nb = argc > 1 ? std::atoi(argv[1]) : 256;
  const int threads = omp_get_max_threads();
  fmt::print(
      "Panel factorization (RFACT C, PFACT R, NBMIN 4, NDIV 2), NB = {}, {} threads, "
      "median of {}\n\n",
      nb, threads, kRepetitions);
  fmt::print(
      "| M | 1 thread (ms) | {0} threads (ms) | speed-up | Gflops 1 | Gflops {0} | "
      "1 thread, BLAS x {0} (ms) |\n",
      threads);
  fmt::print("|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int f : {1, 2, 4, 8, 16, 32, 64}) {
    const long m = static_cast<long>(f) * nb;
    const auto a = random_panel(m, nb);
    const double one = median_seconds(a, m, nb, 1, 1);
    const double team = median_seconds(a, m, nb, threads, 1);
    const double blas = median_seconds(a, m, nb, 1, threads);
    fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.1f} | {:.1f} | {:.2f} |\n", m, one * 1e3,
               team * 1e3, one / team, gflops(m, nb, one), gflops(m, nb, team), blas * 1e3);
  }
  openblas_set_num_threads(threads);
  MPI_Finalize();
  return 0;
}
