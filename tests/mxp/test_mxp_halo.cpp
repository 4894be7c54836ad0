// Halo exchange and distributed SpMV on every process-grid shape of the
// job's rank count: every halo entry must hold the neighbour's value of
// that global point, and A x must equal the stencil sum over the global grid.
// On every device backend compiled in (the halo is packed on the transfer
// queue and, where device memory is not host-accessible, staged).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "device/compiled_backends.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "mxp/ell_matrix.hpp"
#include "mxp/problem.hpp"
#include "tests/mxp/mxp_test_util.hpp"

namespace hplx::mxp {
namespace {

// A value per global point, exact in float.
double point_value(long gx, long gy, long gz) {
  return double((gx * 7 + gy * 13 + gz * 29) % 1000);
}

std::vector<ProcessShape> shapes_of(int p) {
  std::vector<ProcessShape> out;
  for (int x = 1; x <= p; ++x)
    for (int y = 1; x * y <= p; ++y)
      if (p % (x * y) == 0) out.push_back({x, y, p / (x * y)});
  return out;
}

using test::download;
using test::upload;

class MxpHalo : public test::OnBackend {};

template <class T>
void check_halo(device::Device& dev) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int dims[][3] = {{8, 8, 8}, {16, 8, 24}};
  for (const ProcessShape& shape : shapes_of(size)) {
    for (const auto& d : dims) {
      SCOPED_TRACE(::testing::Message() << shape.npx << "x" << shape.npy << "x" << shape.npz
                                        << " local " << d[0] << "x" << d[1] << "x" << d[2]);
      const Geometry g = make_geometry(rank, size, d[0], d[1], d[2], shape);
      const Problem p = generate_problem(dev, g, {}, MPI_COMM_WORLD);
      const Level& lv = p.levels[0];
      const long n = lv.a.rows();
      EXPECT_EQ(lv.a.global_nnz, [&] {
        // 27-point stencil on a box: sum over points of the in-domain neighbours.
        auto line = [](long m) { return 3 * m - 2; };
        return line(g.gnx) * line(g.gny) * line(g.gnz);
      }());
      std::vector<T> x(lv.a.columns(), T(-1)), y(n);
      for (long r = 0; r < n; ++r) {
        const int nat = lv.order.to_natural[r];
        x[r] = static_cast<T>(point_value(g.gix0 + nat % g.nx, g.giy0 + (nat / g.nx) % g.ny,
                                          g.giz0 + nat / (g.nx * g.ny)));
      }
      // Rows before boundary_begin must not read the halo.
      const std::vector<int> cols = download(dev, lv.a.pattern->cols);
      for (int c = 0; c < kColors; ++c)
        for (long r = lv.order.color_begin[c]; r < lv.order.boundary_begin[c]; ++r)
          for (int s = 0; s < kSlots; ++s) ASSERT_LT(cols[EllPattern::index(r, s)], n);

      device::Queue& q = dev.compute();
      device::Buffer<T> dx = upload(dev, x), dy = dev.alloc<T>(n);
      HaloExchange<T> halo(dev, &lv.halo, n, MPI_COMM_WORLD);
      if (lv.halo.send_size > 0) {
        EXPECT_EQ(halo.direct(), dev.backend().host_accessible(device::MemorySpace::Device));
      }
      halo.begin(q, dx.data());
      halo.finish(q, dx.data());
      x = download(dev, dx);
      long checked = 0;
      for (int iz = -1; iz <= g.nz; ++iz)
        for (int iy = -1; iy <= g.ny; ++iy)
          for (int ix = -1; ix <= g.nx; ++ix) {
            if (ix >= 0 && ix < g.nx && iy >= 0 && iy < g.ny && iz >= 0 && iz < g.nz) continue;
            const long pos = lv.halo.position(ix, iy, iz);
            const long gx = g.gix0 + ix, gy = g.giy0 + iy, gz = g.giz0 + iz;
            const bool owned =
                gx >= 0 && gx < g.gnx && gy >= 0 && gy < g.gny && gz >= 0 && gz < g.gnz;
            ASSERT_EQ(pos >= 0, owned) << ix << "," << iy << "," << iz;
            if (!owned) continue;
            ASSERT_EQ(x[n + pos], static_cast<T>(point_value(gx, gy, gz)));
            ++checked;
          }
      EXPECT_EQ(checked, lv.halo.halo_size);

      for (long r = n; r < lv.a.columns(); ++r) x[r] = T(-1);  // spmv must fill the halo itself
      dx = upload(dev, x);
      const EllMatrix<T> a = convert_matrix<T>(dev, lv.a);
      spmv(q, a, lv.order, halo, dx.data(), dy.data(), nullptr);
      y = download(dev, dy);
      for (long r = 0; r < n; ++r) {
        const int nat = lv.order.to_natural[r];
        const long gx = g.gix0 + nat % g.nx, gy = g.giy0 + (nat / g.nx) % g.ny,
                   gz = g.giz0 + nat / (g.nx * g.ny);
        double want = 0;
        for (int sz = -1; sz <= 1; ++sz)
          for (int sy = -1; sy <= 1; ++sy)
            for (int sx = -1; sx <= 1; ++sx) {
              const long jx = gx + sx, jy = gy + sy, jz = gz + sz;
              if (jx < 0 || jy < 0 || jz < 0 || jx >= g.gnx || jy >= g.gny || jz >= g.gnz) continue;
              want += stencil_value(sx, sy, sz, false) * point_value(jx, jy, jz);
            }
        ASSERT_EQ(y[r], static_cast<T>(want)) << "row " << r;
      }
    }
  }
}

TEST_P(MxpHalo, EveryShapeExchangesTheNeighboursValuesAndSpmvMatches) {
  check_halo<float>(dev());
  check_halo<double>(dev());
}

HPLX_INSTANTIATE_OVER_BACKENDS(MxpHalo);

// Device memory that MPI cannot read (as a GPU's without GPU-aware MPI):
// the halo must stage through Pinned buffers with copies on the transfer
// queue.
TEST(MxpHaloStaged, DeviceMemoryThatMpiCannotReadIsStagedThroughPinnedBuffers) {
  device::Device dev(std::make_unique<test::DisguisedHost>(device::BackendKind::Host, false));
  check_halo<float>(dev);
  check_halo<double>(dev);
}

// The emulated device exists to catch the bugs GPU code has. This plants
// one: the compute queue does not wait for the transfer queue's copy of the
// halo out of the staging (the emulated device drops the compute queue's
// waits on the transfer queue's events: DroppedWaits), so a kernel
// queued right after finish() may read the halo before it lands. With
// every operation late by up to 2 ms, most seeds must then read a wrong
// halo in one of five exchanges, and with the wait none may.
bool halo_read_right(device::Device& dev, bool omit_wait) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The halo plan only (host work): generating a problem on a device this
  // late would take most of the test's time.
  const Geometry g = make_geometry(rank, size, 16, 8, 8, shapes_of(size).back());
  const HaloPlan plan = make_halo_plan(g, make_natural_ordering(g));
  const long n = long(g.nx) * g.ny * g.nz, halo_size = plan.halo_size;
  std::vector<double> x(n + halo_size, -1.0);
  for (long r = 0; r < n; ++r) x[r] = 1.0 + r;
  HaloExchange<double> halo(dev, &plan, n, MPI_COMM_WORLD);
  std::vector<double> want;
  int right = 1;
  for (int round = 0; round < 5; ++round) {  // every rank every round: they exchange
    device::Buffer<double> dx = test::upload(dev, x);
    halo.begin(dev.compute(), dx.data());
    {
      std::optional<device::DroppedWaits> dropped;
      if constexpr (device::kEmulatedCompiled)
        if (omit_wait)
          dropped.emplace(device::DroppedWaits::waits_on_events_of(dev.compute(), dev.transfer()));
      halo.finish(dev.compute(), dx.data());
      if (dropped) EXPECT_EQ(dropped->dropped(), 1) << "the planted bug was not reached";
    }
    // A kernel's read of the halo, queued on the compute queue.
    std::vector<double> got(halo_size);
    device::copy(dev.compute(), got.data(), dx.data() + n, halo_size);
    dev.compute().synchronize();
    dev.transfer().synchronize();
    // The halo that landed in the end is the right one to compare with.
    const std::vector<double> landed = test::download(dev, dx.data() + n, halo_size);
    if (std::find(landed.begin(), landed.end(), -1.0) != landed.end()) {
      ADD_FAILURE() << "round " << round << ": the halo never landed";
      right = 0;
    }
    if (got != landed) right = 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return right == 1;
}

// An emulated device whose every operation is late by up to 2 ms.
std::shared_ptr<device::Device> late_device(std::uint64_t seed) {
  device::EmulatedOptions o;
  o.seed = seed;
  o.max_delay_us = 2000;
  o.delay_share = 1.0;
  if constexpr (device::kEmulatedCompiled)
    return std::make_shared<device::Device>(device::make_emulated_backend(o));
  return nullptr;
}

TEST(MxpEmulatedDevice, CatchesTheHalosMissingWaitInMostSeeds) {
  if (!device::kEmulatedCompiled) GTEST_SKIP() << "the emulated backend is not compiled in";
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "one rank has no halo to exchange";
  // 8 ranks on 2 cores, each with two late queues, take minutes; the race
  // shows on 2 and 4.
  if (size > 4) GTEST_SKIP() << "shown on 2 and 4 ranks";
  constexpr int kSeeds = 8;
  int caught = 0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    const auto dev = late_device(1000 + seed);
    ASSERT_TRUE(halo_read_right(*dev, false)) << "with the wait, seed " << seed;
    if (!halo_read_right(*dev, true)) ++caught;
  }
  std::printf("the missing halo wait was caught in %d of %d seeds\n", caught, kSeeds);
  EXPECT_GT(caught, kSeeds / 2);
}

}  // namespace
}  // namespace hplx::mxp
