// Every panel-factorization variant (RFACT x PFACT x NBMIN x NDIV), with the
// panel's rows spread block-cyclically over all ranks of the job (one
// process column), against LAPACK's dgetrf on the whole panel; and the
// threaded factorization against the unthreaded one.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "device/device.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/panel.hpp"
#include "tests/device/backends.hpp"

extern "C" void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv,
                        int* info);

namespace hplx::lu {
namespace {

struct Case {
  long m;
  int jb, nb, nbmin, ndiv;
};

std::vector<double> random_panel(long m, int jb, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> a(m * jb);
  for (auto& v : a) v = u(gen);
  return a;
}

// Factors the m x jb panel distributed over the ranks of `comm` (nb-row
// blocks) with up to `threads` threads per rank and returns the whole
// factored panel (m x jb) and the pivots.
void factor_distributed(const std::vector<double>& full, const Case& c, Factorization rfact,
                        Factorization pfact, MPI_Comm comm, std::vector<double>& out,
                        std::vector<long>& ipiv, long& info, int threads = 1,
                        const FactDeviceGemm& device_gemm = {}) {
  int me = 0, np = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &np);
  const long mp = local_count(c.m, c.nb, me, np);
  Panel p;
  p.k = 0;
  p.jb = c.jb;
  p.owner_row = 0;
  p.a2_first = me == 0 ? c.jb : 0;
  p.m2 = mp - p.a2_first;
  if (device_gemm.queue) p.w.bind(device_gemm.queue->backend());
  p.w.assign(p.ld() * c.jb, 0.0);
  for (long j = 0; j < c.jb; ++j) {
    for (long r = 0; r < c.jb; ++r) p.a1()[r + j * p.ld()] = full[r + j * c.m];
    for (long i = 0; i < p.m2; ++i) {
      const long g = local_to_global(p.a2_first + i, c.nb, me, np);
      p.a2()[i + j * p.ld()] = full[g + j * c.m];
    }
  }
  factor_stacked_panel(p, PanelRows{c.nb, np, me, p.a2_first}, rfact, pfact, c.nbmin, c.ndiv, comm,
                       threads, {}, device_gemm);
  // Reassemble: A1 from anyone, A2 rows from their owners (sum of disjoint parts).
  std::vector<double> mine(c.m * c.jb, 0.0);
  for (long j = 0; j < c.jb; ++j) {
    if (me == 0)
      for (long r = 0; r < c.jb; ++r) mine[r + j * c.m] = p.a1()[r + j * p.ld()];
    for (long i = 0; i < p.m2; ++i) {
      const long g = local_to_global(p.a2_first + i, c.nb, me, np);
      mine[g + j * c.m] = p.a2()[i + j * p.ld()];
    }
  }
  out.assign(c.m * c.jb, 0.0);
  MPI_Allreduce(mine.data(), out.data(), static_cast<int>(out.size()), MPI_DOUBLE, MPI_SUM, comm);
  ipiv = p.ipiv;
  info = p.info;
}

class PanelVariants : public ::testing::TestWithParam<std::tuple<Factorization, Factorization>> {};

TEST_P(PanelVariants, MatchesLapackDgetrfOnEveryRankCount) {
  const auto [rfact, pfact] = GetParam();
  const Case cases[] = {{40, 8, 8, 2, 2},   {97, 16, 16, 4, 2},  {64, 13, 16, 1, 3},
                        {33, 32, 32, 4, 2}, {200, 24, 32, 8, 4}, {7, 7, 7, 16, 2},
                        {150, 20, 20, 3, 2}};
  unsigned seed = 1;
  for (const Case& c : cases) {
    const auto full = random_panel(c.m, c.jb, seed++);
    std::vector<double> ours;
    std::vector<long> ipiv;
    long info = -1;
    factor_distributed(full, c, rfact, pfact, MPI_COMM_WORLD, ours, ipiv, info);

    std::vector<double> ref = full;
    std::vector<int> rpiv(c.jb);
    int m = static_cast<int>(c.m), n = c.jb, lda = m, rinfo = 0;
    dgetrf_(&m, &n, ref.data(), &lda, rpiv.data(), &rinfo);
    ASSERT_EQ(rinfo, 0);
    EXPECT_EQ(info, 0);
    for (int j = 0; j < c.jb; ++j) {
      ASSERT_EQ(ipiv[j], rpiv[j] - 1) << "pivot of column " << j << " m=" << c.m << " jb=" << c.jb;
    }
    double err = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) err = std::max(err, std::fabs(ref[i] - ours[i]));
    EXPECT_LT(err, 1e-11) << "m=" << c.m << " jb=" << c.jb << " nbmin=" << c.nbmin;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllRfactPfact, PanelVariants,
    ::testing::Combine(
        ::testing::Values(Factorization::Left, Factorization::Crout, Factorization::Right),
        ::testing::Values(Factorization::Left, Factorization::Crout, Factorization::Right)));

TEST(PanelFactor, ZeroColumnIsReportedNotCrashed) {
  const Case c{30, 6, 6, 2, 2};
  auto full = random_panel(c.m, c.jb, 99);
  for (long i = 0; i < c.m; ++i) full[i + 2 * c.m] = 0.0;  // column 2 all zero
  std::vector<double> ours;
  std::vector<long> ipiv;
  long info = 0;
  factor_distributed(full, c, Factorization::Crout, Factorization::Right, MPI_COMM_WORLD, ours,
                     ipiv, info);
  EXPECT_EQ(info, 3);  // 1 + the global column of the first zero pivot
  for (double v : ours) EXPECT_TRUE(std::isfinite(v));
}

// The result of one factorization, as every rank sees it.
struct Factored {
  std::vector<double> lu;
  std::vector<long> ipiv;
  long info = -1;
};

Factored factor_with(const std::vector<double>& full, const Case& c, Factorization rfact,
                     Factorization pfact, int threads) {
  Factored f;
  factor_distributed(full, c, rfact, pfact, MPI_COMM_WORLD, f.lu, f.ipiv, f.info, threads);
  return f;
}

// Largest |x - y|, where NaN matches NaN and nothing else.
double max_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      if (std::isnan(x[i]) != std::isnan(y[i])) return std::numeric_limits<double>::infinity();
    } else {
      d = std::max(d, std::fabs(x[i] - y[i]));
    }
  }
  return d;
}

double max_magnitude(const std::vector<double>& a) {
  double m = 0;
  for (double v : a)
    if (!std::isnan(v)) m = std::max(m, std::fabs(v));
  return m;
}

// The threaded factorization of `full` with 2, 3 and 4 threads against the
// unthreaded one on the same data: the same pivots, info and, up to
// rounding, values.
void expect_threads_match_one(const std::vector<double>& full, const Case& c, Factorization rfact,
                              Factorization pfact) {
  const Factored one = factor_with(full, c, rfact, pfact, 1);
  const double tolerance = 1e-12 * std::max(1.0, max_magnitude(full));
  for (int threads : {2, 3, 4}) {
    const Factored many = factor_with(full, c, rfact, pfact, threads);
    const auto where = ::testing::Message()
                       << "threads=" << threads << " m=" << c.m << " jb=" << c.jb
                       << " nbmin=" << c.nbmin << " ndiv=" << c.ndiv;
    ASSERT_EQ(many.ipiv, one.ipiv) << where;
    EXPECT_EQ(many.info, one.info) << where;
    EXPECT_LE(max_difference(many.lu, one.lu), tolerance) << where;
  }
}

class ThreadedPanel : public ::testing::TestWithParam<std::tuple<Factorization, Factorization>> {
 protected:
  void SetUp() override {
    // Otherwise every comparison below would be one thread against itself.
    int team = 0;
#pragma omp parallel num_threads(4)
    {
#pragma omp single
      team = omp_get_num_threads();
    }
    ASSERT_EQ(team, 4) << "the OpenMP runtime does not give a team of 4 threads";
  }
};

TEST_P(ThreadedPanel, GivesTheSamePivotsAndValuesAsOneThread) {
  const auto [rfact, pfact] = GetParam();
  unsigned seed = 1000;
  for (int jb : {1, 7, 32}) {
    // Rows below A1 in the whole panel: none, less than a tile, several
    // tiles with a short last one, and whole tiles only (nb = jb, so each
    // rank's share varies with the rank count).
    for (long m2 : {0L, 5L, 3L * jb + 5, 10L * jb}) {
      for (int nbmin : {1, 4}) {
        for (int ndiv : {2, 3}) {
          const Case c{jb + m2, jb, jb, nbmin, ndiv};
          expect_threads_match_one(random_panel(c.m, c.jb, seed++), c, rfact, pfact);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST_P(ThreadedPanel, BreaksTiesAndNaNsLikeOneThread) {
  const auto [rfact, pfact] = GetParam();
  // Small integers make equal magnitudes common, so many pivot searches are
  // decided by the tie rule, and the two NaNs in the last column (in A2
  // tiles far apart) by the NaN rule.
  const Case c{8 + 80, 8, 8, 2, 2};
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> u(-2, 2);
  std::vector<double> full(c.m * c.jb);
  for (auto& v : full) v = u(gen);
  full[50 + (c.jb - 1) * c.m] = std::numeric_limits<double>::quiet_NaN();
  full[20 + (c.jb - 1) * c.m] = std::numeric_limits<double>::quiet_NaN();
  expect_threads_match_one(full, c, rfact, pfact);
}

INSTANTIATE_TEST_SUITE_P(
    AllRfactPfact, ThreadedPanel,
    ::testing::Combine(
        ::testing::Values(Factorization::Left, Factorization::Crout, Factorization::Right),
        ::testing::Values(Factorization::Left, Factorization::Crout, Factorization::Right)));

// GPU DGEMM inside FACT (seed 003 5.1.2) on every device backend present
// (the emulated device here): the recursion levels at least `min_cols` wide
// update on the device, through W's device side, and the factorization is
// the host's: the same pivots, values equal up to rounding, on every rank
// count and with a team of threads. Levels narrower than the threshold stay
// on the host (no device GEMM at min_cols > jb).
TEST(DeviceGemmPanel, FactorsLikeTheHostWithTheWideLevelsOnTheDevice) {
  std::vector<device::BackendKind> kinds;
  for (device::BackendKind k : test::contract_backends())
    if (k != device::BackendKind::Host) kinds.push_back(k);
  if (kinds.empty()) GTEST_SKIP() << "no device backend here";
  for (device::BackendKind kind : kinds) {
    auto dev = device::make_device(kind);
    unsigned seed = 500;
    for (Factorization rfact : {Factorization::Left, Factorization::Crout, Factorization::Right}) {
      for (Factorization pfact : {Factorization::Left, Factorization::Right}) {
        for (const Case& c :
             {Case{200, 32, 32, 4, 2}, Case{90, 24, 24, 2, 3}, Case{40, 40, 40, 8, 2}}) {
          const auto full = random_panel(c.m, c.jb, seed++);
          const Factored host = factor_with(full, c, rfact, pfact, 1);
          const double tolerance = 1e-12 * std::max(1.0, max_magnitude(full));
          for (int threads : {1, 2}) {
            for (long min_cols : {8L, 16L, 64L}) {
              long calls = 0;
              Factored on;
              factor_distributed(full, c, rfact, pfact, MPI_COMM_WORLD, on.lu, on.ipiv, on.info,
                                 threads, FactDeviceGemm{&dev->transfer(), min_cols, &calls});
              const auto where = ::testing::Message()
                                 << device::name_of(kind) << " m=" << c.m << " jb=" << c.jb
                                 << " threads=" << threads << " min_cols=" << min_cols;
              ASSERT_EQ(on.ipiv, host.ipiv) << where;
              EXPECT_EQ(on.info, host.info) << where;
              EXPECT_LE(max_difference(on.lu, host.lu), tolerance) << where;
              if (min_cols <= c.jb)
                EXPECT_GT(calls, 0) << where;
              else
                EXPECT_EQ(calls, 0) << where;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace hplx::lu
