// The per-iteration record of real solves on every grid that fits the job:
// one entry per panel on the root after the reduction (none elsewhere), flops
// adding up to netlib's count, time moving forward.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "core/grid.hpp"
#include "core/timer.hpp"
#include "device/backend_kind.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

TEST(IterationRecordRun, OneEntryPerPanelOnTheRoot) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int p = 1; p <= size; ++p) {
    for (int q = 1; p * q <= size; ++q) {
      ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      if (!grid.in_grid()) continue;
      for (int depth : {0, 1, 2}) {
        TestCase t;
        t.n = 301;
        t.nb = 24;
        t.grid = {p, q};
        t.depth = depth;
        t.schedule.swap_pipeline = depth == 2;
        omp_set_num_threads(depth == 1 ? 2 : 1);
        LocalMatrix a(test::test_context().device(), t.n, t.nb, grid);
        generate_matrix(test::test_context().device().compute(), a, grid);
        const SolveOutcome out = pdgesv(test::test_context(), a, t, grid);
        const auto record = max_on_root(out.iterations, grid.all());
        const std::string where = "grid " + std::to_string(p) + "x" + std::to_string(q) +
                                  " depth " + std::to_string(depth);
        int rank = 0;
        MPI_Comm_rank(grid.all(), &rank);
        if (rank != 0) {
          EXPECT_TRUE(record.empty()) << where;  // only the root holds the record
          continue;
        }
        ASSERT_EQ(record.size(), 13u) << where;  // ceil(301 / 24)
        double flops = 0, last = 0;
        for (std::size_t i = 0; i < record.size(); ++i) {
          const IterationTimes& it = record[i];
          EXPECT_EQ(it.k, static_cast<long>(i)) << where;
          EXPECT_EQ(it.j, static_cast<long>(i) * 24) << where;
          EXPECT_EQ(it.n_trailing, t.n - it.j - it.jb) << where;
          EXPECT_GE(it.elapsed, last) << where;
          EXPECT_GE(it.iter, 0.0) << where;
          EXPECT_GE(it.update, 0.0) << where;
          EXPECT_GE(it.rs_comm, 0.0) << where;
          last = it.elapsed;
          flops += it.flops;
        }
        const double dn = static_cast<double>(t.n);
        EXPECT_NEAR(flops, (2.0 / 3.0) * dn * dn * dn + 1.5 * dn * dn, 1e-6 * dn * dn * dn)
            << where;
        // The maximum over the ranks: no rank's own record ends later.
        EXPECT_GE(record.back().elapsed, out.iterations.back().elapsed) << where;
      }
    }
  }
  omp_set_num_threads(1);
}

// On a device backend the record carries the device's own times of each
// iteration (update, in-place swaps, panel copies), from its events; on the
// host, whose phases are the device's, none.
TEST(IterationRecordRun, DeviceTimesOnADeviceOnly) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ProcessGrid grid(MPI_COMM_WORLD, 1, size, GridOrder::RowMajor);
  for (auto kind : {device::BackendKind::Host, device::BackendKind::Emulated}) {
    if (!device::compiled_in(kind)) continue;
    const Context& ctx = test::test_context(kind);
    TestCase t;
    t.n = 600;
    t.nb = 32;
    t.grid = {1, size};
    t.depth = 1;
    LocalMatrix a(ctx.device(), t.n, t.nb, grid);
    generate_matrix(ctx.device().compute(), a, grid);
    const double t0 = wall_time();
    const SolveOutcome out = pdgesv(ctx, a, t, grid);
    const double wall = wall_time() - t0;
    const auto record = max_on_root(out.iterations, grid.all());
    if (grid.myrow() != 0 || grid.mycol() != 0) {
      EXPECT_TRUE(record.empty());  // only the root holds the record
      continue;
    }
    double update = 0, transfer = 0;
    for (const IterationTimes& it : record) {
      EXPECT_GE(it.device_update, 0.0);
      EXPECT_GE(it.device_swap, 0.0);
      update += it.device_update;
      transfer += it.transfer;
    }
    const std::string where = std::string(device::name_of(kind));
    if (kind == device::BackendKind::Host) {
      EXPECT_EQ(update, 0.0) << where;
      EXPECT_EQ(transfer, 0.0) << where;
      EXPECT_FALSE(iterations_to_json(record, t.n)[0].contains("device_update_s"));
    } else {
      EXPECT_GT(update, 0.0) << where;
      EXPECT_GT(transfer, 0.0) << where;  // the panels' copies (every rank owns some)
      // The device's time fits in the solve's (one queue each).
      EXPECT_LE(update, wall) << where;
      EXPECT_TRUE(iterations_to_json(record, t.n)[0].contains("device_update_s"));
    }
  }
}

// The device timeline reads a span once the queue has reached it and keeps
// only its seconds: a long run does not hold every span's events to the end
// (a simulated 512-GPU run piled them up until it ran out of memory).
TEST(DeviceTimeline, ReadsSpansAsTheQueueReachesThemAndKeepsTheirSeconds) {
  if (!device::compiled_in(device::BackendKind::Emulated)) GTEST_SKIP() << "no emulated device";
  device::Queue& q = test::test_context(device::BackendKind::Emulated).device().compute();
  DeviceTimeline timeline(q, false);
  constexpr int kIterations = 20;
  for (int i = 0; i < kIterations; ++i) {
    for (int s = 0; s < 3; ++s) {
      DeviceTimeline::Span span(&timeline, q, DeviceTimeline::kUpdate);
      q.execute([] { std::this_thread::sleep_for(std::chrono::microseconds(200)); });
    }
    q.synchronize();
    timeline.close_iteration();
    EXPECT_EQ(timeline.unread(), 0u) << "iteration " << i;
  }
  // Work still queued at a close is read at a later one, or at the end.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  {
    DeviceTimeline::Span span(&timeline, q, DeviceTimeline::kSwap);
    q.execute([released] {
      released.wait();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    });
  }
  timeline.close_iteration();
  EXPECT_EQ(timeline.unread(), 1u);
  release.set_value();
  std::vector<IterationTimes> record(kIterations + 1);
  timeline.resolve(record, nullptr);
  EXPECT_EQ(timeline.unread(), 0u);
  for (int i = 0; i < kIterations; ++i) {
    EXPECT_GE(record[i].device_update, 3 * 200e-6) << "iteration " << i;
    EXPECT_LT(record[i].device_update, 1.0) << "iteration " << i;
    EXPECT_EQ(record[i].device_swap, 0.0) << "iteration " << i;
  }
  EXPECT_GE(record[kIterations].device_swap, 20e-3);
  EXPECT_EQ(record[kIterations].device_update, 0.0);
}

}  // namespace
}  // namespace hplx::lu
