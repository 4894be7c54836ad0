// The LU solve on one process against LAPACK's dgesv, on matrices that are
// not HPL's: random, graded (needs pivoting, ill-conditioned), and one
// whose diagonal is zero.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/grid.hpp"
#include "lu/local_matrix.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "tests/device/backends.hpp"
#include "tests/mpi/lu_context.hpp"

extern "C" void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv,
                       double* b, const int* ldb, int* info);

namespace hplx::lu {
namespace {

// FACT on the host and on the device's queue (--fact-on).
constexpr FactOn kFactOn[] = {FactOn::Host, FactOn::Device};

// The LU solve on each backend compiled in (a contract test).
class LuVsLapack : public testing::TestWithParam<device::BackendKind> {
 protected:
  const Context& ctx() const { return test::test_context(GetParam()); }

  // [A | b] (n x (n+1), column-major) into a local matrix on a 1x1 grid.
  void load(LocalMatrix& a, const std::vector<double>& ab, long n) const {
    device::Queue& q = ctx().device().compute();
    device::copy_matrix(q, n, n + 1, ab.data(), n, a.data(), a.lda());
    q.synchronize();
  }

  // Solves [A | b] with hplx on a 1x1 grid.
  std::vector<double> hplx_solve(const std::vector<double>& ab, long n, int nb,
                                 Factorization rfact = Factorization::Crout,
                                 FactOn fact_on = FactOn::Host) const {
    ProcessGrid grid(MPI_COMM_SELF, 1, 1, GridOrder::RowMajor);
    LocalMatrix a(ctx().device(), n, nb, grid);
    load(a, ab, n);
    TestCase t;
    t.n = n;
    t.nb = nb;
    t.rfact = rfact;
    t.schedule.fact_on = fact_on;
    return pdgesv(ctx(), a, t, grid).x;
  }
};

std::vector<double> lapack_solve(std::vector<double> ab, long n) {
  std::vector<double> b(ab.begin() + n * n, ab.end());
  std::vector<int> ipiv(n);
  int nn = static_cast<int>(n), one = 1, info = 0;
  dgesv_(&nn, &one, ab.data(), &nn, ipiv.data(), b.data(), &nn, &info);
  EXPECT_EQ(info, 0);
  return b;
}

double rel_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    num = std::max(num, std::fabs(x[i] - y[i]));
    den = std::max(den, std::fabs(y[i]));
  }
  return num / den;
}

std::vector<double> random_system(long n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> ab(n * (n + 1));
  for (auto& v : ab) v = u(gen);
  return ab;
}

TEST_P(LuVsLapack, RandomSystemsAgreeWithDgesv) {
  for (long n : {1L, 2L, 10L, 77L, 200L}) {
    for (int nb : {1, 8, 32, 500}) {
      const auto ab = random_system(n, static_cast<unsigned>(n * 1000 + nb));
      for (FactOn on : kFactOn)
        EXPECT_LT(rel_diff(hplx_solve(ab, n, nb, Factorization::Crout, on), lapack_solve(ab, n)),
                  1e-10)
            << "n=" << n << " nb=" << nb << " FACT on the " << name_of(on);
    }
  }
}

TEST_P(LuVsLapack, GradedIllConditionedSystemAgreesWithinConditioning) {
  // Columns scaled from 1 to 1e-9 and rows shuffled: condition ~1e9, and
  // without row interchanges the factorization would blow up.
  const long n = 120;
  auto ab = random_system(n, 42);
  for (long j = 0; j < n; ++j) {
    const double s = std::pow(10.0, -9.0 * j / (n - 1));
    for (long i = 0; i < n; ++i) ab[i + j * n] *= s;
  }
  for (int v = 0; v < 6; ++v) {
    const Factorization f = static_cast<Factorization>(v % 3);
    const auto x = hplx_solve(ab, n, 16, f, kFactOn[v / 3]);
    const auto ref = lapack_solve(ab, n);
    // Backward error: ||b - A x|| relative to ||A|| ||x||, near eps for a stable solve.
    double r = 0, anorm = 0, xnorm = 0;
    for (long i = 0; i < n; ++i) {
      double s = ab[i + n * n], row = 0;
      for (long j = 0; j < n; ++j) s -= ab[i + j * n] * x[j], row += std::fabs(ab[i + j * n]);
      r = std::max(r, std::fabs(s));
      anorm = std::max(anorm, row);
    }
    for (double v : x) xnorm = std::max(xnorm, std::fabs(v));
    EXPECT_LT(r / (anorm * xnorm * 1.11e-16 * n), 16.0);
    EXPECT_LT(rel_diff(x, ref), 1e-4);  // forward error bounded by cond * eps
  }
}

TEST_P(LuVsLapack, ZeroDiagonalNeedsPivotingAndWorks) {
  const long n = 40;
  std::vector<double> ab(n * (n + 1), 0.0);
  for (long i = 0; i < n; ++i) {
    ab[i + (n - 1 - i) * n] = 1.0 + i;  // anti-diagonal
    ab[i + n * n] = static_cast<double>(i);
  }
  for (FactOn on : kFactOn)
    EXPECT_LT(rel_diff(hplx_solve(ab, n, 8, Factorization::Crout, on), lapack_solve(ab, n)), 1e-14)
        << "FACT on the " << name_of(on);
}

TEST_P(LuVsLapack, SingularMatrixIsReportedNotCrashed) {
  const long n = 20;
  auto ab = random_system(n, 5);
  for (long i = 0; i < n; ++i) ab[i + 4 * n] = ab[i + 3 * n];  // column 4 == column 3
  for (long i = 0; i < n; ++i) ab[i + 4 * n] = 0.0;            // and then zero
  ProcessGrid grid(MPI_COMM_SELF, 1, 1, GridOrder::RowMajor);
  for (FactOn on : kFactOn) {
    LocalMatrix a(ctx().device(), n, 8, grid);
    load(a, ab, n);
    TestCase t;
    t.n = n;
    t.nb = 8;
    t.depth = 1;  // FACT beside the update: on a device, on the transfer queue
    t.schedule.fact_on = on;
    // On the device with one process the info never leaves it until the end.
    EXPECT_EQ(pdgesv(ctx(), a, t, grid).info, 5) << "FACT on the " << name_of(on);
  }
}

HPLX_INSTANTIATE_OVER_BACKENDS(LuVsLapack);

}  // namespace
}  // namespace hplx::lu
