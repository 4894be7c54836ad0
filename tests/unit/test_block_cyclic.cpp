// 2D block-cyclic index arithmetic against brute-force enumeration.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "lu/block_cyclic.hpp"
#include "lu/update_work.hpp"

namespace hplx::lu {
namespace {

const long kSizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 127, 129, 1000};
const int kBlocks[] = {1, 2, 3, 4, 5, 7, 8, 16, 64, 100, 128, 2000};
const int kProcs[] = {1, 2, 3, 4, 5, 7, 8};

TEST(BlockCyclic, LocalCountSumsToN) {
  for (long n : kSizes) {
    for (int nb : kBlocks) {
      for (int np : kProcs) {
        long total = 0;
        for (int p = 0; p < np; ++p) {
          const long c = local_count(n, nb, p, np);
          EXPECT_GE(c, 0);
          total += c;
        }
        EXPECT_EQ(total, n) << "n=" << n << " nb=" << nb << " np=" << np;
      }
    }
  }
}

TEST(BlockCyclic, LocalCountMatchesBruteForce) {
  for (long n : kSizes) {
    for (int nb : kBlocks) {
      for (int np : kProcs) {
        std::vector<long> count(static_cast<std::size_t>(np), 0);
        for (long g = 0; g < n; ++g) ++count[static_cast<std::size_t>((g / nb) % np)];
        for (int p = 0; p < np; ++p) {
          EXPECT_EQ(local_count(n, nb, p, np), count[static_cast<std::size_t>(p)])
              << "n=" << n << " nb=" << nb << " p=" << p << " np=" << np;
        }
      }
    }
  }
}

TEST(BlockCyclic, SpecialCases) {
  // n < nb: everything on process 0.
  EXPECT_EQ(local_count(5, 8, 0, 3), 5);
  EXPECT_EQ(local_count(5, 8, 1, 3), 0);
  EXPECT_EQ(local_count(5, 8, 2, 3), 0);
  // n = 0 and n = 1.
  EXPECT_EQ(local_count(0, 4, 0, 2), 0);
  EXPECT_EQ(local_count(1, 4, 0, 2), 1);
  EXPECT_EQ(local_count(1, 4, 1, 2), 0);
  // nb = 1 is cyclic: 10 over 3 -> 4, 3, 3.
  EXPECT_EQ(local_count(10, 1, 0, 3), 4);
  EXPECT_EQ(local_count(10, 1, 1, 3), 3);
  EXPECT_EQ(local_count(10, 1, 2, 3), 3);
  // Partial last block: 10 = 4 + 4 + 2 over 2 -> blocks 0, 2 on p0 and 1 on p1.
  EXPECT_EQ(local_count(10, 4, 0, 2), 6);
  EXPECT_EQ(local_count(10, 4, 1, 2), 4);
  // 11 over nb 4, np 3: blocks of 4, 4, 3.
  EXPECT_EQ(local_count(11, 4, 0, 3), 4);
  EXPECT_EQ(local_count(11, 4, 1, 3), 4);
  EXPECT_EQ(local_count(11, 4, 2, 3), 3);
  // A netlib-sized case: N = 20000, NB = 192, P = 2.
  EXPECT_EQ(local_count(20000, 192, 0, 2) + local_count(20000, 192, 1, 2), 20000);
  // N + 1 = 20001 columns: 104 full blocks (52 each) and a last one of 33 on p0.
  EXPECT_EQ(local_count(20001, 192, 0, 2), 52 * 192 + 33);
  EXPECT_EQ(local_count(20001, 192, 1, 2), 52 * 192);
}

TEST(BlockCyclic, GlobalLocalRoundTrip) {
  for (long n : kSizes) {
    for (int nb : kBlocks) {
      for (int np : kProcs) {
        // Global -> (owner, local) -> global, and local indices are dense,
        // increasing with the global index on each process.
        std::vector<long> next_local(static_cast<std::size_t>(np), 0);
        for (long g = 0; g < n; ++g) {
          const int p = owner_of(g, nb, np);
          ASSERT_GE(p, 0);
          ASSERT_LT(p, np);
          const long l = global_to_local(g, nb, np);
          ASSERT_EQ(l, next_local[static_cast<std::size_t>(p)])
              << "g=" << g << " nb=" << nb << " np=" << np;
          ++next_local[static_cast<std::size_t>(p)];
          ASSERT_EQ(local_to_global(l, nb, p, np), g);
          ASSERT_EQ(local_start(g, nb, p, np), l);
        }
        // Local -> global -> local on every process.
        for (int p = 0; p < np; ++p) {
          const long cnt = local_count(n, nb, p, np);
          ASSERT_EQ(cnt, next_local[static_cast<std::size_t>(p)]);
          for (long l = 0; l < cnt; ++l) {
            const long g = local_to_global(l, nb, p, np);
            ASSERT_GE(g, 0);
            ASSERT_LT(g, n);
            ASSERT_EQ(owner_of(g, nb, np), p);
            ASSERT_EQ(global_to_local(g, nb, np), l);
          }
        }
      }
    }
  }
}

TEST(BlockCyclic, LocalStartMatchesBruteForce) {
  for (long n : {0L, 1L, 7L, 33L, 100L}) {
    for (int nb : {1, 3, 4, 64}) {
      for (int np : {1, 2, 3, 4}) {
        for (int p = 0; p < np; ++p) {
          for (long g = 0; g <= n; ++g) {
            long before = 0;
            for (long h = 0; h < g; ++h) before += owner_of(h, nb, np) == p;
            ASSERT_EQ(local_start(g, nb, p, np), before)
                << "g=" << g << " nb=" << nb << " p=" << p << " np=" << np;
          }
        }
      }
    }
  }
}

TEST(BlockCyclic, LargeIndicesDoNotOverflow) {
  // Global indices past 2^31 (long arithmetic throughout).
  const long g = 3'000'000'123L;
  const int nb = 256, np = 7;
  const int p = owner_of(g, nb, np);
  const long l = global_to_local(g, nb, np);
  EXPECT_EQ(local_to_global(l, nb, p, np), g);
  long total = 0;
  for (int q = 0; q < np; ++q) total += local_count(g, nb, q, np);
  EXPECT_EQ(total, g);
}

// A rank's update work against brute force over its own rows and columns:
// at each panel, its trailing rows and columns counted one by one.
TEST(UpdateWork, CountsEachRanksTrailingRowsAndColumns) {
  for (const long n : {1L, 100L, 257L, 1000L})
    for (const int nb : {1, 16, 64, 128})
      for (const auto [p, q] : {std::pair{1, 1}, {1, 2}, {2, 1}, {2, 3}, {4, 4}})
        for (int r = 0; r < p; ++r)
          for (int c = 0; c < q; ++c) {
            double want = 0;
            for (long j = 0; j < n; j += nb) {
              const long jb = std::min<long>(nb, n - j);
              long rows = 0, cols = 0;
              for (long g = j + jb; g < n; ++g) rows += owner_of(g, nb, p) == r;
              for (long g = j + jb; g < n + 1; ++g) cols += owner_of(g, nb, q) == c;
              want += static_cast<double>(jb) * jb * cols + 2.0 * rows * cols * jb;
            }
            ASSERT_DOUBLE_EQ(update_flops(n, n + 1, nb, r, c, p, q), want)
                << "n " << n << " nb " << nb << " rank " << r << "," << c << " of " << p << "x"
                << q;
          }
}

// Why the slow-rank line divides by it: on a 1 x 2 grid at N = 4000,
// NB = 128, rank 0 holds the last full block and does 2.2% more of the
// update than rank 1; on 2 x 2 at N = 1000, NB = 128 rank (1, 1) does 34%
// more than rank (0, 0), a time a 10% threshold would call slow.
TEST(UpdateWork, TheLastFullBlocksGiveSomeRanksMoreWork) {
  const double r0 = update_flops(4000, 4001, 128, 0, 0, 1, 2);
  const double r1 = update_flops(4000, 4001, 128, 0, 1, 1, 2);
  EXPECT_NEAR(r0 / r1, 1.022, 0.001);
  const double a = update_flops(1000, 1001, 128, 0, 0, 2, 2);
  const double d = update_flops(1000, 1001, 128, 1, 1, 2, 2);
  EXPECT_NEAR(d / a, 1.345, 0.001);
}

// Each iteration's update seconds go to its part of the run, and each
// panel's flops to the part of the iteration that finishes its update
// (depth later; the last iteration for the last panels).
TEST(UpdateWork, EachPartOfTheRunGetsItsIterationsTimeAndItsFinishedPanelsFlops) {
  std::vector<IterationTimes> its(16);
  std::vector<double> flops(16);
  for (std::size_t i = 0; i < 16; ++i) {
    its[i].update = 1.0 + static_cast<double>(i);
    flops[i] = 100.0 * static_cast<double>(16 - i);
  }
  RankTotals none;
  split_into_parts(its, flops, 1, none);
  for (int g = 0; g < kRunParts; ++g) {
    const auto i = static_cast<std::size_t>(2 * g);
    EXPECT_DOUBLE_EQ(none.part_update[static_cast<std::size_t>(g)],
                     its[i].update + its[i + 1].update);
    // depth 1: part g finishes panels 2g - 1 and 2g; the last also panel 15.
    const double want = (g > 0 ? flops[i - 1] : 0.0) + flops[i] + (g == 7 ? flops[15] : 0.0);
    EXPECT_DOUBLE_EQ(none.part_flops[static_cast<std::size_t>(g)], want) << g;
  }
  RankTotals other;
  split_into_parts(its, std::vector<double>(15, 1.0), 1, other);  // not a panel each
  EXPECT_EQ(other.part_flops, (std::array<double, kRunParts>{}));
}

}  // namespace
}  // namespace hplx::lu
