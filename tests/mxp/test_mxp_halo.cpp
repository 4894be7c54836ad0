// Halo exchange and distributed SpMV on every process-grid shape of the
// job's rank count: every halo entry must hold the neighbour's value of
// that global point, and A x must equal the stencil sum over the global grid.
// On every device backend compiled in (the halo is packed on the transfer
// queue and, where device memory is not host-accessible, staged).
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <vector>

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

}  // namespace
}  // namespace hplx::mxp
