// The preflight's collectives (core/node_probes.hpp, core/link_probe.hpp)
// on 1-4 ranks: every rank's figures gathered on the root in rank order,
// and every rank's links measured with its neighbours in a line of the
// grid, whatever its length, without deadlock.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "core/host_name.hpp"
#include "core/link_probe.hpp"
#include "core/node_probes.hpp"

namespace hplx {
namespace {

TEST(NodeProbesMpi, TheRootGetsEveryRanksFiguresHostAndDeviceInRankOrder) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const NodeProbe mine{10.0 + rank, 20.0 + rank, 30.0 + rank, 0.5 * rank, (rank + 1) % size};
  const std::vector<RankProbe> all =
      gather_rank_probes(mine, "dev" + std::to_string(rank), MPI_COMM_WORLD);
  EXPECT_EQ(hosts_in(MPI_COMM_WORLD), 1);  // the ranks of a test share this machine
  if (rank != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  ASSERT_EQ(all.size(), static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(all[r].rank, r);
    EXPECT_EQ(all[r].host, std::string(my_host_name().data()));
    EXPECT_EQ(all[r].device, "dev" + std::to_string(r));
    EXPECT_DOUBLE_EQ(all[r].probe.gemm_gflops, 10.0 + r);
    EXPECT_DOUBLE_EQ(all[r].probe.memory_gbs, 20.0 + r);
    EXPECT_DOUBLE_EQ(all[r].probe.link_gbs, 30.0 + r);
    EXPECT_DOUBLE_EQ(all[r].probe.link_latency_us, 0.5 * r);
    EXPECT_EQ(all[r].probe.link_peer, (r + 1) % size);
  }
  EXPECT_EQ(count_hosts(all), 1);
}

TEST(NodeProbesMpi, EveryRankMeasuresALinkToANeighbourInItsLine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> buffer(1 << 20);
  const LinkFigures f = probe_line(MPI_COMM_WORLD, MPI_COMM_WORLD, buffer.data(), buffer.size());
  if (size == 1) {
    EXPECT_EQ(f.peer, -1);
    EXPECT_EQ(f.gbs, 0);
    return;
  }
  // Its slowest link's peer is one of its two neighbours around the line.
  EXPECT_TRUE(f.peer == (rank + 1) % size || f.peer == (rank - 1 + size) % size) << f.peer;
  EXPECT_GT(f.gbs, 0);
  EXPECT_GT(f.latency_us, 0);
  // A line split in two (ranks of the same parity), peers named in world.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int half_size = 1;
  MPI_Comm_size(half, &half_size);
  const LinkFigures h = probe_line(half, MPI_COMM_WORLD, buffer.data(), buffer.size());
  if (half_size == 1)
    EXPECT_EQ(h.peer, -1);
  else
    EXPECT_EQ(h.peer % 2, rank % 2) << h.peer;
  MPI_Comm_free(&half);
}

}  // namespace
}  // namespace hplx
