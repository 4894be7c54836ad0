// All six panel broadcasts deliver the root's data, unchanged, to every
// process of the row, from every root, for message sizes below and above
// the number of processes.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "lu/phases/comm/row_broadcast.hpp"

namespace hplx::lu {
namespace {

const Broadcast kAll[] = {Broadcast::OneRing,  Broadcast::OneRingM, Broadcast::TwoRing,
                          Broadcast::TwoRingM, Broadcast::Long,     Broadcast::LongM};

TEST(RowBroadcast, EveryTopologyDeliversTheRootsDataToAll) {
  int q = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &q);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (Broadcast b : kAll) {
    for (int root = 0; root < q; ++root) {
      for (long count : {1L, 3L, 7L, 1000L, 12345L}) {
        std::vector<double> data(count, -1.0);
        if (me == root)
          for (long i = 0; i < count; ++i) data[i] = root * 1e6 + static_cast<double>(i);
        broadcast_row(data.data(), count, b, root, MPI_COMM_WORLD);
        long wrong = 0;
        for (long i = 0; i < count; ++i) wrong += data[i] != root * 1e6 + static_cast<double>(i);
        EXPECT_EQ(wrong, 0) << name_of(b) << " root " << root << " count " << count;
      }
    }
  }
}

// The non-blocking form, as look-ahead drives it: started, moved on by
// progress() between pieces of other work, finished. Every topology, every
// root, delivers the same data, and progress() reports done only once this
// process has it.
TEST(RowBroadcast, ProgressDeliversWhileTheCallerWorks) {
  int q = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &q);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (Broadcast b : kAll) {
    for (int root = 0; root < q; ++root) {
      const long count = 40000 + root;
      std::vector<double> data(count, -1.0);
      if (me == root)
        for (long i = 0; i < count; ++i) data[i] = 7.0 * i + root;
      RowBroadcast bcast(data.data(), count, b, root, MPI_COMM_WORLD);
      // progress() alone, between pieces of the caller's own work, must
      // complete this process's part: finish() below would deliver the
      // data anyway, so it is called only after the verdict (a cap of 10 s
      // keeps a broken progress() from hanging the test).
      double busy = 0;
      bool done = false;
      const double start = MPI_Wtime();
      while (!done && MPI_Wtime() - start < 10) {
        for (int i = 0; i < 2000; ++i) busy += 1e-9 * i;  // the caller's own work
        done = bcast.progress();
      }
      EXPECT_TRUE(done) << name_of(b) << " root " << root << ": progress() never completed";
      if (done) {
        EXPECT_TRUE(bcast.received());
      }
      bcast.finish();
      EXPECT_TRUE(bcast.received());
      long wrong = 0;
      for (long i = 0; i < count; ++i) wrong += data[i] != 7.0 * i + root;
      EXPECT_EQ(wrong, 0) << name_of(b) << " root " << root << " busy " << busy;
    }
  }
}

TEST(RowBroadcast, RingsFormATreeRootedAtZero) {
  for (Broadcast b :
       {Broadcast::OneRing, Broadcast::OneRingM, Broadcast::TwoRing, Broadcast::TwoRingM}) {
    for (int q = 1; q <= 17; ++q) {
      const auto parent = ring_parents(b, q);
      ASSERT_EQ(parent[0], -1);
      for (int i = 1; i < q; ++i) {
        // Every position hears from an earlier one, so the ring cannot deadlock.
        EXPECT_GE(parent[i], 0);
        EXPECT_LT(parent[i], i) << name_of(b) << " q=" << q;
      }
    }
  }
  // The shapes netlib describes, for Q = 8.
  EXPECT_EQ(ring_parents(Broadcast::OneRingM, 8), (std::vector<int>{-1, 0, 0, 2, 3, 4, 5, 6}));
  EXPECT_EQ(ring_parents(Broadcast::TwoRing, 8), (std::vector<int>{-1, 0, 1, 2, 0, 4, 5, 6}));
  EXPECT_EQ(ring_parents(Broadcast::TwoRingM, 8), (std::vector<int>{-1, 0, 0, 2, 3, 0, 5, 6}));
}

}  // namespace
}  // namespace hplx::lu
