// Every rank's totals and host gathered on rank 0 (core/slow_ranks.hpp),
// on 1-4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include "core/slow_ranks.hpp"

namespace hplx {
namespace {

TEST(GatherRankFigures, TheRootGetsEveryRanksTotalsAndHostInRankOrder) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<RankFigures> all =
      gather_rank_figures({1.0 + rank, 10.0 * rank, 0.5 * rank}, MPI_COMM_WORLD);
  if (rank != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  ASSERT_EQ(MPI_Get_processor_name(host, &length), MPI_SUCCESS);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(all[r].rank, r);
    EXPECT_EQ(all[r].host, std::string(host, length).substr(0, 63));
    EXPECT_FALSE(all[r].host.empty());
    EXPECT_DOUBLE_EQ(all[r].totals.update, 1.0 + r);
    EXPECT_DOUBLE_EQ(all[r].totals.fact, 10.0 * r);
    EXPECT_DOUBLE_EQ(all[r].totals.wait, 0.5 * r);
  }
  // With 3 or more ranks the last one's update (size) is over the median by
  // more than 10%: it is named.
  const std::vector<SlowRank> slow = find_slow_ranks(all, 0.10);
  if (size >= 3) {
    ASSERT_FALSE(slow.empty());
    EXPECT_EQ(slow.front().figures.rank, size - 1);
  }
}

}  // namespace
}  // namespace hplx
