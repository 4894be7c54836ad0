// Which ranks the preflight names as slow (core/node_probes.hpp).
#include <gtest/gtest.h>

#include "core/node_probes.hpp"

namespace hplx {
namespace {

RankProbe rank_with(int rank, double gemm, double memory, double link, int peer) {
  return {rank, "node" + std::to_string(rank / 2), "CPU 2000 MHz", {gemm, memory, link, 1.5, peer}};
}

TEST(NodeProbes, NamesTheRankWhoseDgemmIsBelowTheOthersMedianAndNoOther) {
  // Rank 3's DGEMM is 30% below the others' (100, 98, 102: median 100);
  // every other figure within 5%.
  const std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 10, 1), rank_with(1, 98, 21, 10, 0),
                                        rank_with(2, 102, 20.5, 10.2, 3),
                                        rank_with(3, 70, 19.8, 10.2, 2)};
  const std::vector<SlowProbe> slow = find_slow_probes(ranks, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].rank.rank, 3);
  EXPECT_EQ(slow[0].kind, ProbeKind::Gemm);
  EXPECT_DOUBLE_EQ(slow[0].others_median, 100);
  EXPECT_NEAR(slow[0].below, 0.30, 1e-12);
  const std::string line = slow_probe_sentence(slow[0]);
  EXPECT_NE(line.find("rank 3 on node1 (CPU 2000 MHz): DGEMM 70.0 Gflop/s, 30% below the "
                      "other ranks' median 100.0"),
            std::string::npos)
      << line;
}

// The second round a suspect brings: each figure the better of the two,
// so a rank that a burst slowed in one round is not named, and one slow in
// both still is.
TEST(NodeProbes, TheBetterOfTwoRoundsClearsABurstAndKeepsASlowNode) {
  const NodeProbe burst{80, 15, 2.0, 40, 1}, calm{100, 20, 1.5, 60, 3};
  const NodeProbe best = best_of(burst, calm);
  EXPECT_DOUBLE_EQ(best.gemm_gflops, 100);
  EXPECT_DOUBLE_EQ(best.memory_gbs, 20);
  EXPECT_DOUBLE_EQ(best.link_gbs, 2.0);  // the link's figures from the round of its better rate
  EXPECT_DOUBLE_EQ(best.link_latency_us, 40);
  EXPECT_EQ(best.link_peer, 1);
  // Rank 1 slowed in the first round only; rank 2 slow in both.
  std::vector<RankProbe> first = {rank_with(0, 100, 20, 10, 1), rank_with(1, 80, 20, 10, 0),
                                  rank_with(2, 60, 20, 10, 3), rank_with(3, 101, 20, 10, 2)};
  const std::vector<RankProbe> second = {rank_with(0, 99, 20, 10, 1), rank_with(1, 101, 20, 10, 0),
                                         rank_with(2, 61, 20, 10, 3), rank_with(3, 100, 20, 10, 2)};
  ASSERT_EQ(find_slow_probes(first, 0.10).size(), 2u);
  for (std::size_t r = 0; r < first.size(); ++r)
    first[r].probe = best_of(first[r].probe, second[r].probe);
  const std::vector<SlowProbe> slow = find_slow_probes(first, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].rank.rank, 2);
}

TEST(NodeProbes, ASlowLinkNamesBothEndsAndItsPeer) {
  const std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 10, 1), rank_with(1, 100, 20, 4, 2),
                                        rank_with(2, 100, 20, 4, 1), rank_with(3, 100, 20, 10, 0)};
  const std::vector<SlowProbe> slow = find_slow_probes(ranks, 0.10);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_EQ(slow[0].kind, ProbeKind::Link);
  EXPECT_EQ(slow[0].rank.rank + slow[1].rank.rank, 3);  // ranks 1 and 2
  EXPECT_NE(slow_probe_sentence(slow[0]).find("link to rank "), std::string::npos);
}

TEST(NodeProbes, ASlowLinkToARankSlowAtItsOwnWorkIsThatRanks) {
  // Rank 2's DGEMM is half the others': its link with rank 1 is slow too,
  // and only rank 2 is named for it.
  const std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 10, 1), rank_with(1, 100, 20, 4, 2),
                                        rank_with(2, 50, 20, 4, 1), rank_with(3, 100, 20, 10, 0)};
  const std::vector<SlowProbe> slow = find_slow_probes(ranks, 0.10);
  ASSERT_EQ(slow.size(), 2u);
  for (const SlowProbe& x : slow) EXPECT_EQ(x.rank.rank, 2) << slow_probe_sentence(x);
}

TEST(NodeProbes, TwoRanksHoldEachOtherAgainstEachOther) {
  // Of two, each is held against the other: the one 25% below is named,
  // the one above is not; at the threshold itself no one is.
  std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 0, -1), rank_with(1, 75, 20, 0, -1)};
  std::vector<SlowProbe> slow = find_slow_probes(ranks, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].rank.rank, 1);
  ranks[1].probe.gemm_gflops = 90;
  EXPECT_TRUE(find_slow_probes(ranks, 0.10).empty());
}

TEST(NodeProbes, UnmeasuredFiguresAndASingleRankNameNoOne) {
  // No links (0) are not "100% below"; one rank has no others.
  const std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 0, -1), rank_with(1, 101, 20, 0, -1),
                                        rank_with(2, 99, 20, 0, -1)};
  EXPECT_TRUE(find_slow_probes(ranks, 0.10).empty());
  EXPECT_TRUE(find_slow_probes({rank_with(0, 1, 1, 1, -1)}, 0.10).empty());
}

TEST(NodeProbes, LinksWithinAHostAreNotHeldAgainstLinksBetweenHosts) {
  // node0 holds ranks 0 and 1, node1 ranks 2 and 3: the links 0-1 and 2-3
  // are shared memory (fast), 1-2 and 3-0 the network (slow, and alike).
  const std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 2, 3), rank_with(1, 100, 20, 2, 2),
                                        rank_with(2, 100, 20, 2, 1), rank_with(3, 100, 20, 2, 0)};
  EXPECT_TRUE(find_slow_probes(ranks, 0.10).empty());
  std::vector<RankProbe> mixed = ranks;
  mixed[0].probe.link_peer = 1;  // now 0-1 and 2-3 within hosts, at 20 GB/s
  mixed[1].probe.link_peer = 0;
  mixed[2].probe.link_peer = 3;
  mixed[3].probe.link_peer = 2;
  for (RankProbe& r : mixed) r.probe.link_gbs = 20;
  mixed[0].probe.link_gbs = mixed[1].probe.link_gbs = 15;  // node0's within is 25% below
  const std::vector<SlowProbe> slow = find_slow_probes(mixed, 0.10);
  ASSERT_EQ(slow.size(), 2u);
  EXPECT_EQ(slow[0].rank.host, "node0");
  EXPECT_EQ(slow[1].rank.host, "node0");
}

TEST(NodeProbes, AHostsMemoryIsItsRanksSumHeldAgainstOtherHosts) {
  // Three hosts of two ranks whose memory is their host's: within node0 the
  // ranks' shares differ by half (not judged); node2's sum is 40% below.
  std::vector<RankProbe> ranks;
  const double shares[6] = {8, 12, 10, 10, 6, 6};
  for (int r = 0; r < 6; ++r) {
    ranks.push_back(rank_with(r, 100, shares[r], 0, -1));
    ranks.back().probe.memory_of_host = true;
  }
  const std::vector<SlowProbe> slow = find_slow_probes(ranks, 0.10);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].rank.rank, 4);  // node2's first rank
  EXPECT_TRUE(slow[0].of_host);
  EXPECT_EQ(slow[0].together, 2);
  EXPECT_DOUBLE_EQ(slow[0].value, 12);
  EXPECT_DOUBLE_EQ(slow[0].others_median, 20);
  const std::string line = slow_probe_sentence(slow[0]);
  EXPECT_NE(line.find("memory bandwidth of the host's 2 ranks 12.0 GB/s, 40% below the other "
                      "hosts' median 20.0"),
            std::string::npos)
      << line;
}

TEST(NodeProbes, RanksThatShareTheirHostsCpusAreNotJudged) {
  std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 0, -1), rank_with(1, 40, 20, 0, -1),
                                  rank_with(2, 100, 20, 0, -1)};
  ranks[1].probe.shares_cpus = true;
  EXPECT_TRUE(find_slow_probes(ranks, 0.10).empty());
  ranks[1].probe.shares_cpus = false;
  EXPECT_EQ(find_slow_probes(ranks, 0.10).size(), 1u);
}

TEST(NodeProbes, TheRecordHoldsEveryRankAndTheSlowOnes) {
  const std::vector<RankProbe> ranks = {rank_with(0, 100, 20, 10, 1), rank_with(1, 50, 20, 10, 0),
                                        rank_with(2, 100, 20, 10, 3)};
  const auto slow = find_slow_probes(ranks, 0.10);
  const nlohmann::json j = probes_json(ranks, slow, 0.10, 1.25);
  EXPECT_EQ(j["hosts"], 2);
  EXPECT_EQ(j["ranks"].size(), 3u);
  EXPECT_EQ(j["ranks"][1]["gemm_gflops"], 50.0);
  EXPECT_EQ(j["ranks"][1]["link_peer"], 0);
  ASSERT_EQ(j["slow"].size(), 1u);
  EXPECT_EQ(j["slow"][0]["rank"], 1);
  EXPECT_EQ(j["slow"][0]["kind"], "DGEMM");
  EXPECT_DOUBLE_EQ(j["slow"][0]["below"].get<double>(), 0.5);
}

}  // namespace
}  // namespace hplx
