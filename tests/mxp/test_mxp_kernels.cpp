// hplx mxp kernels on one rank against straightforward loops over the grid
// in natural (lexicographic) order: SpMV, the multicolor Gauss-Seidel sweep
// against a sequential Gauss-Seidel over the color ordering, the fused
// residual + restriction, prolongation, the V-cycle's linearity (in the
// default ordering, another color order and the lexicographic one), the
// mixed-precision vector kernels and CGS2's orthogonality; float and
// double. Contract tests: every one runs on each device backend compiled in
// (HPLX_INSTANTIATE_OVER_BACKENDS), and the host backend's fast path is
// checked against the portable kernel bodies.
#include <gtest/gtest.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "device/launch.hpp"
#include "mxp/cgs2.hpp"
#include "mxp/gauss_seidel.hpp"
#include "mxp/gmres.hpp"
#include "mxp/kernels/ortho_kernels.hpp"
#include "mxp/multigrid.hpp"
#include "mxp/problem.hpp"
#include "mxp/vector_ops.hpp"
#include "tests/device/test_data.hpp"
#include "tests/mxp/mxp_test_util.hpp"

namespace hplx::mxp {
namespace {

std::vector<double> random_vector(long n, unsigned seed) {
  return hplx::test::random_values(n, seed);
}

using test::download;
using test::upload;

struct Grid {
  Geometry g;
  Problem p;
  Grid(device::Device& dev, bool nonsym = false, int nx = 16, int ny = 8, int nz = 8)
      : Grid(dev, ProblemOptions{nonsym}, nx, ny, nz) {}
  Grid(device::Device& dev, const ProblemOptions& o, int nx = 16, int ny = 8, int nz = 8)
      : g(make_geometry(0, 1, nx, ny, nz)), p(generate_problem(dev, g, o, MPI_COMM_SELF)) {}
};

// The orderings the smoother can run in: the default parity colors
// (coarse points first), the coarse points in the middle of the sweep, and
// the reference's lexicographic sweep.
std::vector<ProblemOptions> orderings() {
  ProblemOptions coarse_middle;
  coarse_middle.colors = {3, 5, 6, 0, 7, 1, 2, 4};
  ProblemOptions lexicographic;
  lexicographic.smoother = Smoother::Lexicographic;
  return {ProblemOptions{}, coarse_middle, lexicographic};
}

// y = A x in natural order, from the stencil definition.
std::vector<double> natural_apply(const Geometry& g, bool nonsym, const std::vector<double>& x) {
  std::vector<double> y(x.size(), 0.0);
  for (int iz = 0; iz < g.nz; ++iz)
    for (int iy = 0; iy < g.ny; ++iy)
      for (int ix = 0; ix < g.nx; ++ix) {
        double s = 0;
        for (int sz = -1; sz <= 1; ++sz)
          for (int sy = -1; sy <= 1; ++sy)
            for (int sx = -1; sx <= 1; ++sx) {
              const int jx = ix + sx, jy = iy + sy, jz = iz + sz;
              if (jx < 0 || jy < 0 || jz < 0 || jx >= g.nx || jy >= g.ny || jz >= g.nz) continue;
              s += stencil_value(sx, sy, sz, nonsym) * x[(jz * g.ny + jy) * g.nx + jx];
            }
        y[(iz * g.ny + iy) * g.nx + ix] = s;
      }
  return y;
}

template <class T>
std::vector<T> to(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

class MxpKernels : public test::OnBackend {};

template <class T>
void check_spmv(device::Device& dev) {
  for (bool nonsym : {false, true}) {
    Grid grid(dev, nonsym);
    const auto& lv = grid.p.levels[0];
    const EllMatrix<T> a = convert_matrix<T>(dev, lv.a);
    const long n = a.rows();
    const auto x_nat = random_vector(n, 7);
    std::vector<T> x(a.columns());
    for (long r = 0; r < n; ++r) x[r] = static_cast<T>(x_nat[lv.order.to_natural[r]]);
    device::Buffer<T> dx = upload(dev, x), dy = dev.alloc<T>(n);
    HaloExchange<T> halo(dev, &lv.halo, n, MPI_COMM_SELF);
    spmv(dev.compute(), a, lv.order, halo, dx.data(), dy.data(), nullptr);
    const std::vector<T> y = download(dev, dy);
    const auto y_nat = natural_apply(grid.g, nonsym, x_nat);
    for (long r = 0; r < n; ++r)
      ASSERT_NEAR(y[r], y_nat[lv.order.to_natural[r]], 30 * tolerance<T>()) << "row " << r;
  }
}

TEST_P(MxpKernels, SpmvEqualsTheStencilLoop) {
  check_spmv<float>(dev());
  check_spmv<double>(dev());
}

TEST_P(MxpKernels, RightHandSideIsTheRowSumSoTheSolutionIsOnes) {
  Grid grid(dev(), true);
  const auto y = natural_apply(grid.g, true, std::vector<double>(grid.p.rows(), 1.0));
  const std::vector<double> b = download(dev(), grid.p.b);
  for (long r = 0; r < grid.p.rows(); ++r)
    ASSERT_DOUBLE_EQ(b[r], y[grid.p.levels[0].order.to_natural[r]]);
}

TEST_P(MxpKernels, NoTwoNeighboursShareAColor) {
  Grid grid(dev());
  for (const Level& lv : grid.p.levels) {
    const long n = lv.a.rows();
    const std::vector<int> cols = download(dev(), lv.a.pattern->cols);
    const std::vector<double> values = download(dev(), lv.a.values);
    std::vector<int> color(n);
    for (int c = 0; c < kColors; ++c)
      for (long r = lv.order.color_begin[c]; r < lv.order.color_begin[c + 1]; ++r) color[r] = c;
    for (long r = 0; r < n; ++r) {
      const int nat = lv.order.to_natural[r];
      ASSERT_EQ(color[r], point_color(nat % lv.geom.nx, (nat / lv.geom.nx) % lv.geom.ny,
                                      nat / (lv.geom.nx * lv.geom.ny)));
      for (int s = 0; s < kSlots; ++s) {
        const long col = cols[EllPattern::index(r, s)];
        if (col == r || values[EllPattern::index(r, s)] == 0) continue;
        ASSERT_NE(color[col], color[r]) << "rows " << r << " and " << col;
      }
    }
  }
}

template <class T>
void check_gs(device::Device& dev) {
  for (const ProblemOptions& o : orderings())
    for (bool from_zero : {false, true}) {
      Grid grid(dev, o);
      const auto& lv = grid.p.levels[0];
      const EllMatrix<T> a = convert_matrix<T>(dev, lv.a);
      const long n = a.rows();
      const auto b_nat = random_vector(n, 3);
      auto x_nat = from_zero ? std::vector<double>(n, 0.0) : random_vector(n, 4);
      std::vector<T> b(n), x(a.columns());
      for (long r = 0; r < n; ++r) {
        b[r] = static_cast<T>(b_nat[lv.order.to_natural[r]]);
        x[r] = static_cast<T>(x_nat[lv.order.to_natural[r]]);
      }
      device::Buffer<T> db = upload(dev, b), dx = upload(dev, x);
      HaloExchange<T> halo(dev, &lv.halo, n, MPI_COMM_SELF);
      gs_sweep(dev.compute(), a, lv.order, halo, db.data(), dx.data(), from_zero, nullptr);
      x = download(dev, dx);
      // Sequential Gauss-Seidel visiting the rows in the color ordering.
      const Geometry& g = grid.g;
      for (long r = 0; r < n; ++r) {
        const int i = lv.order.to_natural[r];
        const int ix = i % g.nx, iy = (i / g.nx) % g.ny, iz = i / (g.nx * g.ny);
        double s = b_nat[i];
        for (int sz = -1; sz <= 1; ++sz)
          for (int sy = -1; sy <= 1; ++sy)
            for (int sx = -1; sx <= 1; ++sx) {
              const int jx = ix + sx, jy = iy + sy, jz = iz + sz;
              if ((sx | sy | sz) == 0 || jx < 0 || jy < 0 || jz < 0 || jx >= g.nx || jy >= g.ny ||
                  jz >= g.nz)
                continue;
              s += 1.0 * x_nat[(jz * g.ny + jy) * g.nx + jx];
            }
        x_nat[i] = s / 26.0;
      }
      for (long r = 0; r < n; ++r)
        ASSERT_NEAR(x[r], x_nat[lv.order.to_natural[r]], 10 * tolerance<T>())
            << "row " << r << (lv.order.sequential ? " (lexicographic)" : "");
    }
}

TEST_P(MxpKernels, ColoredSweepEqualsSequentialGaussSeidelInColorOrder) {
  check_gs<float>(dev());
  check_gs<double>(dev());
}

template <class T>
void check_restriction(device::Device& dev) {
  device::Queue& q = dev.compute();
  for (const ProblemOptions& o : orderings()) {
    Grid grid(dev, o);
    const Level& f = grid.p.levels[0];
    const Level& c = grid.p.levels[1];
    const EllMatrix<T> a = convert_matrix<T>(dev, f.a);
    const long n = a.rows(), nc = c.a.rows();
    const auto r_d = random_vector(n, 5), z_d = random_vector(n, 6);
    std::vector<T> r(n), z(a.columns());
    for (long i = 0; i < n; ++i) {
      r[i] = static_cast<T>(r_d[i]);
      z[i] = static_cast<T>(z_d[i]);
    }
    device::Buffer<T> dr = upload(dev, r), dz = upload(dev, z), daz = dev.alloc<T>(n),
                      drc = upload(dev, std::vector<T>(nc, T(-99)));
    if (f.order.sequential)
      restrict_residual_gather(q, a, f.coarse_to_fine.data(), nc, dr.data(), dz.data(), drc.data());
    else
      restrict_residual_rows(q, a, f.fine_to_coarse.data(), dr.data(), dz.data(), drc.data(),
                             f.order.coarse_begin(), f.order.coarse_end());
    spmv_rows(q, a, dz.data(), daz.data(), 0, n);
    const std::vector<T> rc = download(dev, drc), az = download(dev, daz);
    const std::vector<int> c2f = download(dev, f.coarse_to_fine);
    for (long ic = 0; ic < nc; ++ic) {
      const int cn = c.order.to_natural[ic];
      const int cx = cn % c.geom.nx, cy = (cn / c.geom.nx) % c.geom.ny,
                cz = cn / (c.geom.nx * c.geom.ny);
      const long fr = c2f[ic];
      ASSERT_EQ(f.order.to_natural[fr], (2 * cz * f.geom.ny + 2 * cy) * f.geom.nx + 2 * cx);
      ASSERT_NEAR(rc[ic], r[fr] - az[fr], 30 * tolerance<T>());
    }
    // Prolongation adds the coarse values at the same points, nowhere else.
    std::vector<T> zc(nc);
    for (long ic = 0; ic < nc; ++ic) zc[ic] = static_cast<T>(ic + 1);
    device::Buffer<T> dzc = upload(dev, zc), dzf = upload(dev, std::vector<T>(n, T(1)));
    prolongate(q, f.coarse_to_fine.data(), nc, dzc.data(), dzf.data());
    const std::vector<T> zf = download(dev, dzf);
    long touched = 0;
    for (long i = 0; i < n; ++i) touched += zf[i] != T(1);
    EXPECT_EQ(touched, nc);
    for (long ic = 0; ic < nc; ++ic) EXPECT_EQ(zf[c2f[ic]], T(1) + zc[ic]);
  }
}

TEST_P(MxpKernels, FusedRestrictionIsTheResidualInjectedAtEvenPoints) {
  check_restriction<float>(dev());
  check_restriction<double>(dev());
}

template <class T>
void check_vcycle(device::Device& dev) {
  for (const ProblemOptions& o : orderings()) {
    Grid grid(dev, o);
    Multigrid<T> mg(dev, grid.p, MPI_COMM_SELF);
    const long n = grid.p.rows(), cols = mg.matrix(0).columns();
    const std::vector<T> r1 = to<T>(random_vector(n, 8)), r2 = to<T>(random_vector(n, 9));
    std::vector<T> r12(n);
    for (long i = 0; i < n; ++i) r12[i] = r1[i] + r2[i];
    device::Buffer<T> d1 = upload(dev, r1), d2 = upload(dev, r2), d12 = upload(dev, r12);
    device::Buffer<T> dz1 = dev.alloc<T>(cols), dz2 = dev.alloc<T>(cols), dz12 = dev.alloc<T>(cols);
    mg.apply(d1.data(), dz1.data(), nullptr);
    mg.apply(d2.data(), dz2.data(), nullptr);
    mg.apply(d12.data(), dz12.data(), nullptr);
    const std::vector<T> z1 = download(dev, dz1), z2 = download(dev, dz2),
                         z12 = download(dev, dz12);
    for (long i = 0; i < n; ++i) ASSERT_NEAR(z12[i], z1[i] + z2[i], 100 * tolerance<T>());
    // As a preconditioner for A e = r: ||r - A M r|| < ||r||.
    device::Buffer<T> daz = dev.alloc<T>(n);
    spmv_rows(dev.compute(), mg.matrix(0), dz1.data(), daz.data(), 0, n);
    const std::vector<T> az = download(dev, daz);
    double res = 0, nr = 0;
    for (long i = 0; i < n; ++i) {
      res += double(r1[i] - az[i]) * double(r1[i] - az[i]);
      nr += double(r1[i]) * r1[i];
    }
    EXPECT_LT(std::sqrt(res), 0.5 * std::sqrt(nr)) << to_string(o.smoother);
  }
}

TEST_P(MxpKernels, VCycleIsLinearAndReducesTheError) {
  check_vcycle<float>(dev());
  check_vcycle<double>(dev());
}

TEST_P(MxpKernels, MixedPrecisionWaxpbyAndDotMatchLoops) {
  // Above the threads' grain, so the host runs its threaded loop too.
  for (const long n : {1000L, 20000L}) {
    const auto xd = random_vector(n, 1), yd = random_vector(n, 2);
    const std::vector<float> yf = to<float>(yd);
    device::Buffer<double> dx = upload(dev(), xd), dw = dev().alloc<double>(n);
    device::Buffer<float> dy = upload(dev(), yf), ds = dev().alloc<float>(n);
    waxpby(q(), n, 2.0, dx.data(), -0.5, dy.data(), dw.data());
    const std::vector<double> w = download(dev(), dw);
    double dot_ref = 0;
    for (long i = 0; i < n; ++i) {
      ASSERT_DOUBLE_EQ(w[i], 2.0 * xd[i] - 0.5 * double(yf[i]));
      dot_ref += xd[i] * double(yf[i]);
    }
    EXPECT_NEAR(local_dot(q(), n, dx.data(), dy.data()), dot_ref, 1e-12);
    scale_copy(q(), n, 3.0, dx.data(), ds.data());
    const std::vector<float> s = download(dev(), ds);
    for (long i = 0; i < n; ++i) ASSERT_EQ(s[i], static_cast<float>(3.0 * xd[i]));
    const double norm = global_norm(q(), n, dx.data(), MPI_COMM_WORLD);
    EXPECT_NEAR(norm * norm, local_dot(q(), n, dx.data(), dx.data()), 1e-9);
    scale(q(), n, 0.5, dw.data());
    fill(q(), n, 2.5f, ds.data());
    const std::vector<double> w2 = download(dev(), dw);
    const std::vector<float> f2 = download(dev(), ds);
    for (long i = 0; i < n; ++i) {
      ASSERT_EQ(w2[i], 0.5 * w[i]);
      ASSERT_EQ(f2[i], 2.5f);
    }
  }
}

// CGS2 keeps the Krylov basis orthonormal: after k Arnoldi steps (multigrid,
// SpMV, two projections with the queue's GEMVs or with three reads of Q),
// Q^T Q = I.
template <class T>
void check_cgs2(device::Device& dev, bool three_reads) {
  Grid grid(dev);
  const int m = 8;
  const long n = grid.p.rows();
  Multigrid<T> mg(dev, grid.p, MPI_COMM_SELF);
  ArnoldiCycle<T> arnoldi(dev, n, m, grid.p.global_rows(), MPI_COMM_SELF);
  arnoldi.set_fused_cgs2(three_reads);
  const std::vector<double> r = random_vector(n, 11);
  double nr = 0;
  for (double v : r) nr += v * v;
  nr = std::sqrt(nr);
  std::vector<T> q0(n);
  for (long i = 0; i < n; ++i) q0[i] = static_cast<T>(r[i] / nr);
  device::copy(dev.compute(), arnoldi.basis(0), q0.data(), n);
  const int k = arnoldi.run(mg, nr, 0.0, m, nullptr);
  ASSERT_EQ(k, m);
  const std::vector<T> qs = download(dev, arnoldi.basis(0), n * (k + 1));
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  for (int i = 0; i <= k; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = 0;
      for (long l = 0; l < n; ++l) s += double(qs[i * n + l]) * double(qs[j * n + l]);
      EXPECT_NEAR(s, i == j ? 1.0 : 0.0, tol) << "columns " << i << ", " << j;
    }
}

TEST_P(MxpKernels, Cgs2KeepsTheBasisOrthonormal) {
  for (const bool three_reads : {false, true}) {
    check_cgs2<float>(dev(), three_reads);
    check_cgs2<double>(dev(), three_reads);
  }
}

// The prolongation fused into the post-smoother's first colour gives the
// V-cycle of the separate launch bit for bit, on several grid sizes (and
// the orderings where it cannot fuse fall back to the launch).
template <class T>
void check_fused_prolongation(device::Device& dev) {
  const int sizes[][3] = {{16, 8, 8}, {8, 16, 24}, {32, 16, 16}};
  for (const auto& sz : sizes)
    for (const ProblemOptions& o : orderings()) {
      Grid grid(dev, o, sz[0], sz[1], sz[2]);
      Multigrid<T> mg(dev, grid.p, MPI_COMM_SELF);
      const long n = grid.p.rows(), cols = mg.matrix(0).columns();
      device::Buffer<T> r = upload(dev, to<T>(random_vector(n, 31)));
      device::Buffer<T> fused = dev.alloc<T>(cols), unfused = dev.alloc<T>(cols);
      mg.apply(r.data(), fused.data(), nullptr);
      mg.set_fused_prolongation(false);
      mg.apply(r.data(), unfused.data(), nullptr);
      const std::vector<T> a = download(dev, fused.data(), n), b = download(dev, unfused.data(), n);
      for (long i = 0; i < n; ++i)
        ASSERT_EQ(a[i], b[i]) << "row " << i << ", grid " << sz[0] << "x" << sz[1] << "x" << sz[2]
                              << ", " << to_string(o.smoother);
    }
}

TEST_P(MxpKernels, FusedProlongationGivesTheUnfusedVCycle) {
  check_fused_prolongation<float>(dev());
  check_fused_prolongation<double>(dev());
}

// CGS2 with three reads of Q: w ends as orthogonal to Q as with the two
// GEMVs per pass, the projections agree, and the result repeats bit for
// bit from run to run and on 1, 2 or 3 threads (the host's OpenMP team;
// the emulated device's queue thread keeps its own).
template <class T>
void check_cgs2_fused(device::Device& dev) {
  const long n = 3 * 4096 + 1000;  // several chunks and a partial one
  const int j = 11;                // a group of 8 columns and a remainder
  // Q: orthonormal columns (modified Gram-Schmidt in double on the host).
  std::vector<double> qd(n * j);
  for (int c = 0; c < j; ++c) {
    std::vector<double> v = random_vector(n, 100 + c);
    for (int pass = 0; pass < 2; ++pass)
      for (int d = 0; d < c; ++d) {
        double s = 0;
        for (long i = 0; i < n; ++i) s += qd[d * n + i] * v[i];
        for (long i = 0; i < n; ++i) v[i] -= s * qd[d * n + i];
      }
    double nv = 0;
    for (double x : v) nv += x * x;
    for (long i = 0; i < n; ++i) qd[c * n + i] = v[i] / std::sqrt(nv);
  }
  device::Buffer<T> q = upload(dev, to<T>(qd));
  // w close to the span of Q (as late Krylov vectors are): one pass of
  // classical Gram-Schmidt leaves it visibly less orthogonal than two.
  std::vector<double> wd = random_vector(n, 7);
  for (long i = 0; i < n; ++i) {
    wd[i] *= 1e-4;
    for (int c = 0; c < j; ++c) wd[i] += (c + 1.0) * qd[c * n + i];
  }
  const std::vector<T> w0 = to<T>(wd);
  Cgs2<T> cgs2(dev, n, j + 1, MPI_COMM_SELF);
  auto run = [&](bool fused, std::vector<double>& h) {
    device::Buffer<T> w = upload(dev, w0);
    h.assign(j, 0.0);
    if (fused)
      cgs2.orthogonalize(q.data(), n, j, w.data(), h.data(), nullptr);
    else
      cgs2.orthogonalize_gemv(q.data(), n, j, w.data(), h.data(), nullptr);
    return download(dev, w);
  };
  const std::vector<T> qh = download(dev, q);
  auto qtw_norm = [&](const std::vector<T>& w) {
    double s2 = 0;
    for (int c = 0; c < j; ++c) {
      double s = 0;
      for (long i = 0; i < n; ++i) s += double(qh[c * n + i]) * double(w[i]);
      s2 += s * s;
    }
    return std::sqrt(s2);
  };
  std::vector<double> hf, hg;
  const std::vector<T> wf = run(true, hf), wg = run(false, hg);
  const double eps = std::is_same_v<T, float> ? 6e-8 : 1.1e-16;
  const double of = qtw_norm(wf), og = qtw_norm(wg);
  double nw = 0;
  for (const T v : wf) nw += double(v) * double(v);
  // One pass alone would leave about eps * ||w before|| (~20 eps here).
  EXPECT_LE(of, std::max(2.0 * og, 10 * eps * std::sqrt(nw)))
      << "||Q^T w||: fused " << of << ", two GEMVs " << og;
  for (int c = 0; c < j; ++c)
    EXPECT_NEAR(hf[c], hg[c], 1e3 * eps * std::max(1.0, std::abs(hg[c]))) << "h[" << c << "]";
  const int threads = omp_get_max_threads();
  for (const int t : {1, 2, 3}) {
    omp_set_num_threads(t);
    std::vector<double> h;
    const std::vector<T> w = run(true, h);
    EXPECT_EQ(std::memcmp(w.data(), wf.data(), n * sizeof(T)), 0) << t << " threads";
    EXPECT_EQ(std::memcmp(h.data(), hf.data(), j * sizeof(double)), 0) << t << " threads";
  }
  omp_set_num_threads(threads);
}

TEST_P(MxpKernels, Cgs2WithThreeReadsOfQOrthogonalizesLikeTwoGemvsAndRepeats) {
  check_cgs2_fused<float>(dev());
  check_cgs2_fused<double>(dev());
}

// The GPU's mapping of CGS2's reads (CgsLaneBody, one thread per chunk and
// lane) and of their sums (ChunkLanesBody, SumChunkTotalsBody) against the
// host's (CgsChunkBody, SumChunksBody), run here as host loops on this
// backend's queue: the same w and the same partial sums and projections,
// bit for bit, for every read (sums only, update and sums, update only),
// with 1 to 32 columns and a partial last chunk and lane.
template <class T>
void check_lane_mapping(device::Device& dev) {
  device::Queue& q = dev.compute();
  const long n = 2 * kernels::kOrthoChunk + 1003;
  const long chunks = 3;
  for (const int j : {1, 5, 31, kernels::kLaneColumns}) {
    const std::vector<T> qv = to<T>(random_vector(n * j, 40 + j)), w0 = to<T>(random_vector(n, 41)),
                         hv = to<T>(random_vector(j, 42));
    device::Buffer<T> dq = upload(dev, qv), dh = upload(dev, hv);
    for (const int read : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message() << j << " columns, read " << read);
      const T* h = read == 1 ? nullptr : dh.data();
      const bool sums = read != 3;
      device::Buffer<T> wc = upload(dev, w0), wl = upload(dev, w0);
      const long np = chunks * j * kernels::kOrthoLanes;
      device::Buffer<double> pc = upload(dev, std::vector<double>(np, -1.0)),
                             pl = upload(dev, std::vector<double>(np, -2.0));
      device::launch(
          q, chunks,
          kernels::CgsChunkBody<T>{dq.data(), n, n, j, wc.data(), h, sums ? pc.data() : nullptr});
      device::launch(
          q, chunks * kernels::kOrthoLanes,
          kernels::CgsLaneBody<T>{dq.data(), n, n, j, wl.data(), h, sums ? pl.data() : nullptr});
      const std::vector<T> a = download(dev, wc), b = download(dev, wl);
      ASSERT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(T)), 0) << "w";
      if (!sums) continue;
      const std::vector<double> ca = download(dev, pc), cb = download(dev, pl);
      ASSERT_EQ(std::memcmp(ca.data(), cb.data(), np * sizeof(double)), 0) << "partial sums";
      device::Buffer<double> totals = dev.alloc<double>(chunks * j), s1 = dev.alloc<double>(j),
                             s2 = dev.alloc<double>(j);
      device::launch(q, j, kernels::SumChunksBody{pl.data(), chunks, j, s1.data()});
      device::launch(q, chunks * j, kernels::ChunkLanesBody{pl.data(), j, totals.data()});
      device::launch(q, j, kernels::SumChunkTotalsBody{totals.data(), chunks, j, s2.data()});
      const std::vector<double> h1 = download(dev, s1), h2 = download(dev, s2);
      ASSERT_EQ(std::memcmp(h1.data(), h2.data(), j * sizeof(double)), 0) << "projections";
    }
  }
}

TEST_P(MxpKernels, Cgs2LaneMappingGivesTheChunkBodysBits) {
  check_lane_mapping<float>(dev());
  check_lane_mapping<double>(dev());
}

HPLX_INSTANTIATE_OVER_BACKENDS(MxpKernels);

// The host backend's fast path (host/ell_simd.hpp) and the portable kernel
// bodies it replaces compute the same sums: run both on a host queue.
template <class T>
void check_fast_path_equals_bodies() {
  const auto dev = device::make_device(device::BackendKind::Host);
  device::Queue& q = dev->compute();
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  for (const ProblemOptions& o : orderings()) {
    Grid grid(*dev, o, 32, 16, 16);  // several slices of 256 rows
    const Level& lv = grid.p.levels[0];
    const EllMatrix<T> a = convert_matrix<T>(*dev, lv.a);
    const long n = a.rows();
    const std::vector<T> x = to<T>(random_vector(a.columns(), 21)), b = to<T>(random_vector(n, 22));
    device::Buffer<T> dx = upload(*dev, x), db = upload(*dev, b);
    device::Buffer<T> y_fast = dev->alloc<T>(n), y_body = dev->alloc<T>(n);
    spmv_rows(q, a, dx.data(), y_fast.data(), 0, n, KernelPath::Best);
    spmv_rows(q, a, dx.data(), y_body.data(), 0, n, KernelPath::Portable);
    const std::vector<T> yf = download(*dev, y_fast), yb = download(*dev, y_body);
    for (long r = 0; r < n; ++r) ASSERT_NEAR(yf[r], yb[r], tol * 30) << "SpMV row " << r;

    for (bool from_zero : {false, true}) {
      std::vector<T> x0 = x;
      if (from_zero) std::fill(x0.begin(), x0.end(), T(0));
      device::Buffer<T> x_fast = upload(*dev, x0), x_body = upload(*dev, x0);
      HaloExchange<T> halo(*dev, &lv.halo, n, MPI_COMM_SELF);
      gs_sweep(q, a, lv.order, halo, db.data(), x_fast.data(), from_zero, nullptr, "GS",
               KernelPath::Best);
      gs_sweep(q, a, lv.order, halo, db.data(), x_body.data(), from_zero, nullptr, "GS",
               KernelPath::Portable);
      const std::vector<T> gf = download(*dev, x_fast), gb = download(*dev, x_body);
      for (long r = 0; r < n; ++r)
        ASSERT_NEAR(gf[r], gb[r], tol * 10) << "GS row " << r << " from zero " << from_zero;
    }

    if (!lv.order.sequential) {
      const long nc = grid.p.levels[1].a.rows();
      device::Buffer<T> rc_fast = dev->alloc<T>(nc), rc_body = dev->alloc<T>(nc);
      restrict_residual_rows(q, a, lv.fine_to_coarse.data(), db.data(), dx.data(), rc_fast.data(),
                             lv.order.coarse_begin(), lv.order.coarse_end(), KernelPath::Best);
      restrict_residual_rows(q, a, lv.fine_to_coarse.data(), db.data(), dx.data(), rc_body.data(),
                             lv.order.coarse_begin(), lv.order.coarse_end(), KernelPath::Portable);
      const std::vector<T> rf = download(*dev, rc_fast), rb = download(*dev, rc_body);
      for (long i = 0; i < nc; ++i) ASSERT_NEAR(rf[i], rb[i], tol * 30) << "restriction " << i;
    }
  }
}

TEST(MxpHostFastPath, SpmvGsAndRestrictionEqualThePortableBodies) {
  check_fast_path_equals_bodies<float>();
  check_fast_path_equals_bodies<double>();
}

}  // namespace
}  // namespace hplx::mxp
