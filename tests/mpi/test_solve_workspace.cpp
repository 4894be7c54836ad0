// The buffers a solve keeps from panel to panel, reserved before it
// (workspace.hpp). The row swaps' (SwapBuffers::reserve): swaps move the
// right rows, the buffers are not made again for pivots spread over the
// process rows, and pivots that all fall on one process row (more than the
// reserved share) still give the right U. The panels' (PanelStore): a
// whole solve on every grid shape of the job uses the reserved buffers and
// no others, and gives the same x as a solve without a workspace.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "core/grid.hpp"
#include "device/device.hpp"
#include "lu/kernels/fact_kernels.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/panel.hpp"
#include "lu/run/problem_size.hpp"
#include "lu/run/verify.hpp"
#include "lu/schedules/pdgesv.hpp"
#include "lu/schedules/workspace.hpp"
#include "tests/mpi/first_panel_swap.hpp"
#include "tests/mpi/lu_context.hpp"

namespace hplx::lu {
namespace {

constexpr long kN = 400;
constexpr int kNb = 32;

struct Swapped {
  bool right = true;      // U holds the pivot rows, on every rank
  bool same_u = true;     // U's buffer is the one reserved, on every rank
  bool same_mine = true;  // so is the buffer of this rank's own U rows
};

// One swap of the first panel with `pivot(c)` as its pivots (global rows
// >= c), in the long swap with equilibration (HPL.dat's recommended form).
template <class Pivot>
Swapped swap_first_panel(device::Device& dev, SwapBuffers& b, Pivot pivot) {
  test::FirstPanelSwap f(dev, kN, kNb, pivot);
  SwapParams params;
  params.algorithm = SwapAlgorithm::Long;
  b.reserve(dev.backend(), f.a.nq(), kNb, f.grid.nprow(), params);
  const double* u_before = b.u.device();
  const double* mine_before = b.mine.device();
  swap_rows(dev.compute(), f.a, f.p, f.plan, f.lc0, f.nn, f.grid, b, swap_form(params, f.nn));
  int same[2] = {b.u.device() == u_before, b.mine.device() == mine_before};
  MPI_Allreduce(MPI_IN_PLACE, same, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return {f.u_is_right(dev, b.u), same[0] == 1, same[1] == 1};
}

TEST(SwapWorkspace, ReservedBuffersServeSpreadPivotsWithoutGrowing) {
  if (test::world_size() < 2) GTEST_SKIP() << "one process row swaps in place, with no buffers";
  auto dev = device::make_device(device::BackendKind::Host);
  SwapBuffers b;
  std::mt19937_64 gen(7);  // the same pivots on every rank
  for (int round = 0; round < 3; ++round) {
    const Swapped s = swap_first_panel(
        *dev, b, [&](int c) { return std::uniform_int_distribution<long>(c, kN - 1)(gen); });
    EXPECT_TRUE(s.right) << "round " << round;
    EXPECT_TRUE(s.same_u) << "round " << round;
    EXPECT_TRUE(s.same_mine) << "round " << round;
  }
}

TEST(SwapWorkspace, PivotsBeyondTheReservedShareStillGiveTheRightU) {
  if (test::world_size() < 2) GTEST_SKIP() << "one process row swaps in place, with no buffers";
  auto dev = device::make_device(device::BackendKind::Host);
  SwapBuffers b;
  // Every pivot on process row 1 (global blocks 1, 1 + P, ...): its share of
  // U is the whole panel, more than reserve() gave it.
  const long block = kNb, step = static_cast<long>(test::world_size()) * kNb;
  const Swapped s = swap_first_panel(
      *dev, b, [&](int c) { return block + (c / kNb) * step + c % kNb + (c % 3 == 0 ? step : 0); });
  EXPECT_TRUE(s.right);
}

TEST(SwapWorkspace, MemoryPreflightCountsTheReservedBuffers) {
  // With two process rows, U's part is the swaps' buffers: more than one
  // nb x nq block, and at most seven (U, the gathered U, the displaced
  // rows, and four shares).
  const long n = 1000;
  const int nb = 64;
  const long mp = 512, nq = n + 1;  // process row 0 of 2: blocks 0, 2, ..., 14 = 8 x 64
  const long long fact =            // device FACT's
      nb * nb + kernels::PivotSearch::of(mp + nb).doubles() + 2 * (nb + 2);
  const long long base = (mp * nq + (mp + nb) * nb * 3 + fact) * 8;
  const long long two_rows = lu_memory_bytes(n, nb, 2, 1);
  EXPECT_GT(two_rows - base, 1LL * nb * nq * 8);
  EXPECT_LE(two_rows - base, 7LL * nb * nq * 8);
  EXPECT_DOUBLE_EQ(static_cast<double>(two_rows - base),
                   SwapBuffers::reserved_doubles(nq, nb, 2) * 8);
}

// The data pointers of the buffers a store holds (taken out and put back),
// and how many hold a nonzero value (reserve() leaves zeros; a panel's
// columns are not all zero).
struct Held {
  std::vector<const double*> data;
  int written = 0;
};
Held held(PanelStore& store) {
  std::vector<device::Mirror<double>> taken;
  for (device::Mirror<double> w = store.take(); w.device() != nullptr; w = store.take())
    taken.push_back(std::move(w));
  Held out;
  for (auto& w : taken) {
    out.data.push_back(w.device());
    w.resize(kNb);  // the first column of W
    out.written += std::any_of(w.begin(), w.end(), [](double x) { return x != 0; }) ? 1 : 0;
    store.give(std::move(w));
  }
  std::sort(out.data.begin(), out.data.end());
  return out;
}

// A DEPTH 1 solve of order n with blocks of nb, its matrix generated on
// ctx's device.
struct DepthOneSolve {
  TestCase t;
  LocalMatrix a;
  DepthOneSolve(const Context& ctx, long n, int nb, const ProcessGrid& grid)
      : t(depth_one(n, nb)), a(ctx.device(), n, nb, grid) {
    generate_matrix(ctx.device().compute(), a, grid);
  }
  static TestCase depth_one(long n, int nb) {
    TestCase t;
    t.n = n;
    t.nb = nb;
    t.depth = 1;
    return t;
  }
};

// On the host, DEPTH + 1 buffers; on the emulated device, whose queues run
// behind the host, DEPTH + 2, each reused once the queues are past the
// update that read it (its random delays would show a buffer reused early).
// DEPTH + 1 panels are held at once, so at least that many buffers were
// written; the extra one on the emulated device is taken only when the
// queues are behind (PanelStore::take prefers the last buffer given back),
// which depends on timing.
TEST(SolveWorkspace, ASolveUsesTheReservedPanelsAndGivesTheSameAnswer) {
  for (const device::BackendKind kind : {device::BackendKind::Host, device::BackendKind::Emulated})
    for (int p = 1; p <= test::world_size(); ++p) {
      SCOPED_TRACE(device::name_of(kind));
      const Context& ctx = test::test_context(kind);
      const bool inline_queues = ctx.device().compute().runs_inline();
      if (test::world_size() % p != 0) continue;
      const ProcessGrid grid(MPI_COMM_WORLD, p, test::world_size() / p, GridOrder::RowMajor);
      DepthOneSolve solve(ctx, kN, kNb, grid);
      const TestCase& t = solve.t;
      LocalMatrix& a = solve.a;
      SolveWorkspace ws;
      reserve_workspace(ws, a, t, grid, inline_queues);
      const Held before = held(ws.panels);
      ASSERT_EQ(before.data.size(), inline_queues ? 2u : 3u) << "DEPTH + 1 or 2 panels";
      EXPECT_EQ(before.written, 0);
      const SolveOutcome with = pdgesv(ctx, a, t, grid, &ws);
      const Held after = held(ws.panels);
      EXPECT_EQ(after.data, before.data) << p << "x" << test::world_size() / p;
      EXPECT_GE(after.written, 2) << "the reserved buffers held the DEPTH + 1 panels in flight, "
                                  << p << "x" << test::world_size() / p;
      EXPECT_LT(check_solution(ctx.device(), a, with.x, grid, 16.0).scaled_residual, 16.0);

      LocalMatrix b(ctx.device(), t.n, t.nb, grid);
      generate_matrix(ctx.device().compute(), b, grid);
      const SolveOutcome without = pdgesv(ctx, b, t, grid);
      EXPECT_EQ(with.x, without.x) << p << "x" << test::world_size() / p;
    }
}

// A GPU's allocations cost (cudaMallocHost pins pages; cudaFree and
// cudaFreeHost wait for all the device's work, so one per panel kept FACT
// from running beside the update on an H200): a solve on the emulated
// device, with its workspace reserved, makes as many Device and Pinned
// allocations with 50 panels as with 8.
TEST(SolveWorkspace, ADeviceSolveAllocatesNothingPerPanel) {
  const Context& ctx = test::test_context(device::BackendKind::Emulated);
  const ProcessGrid grid(MPI_COMM_WORLD, 1, test::world_size(), GridOrder::RowMajor);
  for (const FactOn fact_on : {FactOn::Host, FactOn::Device}) {
    std::vector<long> made;
    for (const int nb : {8, 50}) {
      DepthOneSolve solve(ctx, 400, nb, grid);
      solve.t.schedule.fact_on = fact_on;  // device FACT's scratch is reserved too
      SolveWorkspace ws;
      reserve_workspace(ws, solve.a, solve.t, grid, false);
      const long before = ctx.device().backend().device_allocations();
      const SolveOutcome out = pdgesv(ctx, solve.a, solve.t, grid, &ws);
      made.push_back(ctx.device().backend().device_allocations() - before);
      EXPECT_LT(check_solution(ctx.device(), solve.a, out.x, grid, 16.0).scaled_residual, 16.0);
    }
    ASSERT_GE(made[0], 0) << "the emulated device counts its allocations";
    EXPECT_EQ(made[0], made[1]) << "50 panels against 8, FACT on the " << name_of(fact_on);
  }
}

// The emulated device's other counters over the same two solves: the
// host's waits for the device, and the bytes its queues copied each way.
// Allocations as above, and bytes that grow only with the data the panels
// move: each pass over the panels' columns (a panel to the host for FACT
// and back, its W to the device) moves about N^2 / 2 + N NB / 2 doubles
// whatever NB, so NB = 8 and NB = 50 differ by N (50 - 8) / 2 doubles per
// pass (about 67 KB at N = 400; 134 and 202 KB were seen, 2 and 3 passes);
// the bound allows 4 passes. A fixed cost per panel (42 more panels) would
// show above it.
// Host waits: with FACT on the device and one process, the host only
// enqueues inside the iteration loop: no wait and no allocation there
// (SolveOutcome::loop), whatever the number of panels; the waits before
// and after it (the back substitution's, one per block) are not the
// loop's. With FACT on the host it waits for each panel's columns to reach
// it and to go back: printed, not asserted.
TEST(SolveWorkspace, ADeviceSolvesCountsGrowOnlyWithItsData) {
  const Context& ctx = test::test_context(device::BackendKind::Emulated);
  const ProcessGrid grid(MPI_COMM_WORLD, 1, test::world_size(), GridOrder::RowMajor);
  const long n = 400;
  for (const FactOn fact_on : {FactOn::Host, FactOn::Device}) {
    SCOPED_TRACE(name_of(fact_on));
    std::vector<device::DeviceCounters> made, loop;
    for (const int nb : {50, 8}) {
      DepthOneSolve solve(ctx, n, nb, grid);
      solve.t.schedule.fact_on = fact_on;
      SolveWorkspace ws;
      reserve_workspace(ws, solve.a, solve.t, grid, false);
      const device::DeviceCounters before = ctx.device().backend().counters();
      const SolveOutcome out = pdgesv(ctx, solve.a, solve.t, grid, &ws);
      const device::DeviceCounters after = ctx.device().backend().counters();
      made.push_back(after.since(before));
      loop.push_back(out.loop);
      EXPECT_LT(check_solution(ctx.device(), solve.a, out.x, grid, 16.0).scaled_residual, 16.0);
    }
    const device::DeviceCounters& few = made[0];   // 8 panels
    const device::DeviceCounters& many = made[1];  // 50 panels
    ASSERT_GE(few.host_waits, 0) << "the emulated device counts its waits and copies";
    EXPECT_EQ(few.allocations, many.allocations);
    // Bytes: within the data's own difference (above), each way.
    const double slack = 4.0 * n * (50 - 8) / 2.0 * sizeof(double);
    EXPECT_NEAR(static_cast<double>(many.bytes_to_device), static_cast<double>(few.bytes_to_device),
                slack);
    EXPECT_NEAR(static_cast<double>(many.bytes_to_host), static_cast<double>(few.bytes_to_host),
                slack);
    EXPECT_NEAR(static_cast<double>(many.bytes_device_to_device),
                static_cast<double>(few.bytes_device_to_device), slack);
    if (fact_on == FactOn::Device && test::world_size() == 1)
      for (const device::DeviceCounters& l : loop) {
        EXPECT_EQ(l.host_waits, 0) << "host waits inside the iteration loop";
        EXPECT_EQ(l.allocations, 0) << "allocations inside the iteration loop";
      }
    std::printf(
        "[ counters ] FACT on the %s, 8 panels: %ld allocations, %ld host waits, %lld B to "
        "device, %lld B to host, %lld B on device; 50 panels: %ld, %ld, %lld, %lld, %lld; "
        "host waits in the loop: %ld and %ld\n",
        name_of(fact_on), few.allocations, few.host_waits, few.bytes_to_device, few.bytes_to_host,
        few.bytes_device_to_device, many.allocations, many.host_waits, many.bytes_to_device,
        many.bytes_to_host, many.bytes_device_to_device, loop[0].host_waits, loop[1].host_waits);
  }
}

// --update-sms: the update queued beside device FACT makes its BLAS calls
// with the compute queue's SM target set (Queue::set_blas_sms), only in the
// iterations whose trailing matrix has fewer than --update-sms-below rows,
// and nothing else changes: the same x to the bit. N = 400, NB = 50, depth
// 1: seven iterations update beside FACT, at next = 100, 150, ..., 400;
// four of them (next > 200) leave fewer than 200 rows. On one process each
// makes one TRSM and one GEMM.
TEST(SolveWorkspace, TheUpdateBesideFactKeepsSmsOnlyWhereTheTrailingMatrixIsSmall) {
  const Context& ctx = test::test_context(device::BackendKind::Emulated);
  const ProcessGrid grid(MPI_COMM_WORLD, 1, test::world_size(), GridOrder::RowMajor);
  struct Run {
    long calls;
    std::vector<double> x;
  };
  auto run = [&](int sms, long below) {
    DepthOneSolve solve(ctx, 400, 50, grid);
    solve.t.schedule.fact_on = FactOn::Device;
    solve.t.schedule.update_sms = sms;
    solve.t.schedule.update_sms_below = below;
    const SolveOutcome out = pdgesv(ctx, solve.a, solve.t, grid);
    EXPECT_LT(check_solution(ctx.device(), solve.a, out.x, grid, 16.0).scaled_residual, 16.0);
    long calls = out.loop.blas_on_fewer_sms;
    MPI_Allreduce(MPI_IN_PLACE, &calls, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return Run{calls, out.x};
  };
  const Run plain = run(0, 0), every = run(100, 0), late = run(100, 200);
  EXPECT_EQ(plain.calls, 0) << "no SM target without --update-sms";
  EXPECT_GT(late.calls, 0) << "the late iterations' updates keep SMs";
  EXPECT_LT(late.calls, every.calls) << "the early iterations' do not";
  if (test::world_size() == 1) {
    EXPECT_EQ(every.calls, 7 * 2);
    EXPECT_EQ(late.calls, 4 * 2);
  }
  EXPECT_EQ(every.x, plain.x);
  EXPECT_EQ(late.x, plain.x);
  std::printf(
      "[ update sms ] BLAS calls on fewer SMs: %ld in every iteration, %ld below 200 rows\n",
      every.calls, late.calls);
}

}  // namespace
}  // namespace hplx::lu
