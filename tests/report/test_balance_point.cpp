// The balance point on synthetic iteration tables: the first iteration from
// which every update is below FACT + RS, with its share of iterations and flops.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/balance_point.hpp"

namespace hplx::report {
namespace {

// Iteration k with the given update time, FACT + RS split over three parts.
BalanceSample it(double update, double fact_rs, double flops = 1.0) {
  return {fact_rs * 0.5, fact_rs * 0.3, fact_rs * 0.2, update, flops};
}

TEST(BalancePoint, FirstIterationOfTheSuffixWhereUpdateIsBelowFactPlusSwap) {
  std::vector<BalanceSample> its;
  for (int k = 0; k < 10; ++k) its.push_back(it(k < 6 ? 5.0 : 0.5, 1.0, 10.0 - k));
  const auto b = compute_balance_point(its);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 6);
  EXPECT_DOUBLE_EQ(b->percent_iterations, 60.0);
  // flops 10+9+...+5 = 45 of 55.
  EXPECT_NEAR(b->percent_flops, 100.0 * 45.0 / 55.0, 1e-12);
  EXPECT_NE(b->definition.find("update_s(k) < fact_s(k) + rs_comm_s(k) + rs_copy_s(k)"),
            std::string::npos);
}

TEST(BalancePoint, AnEarlyDipDoesNotCountOnlyTheLastCrossing) {
  // Update falls below at k = 2 but rises again at k = 4: the point is k = 5.
  std::vector<BalanceSample> its = {it(5, 1), it(5, 1),   it(0.5, 1), it(0.5, 1),
                                    it(2, 1), it(0.5, 1), it(0.1, 1), it(0.0, 1)};
  const auto b = compute_balance_point(its);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 5);
  EXPECT_DOUBLE_EQ(b->percent_iterations, 100.0 * 5 / 8);
  EXPECT_DOUBLE_EQ(b->percent_flops, 100.0 * 5 / 8);  // equal flops per iteration
}

TEST(BalancePoint, EveryRowSwapAndFactPartCounts) {
  // update 1.0 against fact 0.5 + comm 0.3 + copy 0.3 = 1.1: below only with the copy.
  std::vector<BalanceSample> its = {{0.5, 0.3, 0.0, 1.0, 1}, {0.5, 0.3, 0.3, 1.0, 1}};
  const auto b = compute_balance_point(its);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 1);
}

TEST(BalancePoint, EqualTimesAreNotBelow) {
  std::vector<BalanceSample> its = {it(2, 1), it(1, 1)};
  EXPECT_FALSE(compute_balance_point(its).has_value());
}

TEST(BalancePoint, NoneWhenTheUpdateNeverFallsBelow) {
  std::vector<BalanceSample> its;
  for (int k = 0; k < 5; ++k) its.push_back(it(3, 1));
  EXPECT_FALSE(compute_balance_point(its).has_value());
  EXPECT_FALSE(compute_balance_point({}).has_value());
}

TEST(BalancePoint, ZeroWhenTheUpdateIsAlwaysBelow) {
  std::vector<BalanceSample> its = {it(0.1, 1, 5), it(0.1, 1, 3)};
  const auto b = compute_balance_point(its);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 0);
  EXPECT_DOUBLE_EQ(b->percent_iterations, 0.0);
  EXPECT_DOUBLE_EQ(b->percent_flops, 0.0);
}

}  // namespace
}  // namespace hplx::report

namespace hplx::report {
namespace {

TEST(BalancePoint, PanelFlopsAddUpToNetlibsCount) {
  for (long n : {1000L, 1001L, 12000L}) {
    double sum = 0;
    for (long j = 0; j < n; j += 128) sum += panel_flops(n, j, std::min(128L, n - j));
    const double netlib = 2.0 / 3.0 * n * n * static_cast<double>(n) + 1.5 * n * n;
    EXPECT_NEAR(sum / netlib, 1.0, 1e-12) << n;
  }
  // The first panel of N = 12000, NB = 128 does about 3.2% of the flops.
  EXPECT_NEAR(panel_flops(12000, 0, 128) / (2.0 / 3.0 * 12000.0 * 12000.0 * 12000.0), 0.0318, 5e-4);
}

}  // namespace
}  // namespace hplx::report
