// The swap plan turns jb sequential interchanges into moves; applying the
// plan must give the same rows as applying the interchanges one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "lu/phases/comm/row_swap.hpp"

namespace hplx::lu {
namespace {

TEST(RowSwapPlan, EqualsSequentialInterchanges) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 500; ++trial) {
    const long n = 5 + trial % 60;
    const long k = trial % 3;
    const int jb = static_cast<int>(std::min<long>(1 + trial % 9, n - k));
    std::vector<long> ipiv(jb);
    for (int c = 0; c < jb; ++c) ipiv[c] = std::uniform_int_distribution<long>(k + c, n - 1)(gen);
    std::vector<long> rows(n);
    std::iota(rows.begin(), rows.end(), 0);
    for (int c = 0; c < jb; ++c) std::swap(rows[k + c], rows[ipiv[c]]);

    const RowSwapPlan plan = plan_row_swaps(k, jb, ipiv);
    std::vector<long> applied(n);
    std::iota(applied.begin(), applied.end(), 0);
    for (int r = 0; r < jb; ++r) applied[k + r] = plan.u_source[r];
    for (const auto& m : plan.moves) {
      ASSERT_GE(m.to, k + jb);
      applied[m.to] = k + m.from;
    }
    ASSERT_EQ(applied, rows) << "trial " << trial;
    ASSERT_TRUE(std::is_sorted(plan.moves.begin(), plan.moves.end(),
                               [](const auto& a, const auto& b) { return a.to < b.to; }))
        << "trial " << trial;
  }
}

TEST(RowSwapPlan, NoInterchangeMovesNothing) {
  const RowSwapPlan plan = plan_row_swaps(10, 4, {10, 11, 12, 13});
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(plan.u_source, (std::vector<long>{10, 11, 12, 13}));
}

TEST(RowSwapPlan, MixUsesBinaryExchangeUpToThreshold) {
  TestCase t;
  t.swap = SwapAlgorithm::Mix;
  t.swap_threshold = 64;
  EXPECT_EQ(effective_swap(swap_params(t), 64), SwapAlgorithm::BinaryExchange);
  EXPECT_EQ(effective_swap(swap_params(t), 65), SwapAlgorithm::Long);
  t.swap = SwapAlgorithm::Long;
  EXPECT_EQ(effective_swap(swap_params(t), 1), SwapAlgorithm::Long);
}

}  // namespace
}  // namespace hplx::lu
