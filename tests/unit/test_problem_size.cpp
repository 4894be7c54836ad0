// Sizing of the default `hplx lu` problem and the per-rank memory estimate.
#include "core/error.hpp"
#include "device/dgemm_probe.hpp"
#include "lu/kernels/fact_kernels.hpp"
#include "lu/run/problem_size.hpp"

#include <cblas.h>
#include <gtest/gtest.h>

#include <limits>

#include <cmath>

namespace {

using hplx::lu::choose_default_problem;
using hplx::lu::DefaultProblem;
using hplx::lu::kLuEfficiency;
using hplx::lu::kMemoryLimitFraction;
using hplx::lu::lu_flops;
using hplx::lu::lu_memory_bytes;

constexpr long long kGiB = 1LL << 30;
constexpr long long kTiB = kGiB << 10;

double seconds_for(long n, double gflops) {
  return lu_flops(n) / (gflops * 1e9 * kLuEfficiency);
}

TEST(ProblemSize, FlopCountIsNetlibs) {
  EXPECT_DOUBLE_EQ(lu_flops(1000), 2.0 / 3.0 * 1e9 + 1.5 * 1e6);
  EXPECT_DOUBLE_EQ(lu_flops(0), 0.0);
}

TEST(ProblemSize, TinyMemoryGivesSmallProblem) {
  const DefaultProblem p = choose_default_problem(1000.0, 64LL << 20, 1);
  EXPECT_GE(p.n, 192);
  EXPECT_LE(p.n, 2528);  // 8.4 n^2 <= 0.8 * 64 MiB -> n <= ~2528
  EXPECT_LE(static_cast<double>(p.memory_needed_bytes), kMemoryLimitFraction * (64LL << 20));
  EXPECT_NE(p.reason.find("capped by memory"), std::string::npos) << p.reason;
  EXPECT_LT(p.predicted_seconds, 60.0);
}

TEST(ProblemSize, NoRoomAtAllStillGivesOneBlock) {
  const DefaultProblem p = choose_default_problem(10.0, 1024, 1);
  EXPECT_EQ(p.n, 192);
  EXPECT_NE(p.reason.find("smallest"), std::string::npos) << p.reason;
  EXPECT_NE(p.reason.find("over the limit"), std::string::npos) << p.reason;
}

TEST(ProblemSize, GrowsWithRate) {
  long previous = 0;
  for (double gflops : {1.0, 5.0, 20.0, 80.0, 320.0, 1280.0}) {
    const DefaultProblem p = choose_default_problem(gflops, kTiB, 4);
    EXPECT_GT(p.n, previous) << gflops;
    previous = p.n;
  }
}

TEST(ProblemSize, MultipleOfNb) {
  for (int nb : {1, 32, 100, 192, 256, 384}) {
    for (double gflops : {3.0, 42.1, 900.0}) {
      const DefaultProblem p = choose_default_problem(gflops, 16 * kGiB, 2, 60.0, nb);
      EXPECT_EQ(p.n % nb, 0) << nb << " " << gflops;
      EXPECT_GE(p.n, nb);
      EXPECT_EQ(p.nb, nb);
    }
  }
}

TEST(ProblemSize, NeverExceedsMemoryLimit) {
  for (long long mem = 256LL << 20; mem <= 256 * kGiB; mem = mem * 3 / 2) {
    for (double gflops : {10.0, 1000.0, 100000.0}) {
      for (int nprocs : {1, 4, 64}) {
        const DefaultProblem p = choose_default_problem(gflops, mem, nprocs);
        EXPECT_LE(static_cast<double>(p.memory_needed_bytes), kMemoryLimitFraction * mem)
            << mem << " " << gflops << " " << nprocs;
        EXPECT_EQ(p.memory_available_bytes, mem);
        // Memory bound: the next multiple of nb would not fit.
        if (p.predicted_seconds < 60.0 && seconds_for(p.n + 192, gflops) <= 60.0) {
          EXPECT_GT(static_cast<double>(hplx::lu::default_problem_bytes(p.n + 192, 192, nprocs)),
                    kMemoryLimitFraction * mem);
        }
      }
    }
  }
}

TEST(ProblemSize, TargetTimeIsRespected) {
  for (double target : {10.0, 60.0, 300.0}) {
    for (double gflops : {5.0, 42.1, 2000.0}) {
      const DefaultProblem p = choose_default_problem(gflops, 64 * kTiB, 1, target);
      EXPECT_NEAR(p.predicted_seconds, seconds_for(p.n, gflops), 1e-9 * target);
      EXPECT_LE(p.predicted_seconds, target);
      EXPECT_GT(seconds_for(p.n + p.nb, gflops), target);  // largest that fits the time
      EXPECT_GT(p.predicted_seconds, 0.5 * target);        // rounding to nb costs little
      EXPECT_EQ(p.reason.find("capped"), std::string::npos) << p.reason;
    }
  }
}

TEST(ProblemSize, ReasonIsOneReadableSentence) {
  const DefaultProblem p = choose_default_problem(42.1, 18 * kGiB, 1);
  EXPECT_EQ(p.reason.rfind("N = " + std::to_string(p.n) + ":", 0), 0u) << p.reason;
  for (const char* part : {"DGEMM probe 42.1 Gflop/s", "x 0.85 efficiency", "-> ~", " s;",
                           "GiB of 18.0 GiB available", "(limit 80%)"}) {
    EXPECT_NE(p.reason.find(part), std::string::npos) << part << " in: " << p.reason;
  }
  EXPECT_EQ(p.reason.find('\n'), std::string::npos);
}

TEST(ProblemSize, RejectsNonsense) {
  EXPECT_THROW(choose_default_problem(0.0, kGiB, 1), hplx::UsageError);
  EXPECT_THROW(choose_default_problem(NAN, kGiB, 1), hplx::UsageError);
  EXPECT_THROW(choose_default_problem(10.0, 0, 1), hplx::UsageError);
  EXPECT_THROW(choose_default_problem(10.0, kGiB, 0), hplx::UsageError);
  EXPECT_THROW(choose_default_problem(10.0, kGiB, 1, -1.0), hplx::UsageError);
  EXPECT_THROW(choose_default_problem(10.0, kGiB, 1, 60.0, 0), hplx::UsageError);
  EXPECT_THROW(lu_memory_bytes(100, 0, 1, 1), hplx::UsageError);
  EXPECT_THROW(lu_memory_bytes(100, 8, 0, 1), hplx::UsageError);
}

TEST(LuMemory, SingleProcessIsExact) {
  const long n = 1000;
  const int nb = 64;
  // Device FACT's workspace: A1's block, the pivot search's candidates,
  // the staged and the best candidate rows.
  const long long fact =
      nb * nb + hplx::lu::kernels::PivotSearch::of(n + nb).doubles() + 2 * (nb + 2);
  const long long doubles = n * (n + 1) + (n + nb) * nb * 3LL + nb * (n + 1LL) + fact;
  EXPECT_EQ(lu_memory_bytes(n, nb, 1, 1), doubles * 8);
  EXPECT_EQ(lu_memory_bytes(0, nb, 1, 1), 0);
}

// N x N doubles pass 2^63 bytes near N = 1.07e9: the count saturates there
// (the preflight then says "more than 8 EiB") instead of wrapping to a
// number small enough to pass it.
TEST(LuMemory, SaturatesInsteadOfOverflowing) {
  constexpr long long most = std::numeric_limits<long long>::max();
  const long n = 1000000000;  // 8e18 bytes: still counted exactly enough
  EXPECT_GT(lu_memory_bytes(n, 192, 1, 1), 8'000'000'000'000'000'000LL);
  EXPECT_LT(lu_memory_bytes(n, 192, 1, 1), most);
  for (long big : {4'000'000'000L, 3'037'000'500L, 9'000'000'000'000'000'000L,
                   std::numeric_limits<long>::max()})
    EXPECT_EQ(lu_memory_bytes(big, 192, 1, 1), most) << big;
  EXPECT_EQ(lu_memory_bytes(4'000'000'000L * 64, 192, 8, 8), most);
}

TEST(LuMemory, MonotoneInN) {
  for (auto [p, q] : {std::pair{1, 1}, {2, 1}, {1, 3}, {2, 3}, {4, 4}}) {
    long long previous = 0;
    for (long n = 1; n <= 3000; n += 7) {
      const long long bytes = lu_memory_bytes(n, 64, p, q);
      EXPECT_GE(bytes, previous) << n << " on " << p << "x" << q;
      previous = bytes;
    }
  }
}

TEST(LuMemory, ApproachesMatrixShareForLargeN) {
  const long n = 1000000;
  for (auto [p, q] : {std::pair{1, 1}, {2, 2}, {2, 3}, {8, 8}}) {
    const double share = 8.0 * n * n / (p * q);
    const double bytes = static_cast<double>(lu_memory_bytes(n, 192, p, q));
    EXPECT_GE(bytes, share);
    EXPECT_NEAR(bytes / share, 1.0, 0.02) << p << "x" << q;
  }
}

TEST(Probe, DgemmRateIsPositiveAndRestoresThreads) {
  const int before = openblas_get_num_threads();
  const double gflops = hplx::device::probe_dgemm_gflops(1);
  EXPECT_GT(gflops, 0.05);
  EXPECT_LT(gflops, 1e5);
  EXPECT_EQ(openblas_get_num_threads(), before);
}

}  // namespace

// A device backend's default N: the largest multiple of NB whose test fits
// the given share of the memory, checked against lu_memory_bytes itself.
TEST(LargestFittingN, IsTheLargestMultipleOfNbThatFits) {
  for (auto [p, q] : {std::pair{1, 1}, {2, 1}, {2, 2}, {4, 2}}) {
    for (long long bytes : {80LL << 20, 1LL << 30, 80LL << 30}) {
      const int nb = 384;
      const long n = hplx::lu::largest_fitting_n(bytes, 0.85, nb, p, q);
      ASSERT_GT(n, 0);
      EXPECT_EQ(n % nb, 0);
      EXPECT_LE(lu_memory_bytes(n, nb, p, q), 0.85 * bytes) << n;
      EXPECT_GT(lu_memory_bytes(n + nb, nb, p, q), 0.85 * bytes) << n;
    }
  }
  // An 80 GiB H100 on one rank: N a little below sqrt(0.85 * 80 GiB / 8) =
  // 95534 (the panel and U workspace, and NB steps): within 2%.
  const long h100 = hplx::lu::largest_fitting_n(80LL << 30, 0.85, 384, 1, 1);
  const double matrix_only = std::sqrt(0.85 * (80LL << 30) / 8.0);
  EXPECT_LE(static_cast<double>(h100), matrix_only);
  EXPECT_GT(static_cast<double>(h100), 0.98 * matrix_only);
  EXPECT_EQ(hplx::lu::largest_fitting_n(1000, 0.85, 384, 1, 1), 0);  // not one block
  EXPECT_EQ(hplx::lu::largest_fitting_n(1LL << 30, 0.0, 384, 1, 1), 0);
}
