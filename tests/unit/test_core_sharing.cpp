// Seed 000's core time-sharing formula: root cores, the pool cut by process
// row, T = 1 + (C - pq) / p threads, and every FACT on p + (C - pq) cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "core/core_sharing.hpp"
#include "core/error.hpp"

namespace hplx {
namespace {

std::vector<int> cpus(int c) {
  std::vector<int> v(c);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(CoreSharing, FrontierNodeTwoByFour) {
  // The paper's example: a 2 x 4 grid on a 64-core node.
  std::set<int> roots;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 4; ++c) {
      const CoreShare s = share_cores(cpus(64), 2, 4, r, c);
      EXPECT_EQ(s.pool.size(), 28u);
      EXPECT_EQ(s.fact_threads, 29);   // 1 + (64 - 8) / 2
      EXPECT_EQ(s.update_threads, 8);  // 1 + 56 / 8: the row's pool shared by its 4 ranks
      EXPECT_EQ(s.cpus.size(), 29u);
      roots.insert(s.root_cpu);
      // The row's pool is the same for the row's ranks and holds no root.
      EXPECT_EQ(s.pool, share_cores(cpus(64), 2, 4, r, 0).pool);
      for (int p : s.pool) EXPECT_GE(p, 8);
    }
  }
  EXPECT_EQ(roots.size(), 8u);
  // The two rows' pools are disjoint, so the two ranks of a panel's process
  // column factor on P + (C - PQ) = 58 distinct cores.
  const CoreShare a = share_cores(cpus(64), 2, 4, 0, 1), b = share_cores(cpus(64), 2, 4, 1, 1);
  std::set<int> fact(a.cpus.begin(), a.cpus.end());
  fact.insert(b.cpus.begin(), b.cpus.end());
  EXPECT_EQ(fact.size(), 58u);
}

TEST(CoreSharing, ColumnGridIsAPartitionOfTheCores) {
  // P x 1: every rank factors at once, so each just gets its own cores.
  std::set<int> all;
  for (int r = 0; r < 4; ++r) {
    const CoreShare s = share_cores(cpus(16), 4, 1, r, 0);
    EXPECT_EQ(s.fact_threads, 4);
    EXPECT_EQ(s.update_threads, 4);
    for (int c : s.cpus) EXPECT_TRUE(all.insert(c).second) << "cpu " << c << " shared";
  }
  EXPECT_EQ(all.size(), 16u);
}

TEST(CoreSharing, RowGridSharesThePoolMost) {
  // 1 x Q: one pool for everyone; FACT gets all the spare cores.
  const CoreShare s = share_cores(cpus(8), 1, 2, 0, 1);
  EXPECT_EQ(s.root_cpu, 1);
  EXPECT_EQ(s.fact_threads, 7);
  EXPECT_EQ(s.update_threads, 4);  // 1 + 6 / 2
  EXPECT_EQ(s.cpus, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
}

TEST(CoreSharing, OneRankPerCoreLeavesNoPool) {
  const CoreShare s = share_cores(cpus(2), 1, 2, 0, 0);
  EXPECT_TRUE(s.pool.empty());
  EXPECT_EQ(s.fact_threads, 1);
  EXPECT_EQ(s.update_threads, 1);
}

TEST(CoreSharing, MoreRanksThanCoresIsRefused) {
  try {
    share_cores(cpus(2), 2, 2, 0, 0);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("4 ranks of the grid on 2 cpus"), std::string::npos);
  }
}

}  // namespace
}  // namespace hplx
