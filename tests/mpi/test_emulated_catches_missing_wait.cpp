// The emulated device exists to catch, without a GPU, the bugs GPU code
// has. This plants one: the row swap's host wait for the packed U rows (the
// first synchronize() of its queue in a swap) is dropped by the emulated
// device (DroppedWaits), so MPI may send the message buffer before the
// queue has copied the rows into it. On the emulated device (queues on
// worker threads, random delays) most seeds must then give a wrong U, while
// with the wait every seed gives the right one. On the host backend, whose
// queue finishes work before returning, the bug is invisible: that is why
// the emulated device is needed.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "device/compiled_backends.hpp"
#include "device/device.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "tests/mpi/first_panel_swap.hpp"

namespace hplx::lu {
namespace {

constexpr long kN = 300;
constexpr int kNb = 24;
constexpr int kSeeds = 8;

// Whether one swap of the first panel's pivots over the trailing columns
// leaves the right U on every rank (all ranks agree on the answer).
// `omit_wait` (the emulated device only): the swap's wait for its packed
// rows dropped.
bool swap_gives_right_u(device::Device& dev, bool omit_wait) {
  std::mt19937_64 gen(42);  // the same pivots on every rank
  test::FirstPanelSwap f(
      dev, kN, kNb, [&](int c) { return std::uniform_int_distribution<long>(c, kN - 1)(gen); });
  SwapForm form = swap_form(SwapParams{}, f.nn);
  form.algorithm = SwapAlgorithm::Long;
  form.equilibrate = false;
  SwapBuffers b;
  std::optional<device::DroppedWaits> dropped;
  if constexpr (device::kEmulatedCompiled)
    if (omit_wait) dropped.emplace(device::DroppedWaits::next_synchronizes(dev.compute()));
  swap_rows(dev.compute(), f.a, f.p, f.plan, f.lc0, f.nn, f.grid, b, form);
  // The pack wait is the swap's first synchronize(): the one dropped.
  if (dropped) EXPECT_EQ(dropped->dropped(), 1) << "the planted bug was not reached";
  dropped.reset();
  return f.u_is_right(dev, b.u);
}

std::shared_ptr<device::Device> emulated(std::uint64_t seed) {
  device::EmulatedOptions o;
  o.seed = seed;
  o.max_delay_us = 2000;  // every operation late by up to 2 ms: a race shows
  o.delay_share = 1.0;
  if constexpr (device::kEmulatedCompiled)
    return std::make_shared<device::Device>(device::make_emulated_backend(o));
  return nullptr;
}

TEST(EmulatedDevice, CatchesTheRowSwapsMissingWaitInMostSeeds) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "the row swap sends messages only with 2 or more process rows";
  int caught = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    EXPECT_TRUE(swap_gives_right_u(*emulated(seed), false)) << "with the wait, seed " << seed;
    if (!swap_gives_right_u(*emulated(seed), true)) ++caught;
  }
  EXPECT_GT(caught, kSeeds / 2) << "the planted missing wait went unnoticed in " << kSeeds - caught
                                << " of " << kSeeds << " seeds";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("missing wait caught in %d of %d seeds\n", caught, kSeeds);
}

// The same bug on the host backend passes unnoticed: its queue has finished
// the copy when the call returns, so the wait has nothing to wait for and
// the swap gives the right U with it or without it.
TEST(EmulatedDevice, TheSameBugIsInvisibleOnTheHostBackend) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "needs 2 or more process rows";
  auto host = device::make_device(device::BackendKind::Host);
  EXPECT_TRUE(host->compute().runs_inline());
  EXPECT_TRUE(swap_gives_right_u(*host, false));
}

}  // namespace
}  // namespace hplx::lu
