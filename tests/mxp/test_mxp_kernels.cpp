// hplx mxp kernels on one rank against straightforward loops over the grid
// in natural (lexicographic) order: SpMV, the multicolor Gauss-Seidel sweep
// against a sequential Gauss-Seidel over the color ordering, the fused
// residual + restriction, prolongation, the V-cycle's linearity (in the
// default ordering, another color order and the lexicographic one), and the
// mixed-precision vector kernels; float and double.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <random>
#include <vector>

#include "mxp/gauss_seidel.hpp"
#include "mxp/multigrid.hpp"
#include "mxp/problem.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {
namespace {

struct Grid {
  Geometry g;
  Problem p;
  explicit Grid(bool nonsym = false, int nx = 16, int ny = 8, int nz = 8)
      : Grid(ProblemOptions{nonsym}, nx, ny, nz) {}
  explicit Grid(const ProblemOptions& o, int nx = 16, int ny = 8, int nz = 8)
      : g(make_geometry(0, 1, nx, ny, nz)), p(generate_problem(g, o, MPI_COMM_SELF)) {}
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

std::vector<double> random_vector(long n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

template <class T>
class MxpKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MxpKernels, Precisions);

TYPED_TEST(MxpKernels, SpmvEqualsTheStencilLoop) {
  using T = TypeParam;
  for (bool nonsym : {false, true}) {
    Grid grid(nonsym);
    const auto& lv = grid.p.levels[0];
    const EllMatrix<T> a = convert_matrix<T>(lv.a);
    const long n = a.rows();
    const auto x_nat = random_vector(n, 7);
    std::vector<T> x(a.columns()), y(n);
    for (long r = 0; r < n; ++r) x[r] = static_cast<T>(x_nat[lv.order.to_natural[r]]);
    HaloExchange<T> halo(&lv.halo, n, MPI_COMM_SELF);
    spmv(a, lv.order, halo, x.data(), y.data(), nullptr);
    const auto y_nat = natural_apply(grid.g, nonsym, x_nat);
    for (long r = 0; r < n; ++r)
      ASSERT_NEAR(y[r], y_nat[lv.order.to_natural[r]], 30 * tolerance<T>()) << "row " << r;
  }
}

TYPED_TEST(MxpKernels, RightHandSideIsTheRowSumSoTheSolutionIsOnes) {
  Grid grid(true);
  const auto y = natural_apply(grid.g, true, std::vector<double>(grid.p.rows(), 1.0));
  for (long r = 0; r < grid.p.rows(); ++r)
    ASSERT_DOUBLE_EQ(grid.p.b[r], y[grid.p.levels[0].order.to_natural[r]]);
}

TYPED_TEST(MxpKernels, NoTwoNeighboursShareAColor) {
  Grid grid;
  for (const Level& lv : grid.p.levels) {
    const long n = lv.a.rows();
    std::vector<int> color(n);
    for (int c = 0; c < kColors; ++c)
      for (long r = lv.order.color_begin[c]; r < lv.order.color_begin[c + 1]; ++r) color[r] = c;
    for (long r = 0; r < n; ++r) {
      const int nat = lv.order.to_natural[r];
      ASSERT_EQ(color[r], point_color(nat % lv.geom.nx, (nat / lv.geom.nx) % lv.geom.ny,
                                      nat / (lv.geom.nx * lv.geom.ny)));
      for (int s = 0; s < kSlots; ++s) {
        const long col = lv.a.pattern->cols[EllPattern::index(r, s)];
        if (col == r || lv.a.values[EllPattern::index(r, s)] == 0) continue;
        ASSERT_NE(color[col], color[r]) << "rows " << r << " and " << col;
      }
    }
  }
}

TYPED_TEST(MxpKernels, ColoredSweepEqualsSequentialGaussSeidelInColorOrder) {
  using T = TypeParam;
  for (const ProblemOptions& o : orderings())
    for (bool from_zero : {false, true}) {
      Grid grid(o);
      const auto& lv = grid.p.levels[0];
      const EllMatrix<T> a = convert_matrix<T>(lv.a);
      const long n = a.rows();
      const auto b_nat = random_vector(n, 3);
      auto x_nat = from_zero ? std::vector<double>(n, 0.0) : random_vector(n, 4);
      std::vector<T> b(n), x(a.columns());
      for (long r = 0; r < n; ++r) {
        b[r] = static_cast<T>(b_nat[lv.order.to_natural[r]]);
        x[r] = static_cast<T>(x_nat[lv.order.to_natural[r]]);
      }
      HaloExchange<T> halo(&lv.halo, n, MPI_COMM_SELF);
      gs_sweep(a, lv.order, halo, b.data(), x.data(), from_zero, nullptr);
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

TYPED_TEST(MxpKernels, FusedRestrictionIsTheResidualInjectedAtEvenPoints) {
  using T = TypeParam;
  for (const ProblemOptions& o : orderings()) {
    Grid grid(o);
    const Level& f = grid.p.levels[0];
    const Level& c = grid.p.levels[1];
    const EllMatrix<T> a = convert_matrix<T>(f.a);
    const long n = a.rows();
    const auto r_d = random_vector(n, 5), z_d = random_vector(n, 6);
    std::vector<T> r(n), z(a.columns()), az(n), rc(c.a.rows(), T(-99));
    for (long i = 0; i < n; ++i) {
      r[i] = static_cast<T>(r_d[i]);
      z[i] = static_cast<T>(z_d[i]);
    }
    if (f.order.sequential)
      restrict_residual_gather(a, f.coarse_to_fine, r.data(), z.data(), rc.data());
    else
      restrict_residual_rows(a, f.fine_to_coarse, r.data(), z.data(), rc.data(),
                             f.order.coarse_begin(), f.order.coarse_end());
    spmv_rows(a, z.data(), az.data(), 0, n);
    for (long ic = 0; ic < c.a.rows(); ++ic) {
      const int cn = c.order.to_natural[ic];
      const int cx = cn % c.geom.nx, cy = (cn / c.geom.nx) % c.geom.ny,
                cz = cn / (c.geom.nx * c.geom.ny);
      const long fr = f.coarse_to_fine[ic];
      ASSERT_EQ(f.order.to_natural[fr], (2 * cz * f.geom.ny + 2 * cy) * f.geom.nx + 2 * cx);
      ASSERT_NEAR(rc[ic], r[fr] - az[fr], 30 * tolerance<T>());
    }
    // Prolongation adds the coarse values at the same points, nowhere else.
    std::vector<T> zc(c.a.rows());
    for (long ic = 0; ic < c.a.rows(); ++ic) zc[ic] = static_cast<T>(ic + 1);
    std::vector<T> zf(n, T(1));
    prolongate(f.coarse_to_fine, zc.data(), zf.data());
    long touched = 0;
    for (long i = 0; i < n; ++i) touched += zf[i] != T(1);
    EXPECT_EQ(touched, c.a.rows());
    for (long ic = 0; ic < c.a.rows(); ++ic) EXPECT_EQ(zf[f.coarse_to_fine[ic]], T(1) + zc[ic]);
  }
}

TYPED_TEST(MxpKernels, VCycleIsLinearAndReducesTheError) {
  using T = TypeParam;
  for (const ProblemOptions& o : orderings()) {
    Grid grid(o);
    Multigrid<T> mg(grid.p, MPI_COMM_SELF);
    const long n = grid.p.rows();
    const auto r1d = random_vector(n, 8), r2d = random_vector(n, 9);
    std::vector<T> r1(n), r2(n), r12(n), z1(mg.matrix(0).columns()), z2(z1.size()), z12(z1.size());
    for (long i = 0; i < n; ++i) {
      r1[i] = static_cast<T>(r1d[i]);
      r2[i] = static_cast<T>(r2d[i]);
      r12[i] = r1[i] + r2[i];
    }
    mg.apply(r1.data(), z1.data(), nullptr);
    mg.apply(r2.data(), z2.data(), nullptr);
    mg.apply(r12.data(), z12.data(), nullptr);
    for (long i = 0; i < n; ++i) ASSERT_NEAR(z12[i], z1[i] + z2[i], 100 * tolerance<T>());
    // As a preconditioner for A e = r: ||r - A M r|| < ||r||.
    std::vector<T> az(n);
    spmv_rows(mg.matrix(0), z1.data(), az.data(), 0, n);
    double res = 0, nr = 0;
    for (long i = 0; i < n; ++i) {
      res += double(r1[i] - az[i]) * double(r1[i] - az[i]);
      nr += double(r1[i]) * r1[i];
    }
    EXPECT_LT(std::sqrt(res), 0.5 * std::sqrt(nr)) << to_string(o.smoother);
  }
}

TEST(MxpVectorKernels, MixedPrecisionWaxpbyAndDotMatchLoops) {
  const long n = 1000;
  const auto xd = random_vector(n, 1), yd = random_vector(n, 2);
  std::vector<float> yf(n);
  for (long i = 0; i < n; ++i) yf[i] = static_cast<float>(yd[i]);
  std::vector<double> w(n);
  waxpby(n, 2.0, xd.data(), -0.5, yf.data(), w.data());
  double dot_ref = 0;
  for (long i = 0; i < n; ++i) {
    ASSERT_DOUBLE_EQ(w[i], 2.0 * xd[i] - 0.5 * double(yf[i]));
    dot_ref += xd[i] * double(yf[i]);
  }
  EXPECT_NEAR(local_dot(n, xd.data(), yf.data()), dot_ref, 1e-12);
  std::vector<float> s(n);
  scale_copy(n, 3.0, xd.data(), s.data());
  for (long i = 0; i < n; ++i) ASSERT_EQ(s[i], static_cast<float>(3.0 * xd[i]));
  EXPECT_NEAR(global_norm(n, xd.data(), MPI_COMM_WORLD) * global_norm(n, xd.data(), MPI_COMM_WORLD),
              local_dot(n, xd.data(), xd.data()), 1e-9);
}

}  // namespace
}  // namespace hplx::mxp
