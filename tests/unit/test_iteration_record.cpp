// The per-iteration record's arithmetic: flops per panel add up to netlib's
// count, and the balance point lands where the update stops hiding FACT + RS.
#include <gtest/gtest.h>

#include "lu/iteration_record.hpp"

namespace hplx::lu {
namespace {

// n / nb panels whose update shrinks linearly while FACT + RS stay put.
std::vector<IterationTimes> synthetic(long n, long nb, double fact_plus_rs) {
  std::vector<IterationTimes> r;
  for (long j = 0; j < n; j += nb) {
    IterationTimes it;
    it.k = j / nb;
    it.j = j;
    it.jb = std::min(nb, n - j);
    it.fact = fact_plus_rs / 2;
    it.rs_comm = fact_plus_rs / 4;
    it.rs_copy = fact_plus_rs / 4;
    it.update = 1e-3 * static_cast<double>(n - j) / static_cast<double>(nb);
    r.push_back(it);
  }
  return r;
}

TEST(IterationRecord, PanelFlopsAddUpToNetlibsCount) {
  for (long n : {1L, 7L, 1000L, 12345L}) {
    for (long nb : {1L, 32L, 128L, 5000L}) {
      double sum = 0;
      for (long j = 0; j < n; j += nb) sum += panel_flops(n, j, std::min(nb, n - j));
      const double dn = static_cast<double>(n);
      const double netlib = (2.0 / 3.0) * dn * dn * dn + 1.5 * dn * dn;
      EXPECT_NEAR(sum, netlib, 1e-12 * netlib) << "N=" << n << " NB=" << nb;
    }
  }
}

TEST(IterationRecord, BalancePointIsWhereUpdateStopsHidingFactAndSwap) {
  // update(k) = (100 - k) ms, FACT + RS = 30 ms: update < 30 ms from k = 71 on.
  const auto r = synthetic(100 * 64, 64, 0.030);
  const auto b = find_balance_point(r, 100 * 64);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 71);
  EXPECT_DOUBLE_EQ(b->percent_iterations, 71.0);
  // The first 71 of 100 panels carry 1 - (29/100)^3 of the flops, about 97.6%.
  EXPECT_NEAR(b->percent_flops, 97.6, 0.2);
}

TEST(IterationRecord, OneLateSlowIterationMovesTheBalancePointPastIt) {
  auto r = synthetic(100 * 64, 64, 0.030);
  r[90].update = 1.0;  // a hiccup after the crossing: the update hid FACT + RS again
  const auto b = find_balance_point(r, 100 * 64);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 91);
}

TEST(IterationRecord, NoBalancePointWhenTheUpdateAlwaysHides) {
  auto r = synthetic(10 * 64, 64, 0.0);  // FACT + RS free: nothing to hide
  EXPECT_FALSE(find_balance_point(r, 10 * 64).has_value());
  EXPECT_TRUE(balance_point_json(find_balance_point(r, 10 * 64)).is_null());
  EXPECT_FALSE(find_balance_point({}, 0).has_value());
}

TEST(IterationRecord, BalancePointByTheDevicesClockWhereTheRecordHasIt) {
  // The host only queued the work (its FACT + RS 0, its update a constant
  // 5 ms of queueing); the device's update shrinks as the host's did above
  // and its FACT takes 30 ms on the panel queue: the same point as there.
  auto r = synthetic(100 * 64, 64, 0.0);
  for (IterationTimes& it : r) {
    it.device_update = it.update;
    it.update = 0.005;
    it.device_fact = 0.030;
  }
  const auto b = find_balance_point(r, 100 * 64);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->iteration, 71);
}

TEST(IterationRecord, JsonCarriesRunningRateAndEveryPhase) {
  std::vector<IterationTimes> r = synthetic(4 * 10, 10, 0.01);
  for (std::size_t i = 0; i < r.size(); ++i) {
    r[i].flops = 1e9;
    r[i].elapsed = 0.5 * static_cast<double>(i + 1);
  }
  const nlohmann::json j = iterations_to_json(r, 40);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_DOUBLE_EQ(j[3]["gflops"].get<double>(), 4e9 / 2.0 / 1e9);
  for (const char* key : {"k", "j", "jb", "n_trailing", "local_cols", "fact_s", "bcast_s",
                          "rs_comm_s", "rs_copy_s", "update_s", "wait_s", "iter_s",
                          "bcast_hidden_s", "rs_hidden_s", "flops", "elapsed_s", "gflops"})
    EXPECT_TRUE(j[0].contains(key)) << key;
}

}  // namespace
}  // namespace hplx::lu
