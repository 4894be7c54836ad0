// The HPL-MxP generator reproduces the reference's matrix (src/hplmxp/mcg.hpp
// says what was checked against its source): values recomputed here from the
// MCG recurrence, drawn one after the other from state 1, and a few
// computed independently (Python big integers) for n = 5.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "grids.hpp"
#include "hplmxp/distributed_matrix.hpp"
#include "hplmxp/generated_matrix.hpp"
#include "hplmxp/mcg.hpp"
#include "lu/block_cyclic.hpp"
#include "tests/device/backends.hpp"

using namespace hplx;
using namespace hplx::hplmxp;

namespace {

// The reference's order: all of A column by column, then b.
std::vector<double> sequential_draws(long count) {
  std::vector<double> v;
  std::uint64_t state = 1;
  for (long k = 0; k < count; ++k) {
    state *= 14647171131086947261ULL;
    v.push_back(static_cast<double>(state >> 32) / 4294967295.0 - 0.5);
  }
  return v;
}

// The whole n x n matrix through the distributed generator on `grid`,
// assembled on every process.
std::vector<double> gathered(long n, int nb, int p, int q) {
  ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
  std::vector<double> full(static_cast<std::size_t>(n * n), 0.0);
  if (grid.in_grid()) {
    const Layout l = Layout::of(n, nb, grid);
    std::vector<double> a(static_cast<std::size_t>(l.local_elements()));
    generate_matrix(l, grid, a.data());
    for (long jl = 0; jl < l.nloc; ++jl)
      for (long il = 0; il < l.mloc; ++il)
        full[l.global_row(il) + l.global_col(jl) * n] = a[il + jl * l.lda];
  }
  MPI_Allreduce(MPI_IN_PLACE, full.data(), static_cast<int>(n * n), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  return full;
}

}  // namespace

TEST(HplMxpGenerator, JumpAheadMatchesTheRecurrence) {
  const std::vector<double> v = sequential_draws(1000);
  for (long k = 1; k <= 1000; ++k) EXPECT_EQ(mcg_value(mcg_state_after(k)), v[k - 1]) << k;
}

TEST(HplMxpGenerator, FirstDrawsAreTheReferencesValues) {
  // Python: s = s * 14647171131086947261 % 2**64; (s >> 32) / 4294967295 - 0.5
  EXPECT_DOUBLE_EQ(mcg_value(mcg_state_after(1)), 0.294024738202343);
  EXPECT_DOUBLE_EQ(mcg_value(mcg_state_after(2)), 0.34002627894282955);
  EXPECT_DOUBLE_EQ(mcg_value(mcg_state_after(3)), 0.248117525304695);
}

TEST(HplMxpGenerator, SmallMatrixMatchesIndependentValues) {
  for (auto [p, q] : hplmxp_test_grids()) {
    const std::vector<double> a = gathered(5, 2, p, q);
    EXPECT_DOUBLE_EQ(a[2 + 3 * 5], 0.06660173962977756) << p << "x" << q;
    EXPECT_DOUBLE_EQ(a[4 + 0 * 5], 0.1398493530321515);
    EXPECT_NEAR(a[1 + 1 * 5], 1.3435269886030645, 1e-15);
    EXPECT_NEAR(a[3 + 3 * 5], 0.9386654330740369, 1e-15);
  }
  const std::vector<double> b = generate_rhs(5);
  EXPECT_DOUBLE_EQ(b[0], 0.3881774230134155);
  EXPECT_DOUBLE_EQ(b[4], -0.48358037462075715);
}

TEST(HplMxpGenerator, EveryGridGivesTheReferenceOrderAndADominantDiagonal) {
  for (long n : {1L, 7L, 30L}) {
    const std::vector<double> v = sequential_draws(n * n + n);
    for (int nb : {1, 3, 8}) {
      for (auto [p, q] : hplmxp_test_grids()) {
        const std::vector<double> a = gathered(n, nb, p, q);
        for (long i = 0; i < n; ++i) {
          double off = 0;
          for (long j = 0; j < n; ++j) {
            if (i == j) continue;
            ASSERT_EQ(a[i + j * n], v[j * n + i])
                << "n " << n << " nb " << nb << " " << p << "x" << q;
            off += std::fabs(a[i + j * n]);
          }
          // The diagonal is the row's off-diagonal magnitude sum (up to the
          // order of the sum): weakly dominant, as the reference's.
          EXPECT_NEAR(a[i + i * n], off, 1e-13 * (1 + off));
        }
        const std::vector<double> b = generate_rhs(n);
        for (long i = 0; i < n; ++i) ASSERT_EQ(b[i], v[n * n + i]);
      }
    }
  }
}

TEST(HplMxpGenerator, NormIsTwiceTheLargestDiagonal) {
  const long n = 23;
  for (auto [p, q] : hplmxp_test_grids()) {
    const std::vector<double> full = gathered(n, 4, p, q);
    double expect = 0;
    for (long i = 0; i < n; ++i) {
      double s = 0;
      for (long j = 0; j < n; ++j) s += std::fabs(full[i + j * n]);
      expect = std::max(expect, s);
    }
    ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
    if (!grid.in_grid()) continue;
    const Layout l = Layout::of(n, 4, grid);
    std::vector<double> a(static_cast<std::size_t>(l.local_elements()));
    generate_matrix(l, grid, a.data());
    EXPECT_NEAR(norm_inf(l, grid, a.data()), expect, 1e-12 * expect);
  }
}

namespace {

// The matrix made in FP32 on a queue is the host generator's rounded to
// FP32, bit for bit (the diagonal's row sums included, scaled or not), on
// every grid, NB that does and does not divide N, runs that cut a block,
// the host and the emulated device.
class HplMxpGeneratorOn : public testing::TestWithParam<device::BackendKind> {
 protected:
  device::Device& dev() {
    static std::map<device::BackendKind, std::shared_ptr<device::Device>> made;
    std::shared_ptr<device::Device>& d = made[GetParam()];
    if (!d) d = device::make_device(GetParam());
    return *d;
  }
};

TEST_P(HplMxpGeneratorOn, FloatMatrixIsTheHostsRoundedBitForBit) {
  struct Shape {
    long n;
    int nb;
  };
  for (const Shape s : {Shape{61, 8}, Shape{130, 40}, Shape{97, 97}}) {
    for (auto [p, q] : hplmxp_test_grids()) {
      ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      if (!grid.in_grid()) continue;
      const Layout l = Layout::of(s.n, s.nb, grid);
      for (const double scale : {1.0, 0.3}) {
        std::vector<double> a(static_cast<std::size_t>(l.local_elements()));
        generate_matrix(l, grid, a.data());
        if (scale != 1.0) scale_diagonal(l, a.data(), scale);
        {
          device::Queue& queue = dev().compute();
          device::Buffer<float> made(dev().backend(), l.local_elements());
          GeneratedMatrix(queue, l, grid, scale).fill_float(made.data());
          std::vector<float> back(a.size());
          device::copy(queue, back.data(), made.data(), l.local_elements());
          queue.synchronize();
          long differ = 0;  // a process may have no rows: lda 1, nothing in it
          for (long jl = 0; jl < l.nloc; ++jl)
            for (long il = 0; il < l.mloc; ++il) {
              const float want = static_cast<float>(a[il + jl * l.lda]);
              if (std::memcmp(&want, &back[il + jl * l.lda], sizeof want) != 0) ++differ;
            }
          EXPECT_EQ(differ, 0) << "N " << s.n << " NB " << s.nb << " grid " << p << "x" << q
                               << " scale " << scale;
        }
      }
    }
  }
}

}  // namespace

namespace {

// The refinement's product, with A made again in FP64 (host and emulated)
// or kept (host), is the product with the whole matrix (up to the order of
// additions), on every grid; ||A||_oo is the whole matrix's, scaled
// diagonal or not.
TEST_P(HplMxpGeneratorOn, ProductIsTheWholeMatrixsProduct) {
  const long n = 75;
  const int nb = 8;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i) x[i] = std::sin(0.7 * static_cast<double>(i)) + 0.1;
  for (auto [p, q] : hplmxp_test_grids()) {
    for (const double scale : {1.0, 0.3}) {
      const std::vector<double> full = gathered(n, nb, p, q);  // collective on every rank
      ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      if (!grid.in_grid()) continue;
      const Layout l = Layout::of(n, nb, grid);
      std::vector<double> want(static_cast<std::size_t>(n), 0.0);
      double norm = 0;
      for (long i = 0; i < n; ++i) {
        double row = 0;
        for (long j = 0; j < n; ++j) {
          const double aij = full[i + j * n] * (i == j ? scale : 1.0);
          want[i] += aij * x[j];
          row += std::fabs(aij);
        }
        norm = std::max(norm, row);
      }
      // A kept in FP64 where the queue works in host memory, and made again.
      std::vector<bool> ways{false};
      if (dev().backend().host_accessible(device::MemorySpace::Device)) ways.push_back(true);
      for (const bool keep : ways) {
        device::Queue& queue = dev().compute();
        int passes = 0;
        GeneratedMatrix a(queue, l, grid, scale, keep, [&passes] { ++passes; });
        // The diagonal's sums, and the kept matrix made first: each a mark.
        EXPECT_EQ(passes, keep ? 2 : 1);
        device::Buffer<double> dx(dev().backend(), n), dy(dev().backend(), n);
        device::copy(queue, dx.data(), x.data(), n);
        a.multiply(dx.data(), dy.data());
        std::vector<double> y(static_cast<std::size_t>(n));
        device::copy(queue, y.data(), dy.data(), n);
        queue.synchronize();
        const std::string where = "grid " + std::to_string(p) + "x" + std::to_string(q) +
                                  " scale " + std::to_string(scale) +
                                  (keep ? " kept" : " made again");
        for (long i = 0; i < n; ++i)
          EXPECT_NEAR(y[i], want[i], 1e-13 * n * (1 + std::fabs(want[i]))) << i << " " << where;
        EXPECT_NEAR(a.norm_inf(), norm, 1e-14 * norm) << where;
      }
    }
  }
}

}  // namespace

HPLX_INSTANTIATE_OVER_BACKENDS(HplMxpGeneratorOn);
