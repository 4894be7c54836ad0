// FACT on the device (panel_factor_device.hpp) against host FACT
// (panel_factor.cpp), with the panel's rows spread block-cyclically over
// all ranks of the job (one process column: P = the rank count), on every
// backend compiled in and usable (host and emulated here; the emulated one
// with random queue delays): the same pivots, the same info, values equal
// up to rounding, for every RFACT x PFACT, odd sizes, NB 1 to 3 and
// larger, NBMIN 1-8 and NDIV 2-4, ties, NaNs and a zero column. And the
// emulated device catches each wait of device FACT's schedule left out:
// FACT not waiting for the look-ahead update of its columns, the update
// not waiting for FACT's event, FACT writing a reused panel buffer before
// the updates that read it are done.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "core/grid.hpp"
#include "device/compiled_backends.hpp"
#include "device/device.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/fact/panel_factor_device.hpp"
#include "lu/phases/panel.hpp"
#include "lu/schedules/panel_store.hpp"
#include "tests/device/backends.hpp"

namespace hplx::lu {
namespace {

struct Case {
  long m;
  int jb, nb, nbmin, ndiv;
};

struct Factored {
  std::vector<double> lu;  // the whole m x jb panel, as every rank sees it
  std::vector<long> ipiv;
  long info = -1;
};

std::vector<double> random_panel(long m, int jb, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> a(m * jb);
  for (auto& v : a) v = u(gen);
  return a;
}

// Factors the m x jb panel spread over the ranks (nb-row blocks) on the
// host (dev null) or on `dev`'s compute queue with the `leaf` form;
// returns the whole panel.
Factored factor(const std::vector<double>& full, const Case& c, Factorization rfact,
                Factorization pfact, device::Device* dev, FactLeaf leaf = FactLeaf::Fused) {
  int me = 0, np = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const long mp = local_count(c.m, c.nb, me, np);
  Panel p;
  p.k = 0;
  p.jb = c.jb;
  p.owner_row = 0;
  p.a2_first = me == 0 ? c.jb : 0;
  p.m2 = mp - p.a2_first;
  p.ipiv.assign(c.jb, 0);
  if (dev) p.w.bind(dev->backend());
  p.w.assign(p.ld() * c.jb + c.jb + 1, 0.0);
  for (long j = 0; j < c.jb; ++j) {
    for (long r = 0; r < c.jb; ++r) p.a1()[r + j * p.ld()] = full[r + j * c.m];
    for (long i = 0; i < p.m2; ++i) {
      const long g = local_to_global(p.a2_first + i, c.nb, me, np);
      p.a2()[i + j * p.ld()] = full[g + j * c.m];
    }
  }
  const PanelRows rows{c.nb, np, me, p.a2_first};
  if (dev) {
    device::Queue& q = dev->compute();
    p.w.to_device(q);
    DeviceFactWorkspace ws;
    FactParams f{rfact, pfact, c.nbmin, c.ndiv};
    f.leaf = leaf;
    factor_stacked_panel_device(q, p, rows, f, MPI_COMM_WORLD, ws);
    const std::vector<long> exchanged = p.ipiv;
    const long exchanged_info = p.info;
    p.w.to_host(q);
    q.synchronize();
    unpack_panel_tail(p);
    // With several processes the host learns the pivots from the
    // exchanges: they must be the device's.
    if (np > 1) {
      EXPECT_EQ(exchanged, p.ipiv);
      EXPECT_EQ(exchanged_info, p.info);
    }
  } else {
    factor_stacked_panel(p, rows, rfact, pfact, c.nbmin, c.ndiv, MPI_COMM_WORLD);
  }
  std::vector<double> mine(c.m * c.jb, 0.0);
  for (long j = 0; j < c.jb; ++j) {
    if (me == 0)
      for (long r = 0; r < c.jb; ++r) mine[r + j * c.m] = p.a1()[r + j * p.ld()];
    for (long i = 0; i < p.m2; ++i) {
      const long g = local_to_global(p.a2_first + i, c.nb, me, np);
      mine[g + j * c.m] = p.a2()[i + j * p.ld()];
    }
  }
  Factored f;
  f.lu.assign(mine.size(), 0.0);
  MPI_Allreduce(mine.data(), f.lu.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  f.ipiv = p.ipiv;
  f.info = p.info;
  return f;
}

// Largest |x - y|, where NaN matches NaN and nothing else.
double max_difference(const std::vector<double>& x, const std::vector<double>& y) {
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      if (std::isnan(x[i]) != std::isnan(y[i])) return std::numeric_limits<double>::infinity();
    } else {
      d = std::max(d, std::fabs(x[i] - y[i]));
    }
  }
  return d;
}

double max_magnitude(const std::vector<double>& a) {
  double m = 0;
  for (double v : a)
    if (!std::isnan(v)) m = std::max(m, std::fabs(v));
  return m;
}

class DeviceFact : public testing::TestWithParam<device::BackendKind> {
 protected:
  device::Device& dev() {
    if (!dev_) dev_ = device::make_device(GetParam());
    return *dev_;
  }
  // Device FACT of `full` against host FACT: the same pivots and info,
  // values within 1e-12 relative.
  void expect_like_host(const std::vector<double>& full, const Case& c, Factorization rfact,
                        Factorization pfact) {
    const Factored host = factor(full, c, rfact, pfact, nullptr);
    const Factored on = factor(full, c, rfact, pfact, &dev());
    const auto where = testing::Message()
                       << device::name_of(GetParam()) << " " << name_of(rfact) << "/"
                       << name_of(pfact) << " m=" << c.m << " jb=" << c.jb << " nb=" << c.nb
                       << " nbmin=" << c.nbmin << " ndiv=" << c.ndiv;
    ASSERT_EQ(on.ipiv, host.ipiv) << where;
    EXPECT_EQ(on.info, host.info) << where;
    EXPECT_LE(max_difference(on.lu, host.lu), 1e-12 * std::max(1.0, max_magnitude(full))) << where;
  }

 private:
  std::shared_ptr<device::Device> dev_;
};

constexpr Factorization kFacts[] = {Factorization::Left, Factorization::Crout,
                                    Factorization::Right};

TEST_P(DeviceFact, GivesHostFactsPivotsAndValuesForEveryVariant) {
  // Odd m and jb, NB 1 to 3 and larger, a panel narrower than NBMIN, one
  // of a single column, one whose rows fill only the diagonal block, and
  // (m = 700) more rows than one pivot-search chunk.
  // (jb <= nb, as in HPL: A1 is one block.)
  const Case cases[] = {{41, 3, 3, 2, 2},    {97, 16, 16, 4, 2},  {64, 13, 16, 1, 3},
                        {33, 3, 3, 8, 4},    {200, 24, 32, 8, 4}, {9, 9, 9, 3, 3},
                        {151, 21, 21, 5, 2}, {30, 1, 1, 1, 2},    {77, 2, 2, 1, 3},
                        {5, 2, 2, 1, 4},     {700, 33, 40, 6, 3}};
  unsigned seed = 1;
  for (Factorization rfact : kFacts)
    for (Factorization pfact : kFacts)
      for (const Case& c : cases) {
        expect_like_host(random_panel(c.m, c.jb, seed++), c, rfact, pfact);
        if (HasFatalFailure()) return;
      }
}

TEST_P(DeviceFact, FusedLeafGivesTheKernelLeafsResultsBitForBit) {
  // The fused leaf (one phased kernel per leaf, four or three phases per
  // column) runs right-looking PFACT on one process row; it must give the
  // kernel bodies' leaf exactly: the same pivots, info and bits, with
  // ties, NaNs and a zero column too. 5003 rows: chunks of 16 rows and
  // more, taken four at a time with a remainder.
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (np > 1) GTEST_SKIP() << "the fused leaf runs on one process row";
  const Case cases[] = {{97, 16, 16, 4, 2}, {700, 33, 40, 6, 3},  {41, 3, 3, 2, 2},
                        {30, 1, 1, 1, 2},   {300, 12, 12, 12, 2}, {5003, 24, 24, 6, 2}};
  unsigned seed = 11;
  for (Factorization rfact : kFacts)
    for (const Case& c : cases) {
      std::vector<double> full = random_panel(c.m, c.jb, seed++);
      if (c.m == 300) {  // ties, a zero column (info), then a NaN (it spreads right)
        std::mt19937_64 gen(seed);
        std::uniform_int_distribution<int> u(-2, 2);
        for (auto& v : full) v = u(gen);
        for (long r = 0; r < c.m; ++r) full[r + 5 * c.m] = 0.0;
        full[250 + 10 * c.m] = std::numeric_limits<double>::quiet_NaN();
      }
      const Factored kernels =
          factor(full, c, rfact, Factorization::Right, &dev(), FactLeaf::Kernels);
      for (const FactLeaf leaf : {FactLeaf::Fused, FactLeaf::Fused3}) {
        const Factored fused = factor(full, c, rfact, Factorization::Right, &dev(), leaf);
        const auto where = testing::Message()
                           << device::name_of(GetParam()) << " " << name_of(leaf) << " "
                           << name_of(rfact) << " m=" << c.m << " jb=" << c.jb;
        ASSERT_EQ(fused.ipiv, kernels.ipiv) << where;
        EXPECT_EQ(fused.info, kernels.info) << where;
        EXPECT_EQ(max_difference(fused.lu, kernels.lu), 0.0) << where;
      }
    }
}

TEST_P(DeviceFact, BreaksTiesAndNaNsLikeHostFact) {
  // Small integers make equal magnitudes common, so many pivot searches
  // are decided by the tie rule (on several ranks, across them), and the
  // NaNs of the last column by the NaN rule.
  const Case c{8 + 300, 8, 8, 2, 2};
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> u(-2, 2);
  std::vector<double> full(c.m * c.jb);
  for (auto& v : full) v = u(gen);
  full[290 + (c.jb - 1) * c.m] = std::numeric_limits<double>::quiet_NaN();
  full[20 + (c.jb - 1) * c.m] = std::numeric_limits<double>::quiet_NaN();
  for (Factorization rfact : kFacts)
    for (Factorization pfact : kFacts) {
      expect_like_host(full, c, rfact, pfact);
      if (HasFatalFailure()) return;
    }
}

TEST_P(DeviceFact, AZeroColumnGivesHostFactsInfo) {
  const Case c{30, 6, 4, 2, 2};
  auto full = random_panel(c.m, c.jb, 99);
  for (long i = 0; i < c.m; ++i) full[i + 2 * c.m] = 0.0;  // column 2 all zero
  for (Factorization rfact : kFacts)
    for (Factorization pfact : kFacts) {
      expect_like_host(full, c, rfact, pfact);
      const Factored on = factor(full, c, rfact, pfact, &dev());
      EXPECT_EQ(on.info, 3);  // 1 + the global column of the first zero pivot
      for (double v : on.lu) EXPECT_TRUE(std::isfinite(v));
    }
}

HPLX_INSTANTIATE_OVER_BACKENDS(DeviceFact);

// The look-ahead updates the next panel's columns on the compute queue;
// FACT on the transfer queue must wait for it. Whether FACT of the first
// panel, after an update of its columns on the compute queue (one GEMM per
// column, so the update takes a while on a delayed queue), gives the same
// pivots and columns as on the host backend.
int test_world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

constexpr long kN = 240;
constexpr int kNb = 16;

struct FactOutcome {
  std::vector<long> ipiv;
  std::vector<double> columns;  // the panel's local columns, all local rows
};

// The generated kN x kN matrix on one process column of all ranks, and
// the device's compute and transfer queues (FACT runs on the latter here).
struct GeneratedColumn {
  explicit GeneratedColumn(device::Device& dev)
      : grid(MPI_COMM_WORLD, test_world_size(), 1, GridOrder::RowMajor),
        a(dev, kN, kNb, grid),
        compute(dev.compute()),
        transfer(dev.transfer()) {
    generate_matrix(compute, a, grid);
  }
  ProcessGrid grid;
  LocalMatrix a;
  device::Queue& compute;
  device::Queue& transfer;
};

FactOutcome fact_after_update(device::Device& dev, bool wait) {
  GeneratedColumn g(dev);
  auto& [grid, a, compute, transfer] = g;
  // A(:, 0:nb) -= A(:, nb:2nb) * A(0:nb, 2nb:3nb), a column at a time.
  for (long j = 0; j < kNb; ++j)
    compute.gemm(device::Trans::No, device::Trans::No, a.mp(), 1, kNb, -1.0, a.at(0, kNb), a.lda(),
                 a.at(0, 2 * kNb + j), a.lda(), 1.0, a.at(0, j), a.lda());
  if (wait) transfer.wait(compute.record());
  Panel p = make_panel(a, 0, grid);
  DeviceFactWorkspace ws;
  FactParams f;
  factor_panel_device(transfer, a, p, f, grid, ws, false);
  transfer.synchronize();
  pivots_to_host(transfer, p);
  FactOutcome out;
  out.ipiv = p.ipiv;
  out.columns.resize(a.mp() * kNb);
  device::copy_matrix(compute, a.mp(), kNb, static_cast<const double*>(a.at(0, 0)), a.lda(),
                      out.columns.data(), a.mp());
  compute.synchronize();
  return out;
}

std::shared_ptr<device::Device> delayed_emulated(std::uint64_t seed) {
  device::EmulatedOptions o;
  o.seed = seed;
  o.max_delay_us = 2000;  // every operation late by up to 2 ms: a race shows
  o.delay_share = 1.0;
  return std::make_shared<device::Device>(device::make_emulated_backend(o));
}

// Whether every rank got `expected`'s pivots and columns.
bool same_everywhere(const FactOutcome& got, const FactOutcome& expected) {
  int same =
      got.ipiv == expected.ipiv && max_difference(got.columns, expected.columns) <=
                                       1e-12 * std::max(1.0, max_magnitude(expected.columns));
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return same == 1;
}

TEST(EmulatedDevice, CatchesDeviceFactsMissingWaitForTheLookAheadInMostSeeds) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  auto host = device::make_device(device::BackendKind::Host);
  const FactOutcome expected = fact_after_update(*host, true);
  constexpr int kSeeds = 8;
  int caught = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    EXPECT_TRUE(same_everywhere(fact_after_update(*delayed_emulated(seed), true), expected))
        << "with the wait, seed " << seed;
    if (!same_everywhere(fact_after_update(*delayed_emulated(seed), false), expected)) ++caught;
  }
  EXPECT_GT(caught, kSeeds / 2) << "the planted missing wait went unnoticed in " << kSeeds - caught
                                << " of " << kSeeds << " seeds";
}

// On the host backend the same bug passes unnoticed: its queues finish
// their work before returning.
TEST(EmulatedDevice, DeviceFactsMissingWaitIsInvisibleOnTheHostBackend) {
  auto host = device::make_device(device::BackendKind::Host);
  EXPECT_TRUE(same_everywhere(fact_after_update(*host, false), fact_after_update(*host, true)));
}

// The update on the compute queue reads the panel FACT left in W on the
// transfer queue; it must wait for FACT's event (panel_to_device). What
// the update sees of W, with the wait and without.
std::vector<double> update_reads_of_w(device::Device& dev, bool wait) {
  GeneratedColumn g(dev);
  auto& [grid, a, compute, transfer] = g;
  transfer.wait(compute.record());  // the matrix is generated
  Panel p = make_panel(a, 0, grid);
  DeviceFactWorkspace ws;
  factor_panel_device(transfer, a, p, FactParams{}, grid, ws, false);
  if (wait) panel_to_device(compute, p);
  device::Mirror<double> seen(dev.backend());
  seen.resize(p.ld() * p.jb);
  device::copy(compute, seen.device(), static_cast<const double*>(p.w.device()), seen.size());
  seen.to_host(compute);
  compute.synchronize();
  transfer.synchronize();
  return {seen.begin(), seen.end()};
}

TEST(EmulatedDevice, CatchesTheUpdatesMissingWaitForFactInMostSeeds) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  auto host = device::make_device(device::BackendKind::Host);
  const std::vector<double> expected = update_reads_of_w(*host, true);
  constexpr int kSeeds = 8;
  int caught = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    int right = update_reads_of_w(*delayed_emulated(seed), true) == expected;
    MPI_Allreduce(MPI_IN_PLACE, &right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT_TRUE(right) << "with the wait, seed " << seed;
    int wrong = update_reads_of_w(*delayed_emulated(seed), false) != expected;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    caught += wrong;
  }
  EXPECT_GT(caught, kSeeds / 2) << "the planted missing wait went unnoticed in " << kSeeds - caught
                                << " of " << kSeeds << " seeds";
}

// A panel buffer comes back to the store with events after the updates
// that read it (PanelStore::give); with FACT on the device the next panel
// takes it without the host waiting, and FACT's queue waits for those
// events (Panel::reuse_after) before it writes W. Here eight reads of W
// (copies to `seen`, the last one counts) stand for the updates, queued on
// the compute queue; FACT of the next panel runs on the transfer queue.
// Whether the last read still saw the old panel (filled with 7s).
bool reads_finish_before_reuse(device::Device& dev, bool wait) {
  GeneratedColumn g(dev);
  auto& [grid, a, compute, transfer] = g;
  transfer.wait(compute.record());  // FACT's columns are generated
  PanelStore store;
  store.reserve(a, 1);
  device::Mirror<double> old = store.take();
  std::fill(old.begin(), old.end(), 7.0);
  old.to_device(compute);
  device::Mirror<double> seen(dev.backend());
  seen.resize(old.size());
  for (int read = 0; read < 8; ++read)
    device::copy(compute, seen.device(), static_cast<const double*>(old.device()), old.size());
  store.give(std::move(old), {compute.record()});
  Panel p = make_panel(
      a, 0, grid, [&store](std::vector<device::EventPtr>* pending) { return store.take(pending); },
      true);
  if (!wait) p.reuse_after.clear();  // the planted bug
  DeviceFactWorkspace ws;
  factor_panel_device(transfer, a, p, FactParams{}, grid, ws, false);
  seen.to_host(compute);
  compute.synchronize();
  transfer.synchronize();
  int right = std::all_of(seen.begin(), seen.end(), [](double x) { return x == 7.0; });
  MPI_Allreduce(MPI_IN_PLACE, &right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return right == 1;
}

TEST(EmulatedDevice, CatchesFactWritingAReusedBufferEarlyInMostSeeds) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  constexpr int kSeeds = 8;
  int caught = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    EXPECT_TRUE(reads_finish_before_reuse(*delayed_emulated(seed), true)) << "seed " << seed;
    if (!reads_finish_before_reuse(*delayed_emulated(seed), false)) ++caught;
  }
  EXPECT_GT(caught, kSeeds / 2) << "the planted missing wait went unnoticed in " << kSeeds - caught
                                << " of " << kSeeds << " seeds";
}

}  // namespace
}  // namespace hplx::lu
