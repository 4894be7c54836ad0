// Which ranks the end of a run names as slow (core/slow_ranks.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>

#include "core/slow_ranks.hpp"

namespace hplx {
namespace {

std::vector<RankFigures> ranks_with(const std::vector<double>& updates,
                                    const std::vector<double>& waits) {
  std::vector<RankFigures> r;
  for (std::size_t i = 0; i < updates.size(); ++i)
    r.push_back({static_cast<int>(i), "node" + std::to_string(i / 2), {updates[i], 1.0, waits[i]}});
  return r;
}

TEST(SlowRanks, NamesTheOneRankWhoseUpdateIsOverTheThreshold) {
  // Four ranks, rank 2 a third slower; the others waited for it.
  const auto ranks = ranks_with({3.0, 3.1, 4.0, 2.9}, {1.2, 1.1, 0.2, 1.3});
  const std::vector<SlowRank> slow = find_slow_ranks(ranks, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].figures.rank, 2);
  EXPECT_EQ(slow[0].figures.host, "node1");
  EXPECT_DOUBLE_EQ(slow[0].others_update, 3.0);  // the median of 3.0, 3.1, 2.9
  EXPECT_NEAR(slow[0].slower, 4.0 / 3.0 - 1, 1e-12);
  EXPECT_NEAR(slow[0].others_waited, 1.2 - 0.2, 1e-12);  // the median of 1.2, 1.1, 1.3
  const std::string line = slow_rank_sentence(slow[0]);
  EXPECT_NE(line.find("rank 2 on node1"), std::string::npos) << line;
  EXPECT_NE(line.find("33% slower than the others' median 3.000 s"), std::string::npos) << line;
}

TEST(SlowRanks, WithTwoRanksTheSlowerIsComparedWithTheOther) {
  const std::vector<SlowRank> slow = find_slow_ranks(ranks_with({2.0, 1.0}, {0.0, 0.9}), 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].figures.rank, 0);
  EXPECT_DOUBLE_EQ(slow[0].slower, 1.0);  // twice the other's
  EXPECT_DOUBLE_EQ(slow[0].others_waited, 0.9);
  EXPECT_TRUE(find_slow_ranks(ranks_with({1.05, 1.0}, {0, 0}), 0.10).empty());
}

TEST(SlowRanks, NoneWithinTheThresholdAndNoneForOneRank) {
  EXPECT_TRUE(find_slow_ranks(ranks_with({3.0, 3.2, 3.1, 2.95}, {1, 1, 1, 1}), 0.10).empty());
  EXPECT_TRUE(find_slow_ranks(ranks_with({3.0}, {0}), 0.10).empty());
  EXPECT_TRUE(find_slow_ranks(ranks_with({0, 0}, {0, 0}), 0.10).empty());
}

TEST(SlowRanks, SlowestFirstAndTheirCostNeverBelowZero) {
  // Two slow ranks of eight; the slowest waited more than the others.
  const auto ranks =
      ranks_with({2, 2, 2, 2, 2.5, 2, 3, 2}, {0.5, 0.5, 0.5, 0.5, 0.3, 0.5, 0.9, 0.5});
  const std::vector<SlowRank> slow = find_slow_ranks(ranks, 0.10);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_EQ(slow[0].figures.rank, 6);
  EXPECT_EQ(slow[1].figures.rank, 4);
  EXPECT_DOUBLE_EQ(slow[0].others_waited, 0.0);
  EXPECT_NEAR(slow[1].others_waited, 0.2, 1e-12);
  // With a threshold below -1 every rank is listed, slowest first.
  EXPECT_EQ(find_slow_ranks(ranks, -1.0).size(), 8u);
}

// The others' median, without the rank itself, on many ranks with ties:
// the same as taking the rank out and sorting what is left.
TEST(SlowRanks, TheOthersMedianLeavesOutTheRankItself) {
  std::vector<double> updates, waits;
  for (int r = 0; r < 1001; ++r) {
    updates.push_back(1.0 + 0.001 * ((r * 37) % 101));  // ties, in no order
    waits.push_back(0.01 * ((r * 13) % 7));
  }
  updates[500] = 3.0;
  const auto ranks = ranks_with(updates, waits);
  const std::vector<SlowRank> all = find_slow_ranks(ranks, -1.0);
  ASSERT_EQ(all.size(), ranks.size());
  for (const SlowRank& s : all) {
    std::vector<double> u, w;
    for (const RankFigures& o : ranks) {
      if (o.rank == s.figures.rank) continue;
      u.push_back(o.totals.update);
      w.push_back(o.totals.wait);
    }
    std::sort(u.begin(), u.end());
    std::sort(w.begin(), w.end());
    const double mu = 0.5 * (u[499] + u[500]), mw = 0.5 * (w[499] + w[500]);
    ASSERT_DOUBLE_EQ(s.others_update, mu) << s.figures.rank;
    ASSERT_DOUBLE_EQ(s.others_waited, std::max(0.0, mw - s.figures.totals.wait)) << s.figures.rank;
  }
  EXPECT_EQ(all.front().figures.rank, 500);
  const std::vector<SlowRank> slow = find_slow_ranks(ranks, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].figures.rank, 500);
}

// With each rank's update flops known, ranks are held against one another
// for the same work: a rank that took 10% longer for 10% more flops is not
// slow; one that took 20% longer for the same flops is, and the others'
// median is their time for its work.
TEST(SlowRanks, WithTheWorkKnownRanksAreComparedPerFlop) {
  std::vector<RankFigures> ranks = ranks_with({1.10, 1.0}, {0.0, 0.1});
  ranks[0].totals.update_flops = 1.1e9;
  ranks[1].totals.update_flops = 1.0e9;
  EXPECT_TRUE(find_slow_ranks(ranks, 0.05).empty());
  ranks = ranks_with({1.2, 1.0, 1.0}, {0.0, 0.2, 0.2});
  for (RankFigures& f : ranks) f.totals.update_flops = 2e9;
  const std::vector<SlowRank> slow = find_slow_ranks(ranks, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].figures.rank, 0);
  EXPECT_NEAR(slow[0].slower, 0.2, 1e-12);
  EXPECT_NEAR(slow[0].others_update, 1.0, 1e-12);
  EXPECT_NE(slow_rank_sentence(slow[0]).find("median 1.000 s for its work"), std::string::npos)
      << slow_rank_sentence(slow[0]);
  // A rank with no update work (it owns no trailing columns) is not judged,
  // however long its update took.
  ranks = ranks_with({5.0, 1.0, 1.0}, {0.0, 0.0, 0.0});
  ranks[1].totals.update_flops = ranks[2].totals.update_flops = 1e9;
  EXPECT_TRUE(find_slow_ranks(ranks, 0.10).empty());
}

// Two ranks with `gflop` of update in each eighth of the run (the same in
// each unless given), rank 1 at 1 Gflop/s, rank 0 `times` as slow in each.
std::vector<RankFigures> parts_with(const std::array<double, kRunParts>& times,
                                    const std::array<double, kRunParts>& gflop = {1, 1, 1, 1, 1, 1,
                                                                                  1, 1}) {
  std::vector<RankFigures> ranks = ranks_with({0, 0}, {0.0, 0.5});
  for (int r = 0; r < 2; ++r) {
    RankTotals& t = ranks[static_cast<std::size_t>(r)].totals;
    for (std::size_t g = 0; g < gflop.size(); ++g) {
      t.part_flops[g] = gflop[g] * 1e9;
      t.part_update[g] = gflop[g] * (r == 0 ? times[g] : 1.0);
    }
    t.update = std::accumulate(t.part_update.begin(), t.part_update.end(), 0.0);
    t.update_flops = std::accumulate(t.part_flops.begin(), t.part_flops.end(), 0.0);
  }
  return ranks;
}

// A burst in one eighth of the run makes a healthy rank's total 11% slower
// (a false alarm of 2026-12-03: +11%, the others waiting 0.07 s): it is
// not named, and the closing line still says how close it came. A rank
// slow in most of the run is named, also when it became slow after the
// start.
TEST(SlowRanks, ABurstIsNotASlowRankButSlowInMostOfTheRunIs) {
  const auto burst = parts_with({1, 1, 1, 1.9, 1, 1, 1, 1});
  EXPECT_TRUE(find_slow_ranks(burst, 0.10).empty());
  const std::vector<SlowRank> all = find_slow_ranks(burst, -1.0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_NEAR(all.front().slower, 0.1125, 1e-12);
  EXPECT_NEAR(all.front().typical, 0.0, 1e-12);
  const std::vector<std::string> lines = slow_rank_lines(burst, {}, 0.10);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("no slow rank: the slowest, rank 0 on node0, was +11."),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("+0.0% or less in half of its work"), std::string::npos) << lines[0];

  const auto late = parts_with({1, 1, 1, 1.3, 1.3, 1.3, 1.3, 1.3});
  const std::vector<SlowRank> slow = find_slow_ranks(late, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].figures.rank, 0);
  EXPECT_NEAR(slow[0].slower, 0.1875, 1e-12);
  EXPECT_NEAR(slow[0].typical, 0.3, 1e-12);
  EXPECT_NE(slow_rank_sentence(slow[0]).find("(30% or more in half of it)"), std::string::npos)
      << slow_rank_sentence(slow[0]);
  // Slow in fewer than half of the parts: a burst, however long.
  EXPECT_TRUE(find_slow_ranks(parts_with({1, 1, 1, 1, 1, 2, 2, 2}), 0.10).empty());
}

// Two ranks with an LU's work in each eighth of the run (hplx hpl-mxp at
// N = 2000 on 1 x 2: most of it in the first half, the last eighths a few
// milliseconds), rank 0 `times` as slow in each.
std::vector<RankFigures> lu_parts_with(const std::array<double, kRunParts>& times) {
  return parts_with(times, {0.444, 0.745, 0.538, 0.365, 0.226, 0.120, 0.048, 0.009});
}

// A host held to a fifth of every 10 ms is slow wherever an eighth's
// update outlasts the 2 ms it may run, not in the last eighths of a
// short run (CI of 2026-12-03: hpl-mxp's rank 1 +213% over the run, +4%
// in the median eighth, not named). It is named: the eighths weigh their
// work. A burst in the eighth with the most work (30% of it) is not.
TEST(SlowRanks, SlowInTheEighthsThatHoldMostOfTheWorkIsNamed) {
  const auto throttled = lu_parts_with({5, 5, 5, 1, 1, 1, 1, 1});
  const std::vector<SlowRank> slow = find_slow_ranks(throttled, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].figures.rank, 0);
  EXPECT_NEAR(slow[0].typical, 4.0, 1e-9);
  EXPECT_TRUE(find_slow_ranks(lu_parts_with({1, 1.5, 1, 1, 1, 1, 1, 1}), 0.10).empty());
  EXPECT_TRUE(find_slow_ranks(lu_parts_with({1, 1, 1, 5, 5, 5, 5, 5}), 0.10).empty());
}

TEST(SlowRanks, TheRecordHoldsEveryRankAndTheNamedOnes) {
  const auto ranks = ranks_with({3.0, 4.0}, {1.0, 0.0});
  const nlohmann::json j = rank_figures_json(ranks, find_slow_ranks(ranks, 0.10), 0.10);
  ASSERT_EQ(j["ranks"].size(), 2u);
  EXPECT_EQ(j["ranks"][1]["host"], "node0");
  EXPECT_DOUBLE_EQ(j["ranks"][1]["update_s"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["slow_threshold"].get<double>(), 0.10);
  ASSERT_EQ(j["slow"].size(), 1u);
  EXPECT_EQ(j["slow"][0]["rank"], 1);
}

}  // namespace
}  // namespace hplx
