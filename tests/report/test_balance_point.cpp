// The balance point on synthetic iteration tables: the first iteration from
// which every update is below FACT + RS, with its share of iterations and flops.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/balance_point.hpp"

namespace hplx::report {
namespace {

// Iteration k with the given update time, FACT + RS split over three parts.
BalanceSample it(double update, double fact_rs, double flops = 1.0) {
  return {.fact_s = fact_rs * 0.5,
          .rs_comm_s = fact_rs * 0.3,
          .rs_copy_s = fact_rs * 0.2,
          .update_s = update,
          .flops = flops};
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
  EXPECT_NE(b->definition.find("update(k) < fact(k) + rs(k)"), std::string::npos);
  EXPECT_NE(b->definition.find("update = update_s, fact = fact_s, rs = rs_comm_s + rs_copy_s"),
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
  std::vector<BalanceSample> its = {
      {.fact_s = 0.5, .rs_comm_s = 0.3, .rs_copy_s = 0.0, .update_s = 1.0, .flops = 1},
      {.fact_s = 0.5, .rs_comm_s = 0.3, .rs_copy_s = 0.3, .update_s = 1.0, .flops = 1}};
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

// Where the queues run behind the host, the host's times are how long it
// took to queue the work: the device's own times count.
TEST(BalancePoint, DeviceTimesWhereTheIterationHasThem) {
  // The host queued FACT in no time and waited 1 s in its update (a full
  // queue, the end's wait); the device's update took 0.2 s, its FACT 0.3 s.
  const BalanceSample s{.fact_s = 0.001,
                        .rs_comm_s = 0.01,
                        .rs_copy_s = 0.002,
                        .update_s = 1.0,
                        .iter_s = 0.35,
                        .device_update_s = 0.2,
                        .device_swap_s = 0.04,
                        .device_fact_s = 0.3};
  const BalanceTimes t = balance_times(s);
  EXPECT_DOUBLE_EQ(t.update_s, 0.2);
  EXPECT_DOUBLE_EQ(t.fact_s, 0.3);
  EXPECT_DOUBLE_EQ(t.rs_s, 0.01 + 0.04);  // the exchange on the host, the swaps on the device
  const auto b = compute_balance_point({s, s});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 0);
  // The same iteration by the host's times: the update hides FACT + RS.
  BalanceSample host = s;
  host.device_update_s = host.device_swap_s = host.device_fact_s = 0;
  EXPECT_FALSE(compute_balance_point({host, host}).has_value());
}

TEST(BalancePoint, RowCopiesFromTheHostWhereTheDeviceTimedNoSwap) {
  // Rows exchanged over MPI: the host packs and waits for them (rs_copy_s).
  const BalanceSample s{.rs_copy_s = 0.25, .device_update_s = 0.3, .device_fact_s = 0.1};
  EXPECT_DOUBLE_EQ(balance_times(s).rs_s, 0.25);
  EXPECT_TRUE(compute_balance_point({s}).has_value());  // 0.3 < 0.1 + 0.25
}

TEST(BalancePoint, FactByDifferenceWhereTheDeviceTimedNone) {
  // A device update and swaps, FACT not timed on the device: FACT is at
  // least what of the iteration they leave (its overrun), or the host's
  // FACT time where that is larger (FACT on the host).
  BalanceSample s{.fact_s = 0.01, .iter_s = 1.0, .device_update_s = 0.45, .device_swap_s = 0.05};
  EXPECT_DOUBLE_EQ(balance_times(s).fact_s, 0.5);
  EXPECT_TRUE(compute_balance_point({s}).has_value());  // 0.45 < 0.5 + 0.05
  s.fact_s = 0.7;
  EXPECT_DOUBLE_EQ(balance_times(s).fact_s, 0.7);
  s.fact_s = 0.01;
  s.iter_s = 0.5;  // the update and swaps fill the iteration: FACT hidden
  EXPECT_DOUBLE_EQ(balance_times(s).fact_s, 0.01);
  EXPECT_FALSE(compute_balance_point({s}).has_value());
}

// The rows of a record, as hplx lu writes and hplx report reads them.
TEST(BalancePoint, FromARecordsIterationsWithAndWithoutDeviceTimes) {
  nlohmann::json rows = nlohmann::json::array();
  for (int k = 0; k < 4; ++k)
    rows.push_back({{"k", k},
                    {"j", 32 * k},
                    {"jb", 32},
                    {"fact_s", 0.001},
                    {"rs_comm_s", 0.0},
                    {"rs_copy_s", 0.0},
                    {"update_s", 0.5},
                    {"iter_s", 0.6},
                    {"flops", 1.0}});
  EXPECT_FALSE(balance_point_of_iterations(rows, 128).has_value());
  for (auto& row : rows) {
    row["device_update_s"] = 0.2;
    row["device_swap_s"] = 0.01;
    row["device_fact_s"] = 0.4;
    row["transfer_s"] = 0.0;
  }
  const auto b = balance_point_of_iterations(rows, 128);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 0);
  // The last iteration's update hides its faster FACT: no balance point.
  rows[3]["device_fact_s"] = 0.1;
  EXPECT_FALSE(balance_point_of_iterations(rows, 128).has_value());
  rows[3]["device_fact_s"] = 0.4;
  rows[1]["device_fact_s"] = 0.1;  // hidden in iteration 1: the point moves past it
  const auto moved = balance_point_of_iterations(rows, 128);
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->iteration, 2);
  // Each panel's flops from j and jb: the first two of four panels of 32
  // of N = 128.
  EXPECT_NEAR(moved->percent_flops,
              100.0 * (panel_flops(128, 0, 32) + panel_flops(128, 32, 32)) / hpl_flops(128), 1e-9);
}

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
