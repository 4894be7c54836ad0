// The LU's phases on each backend compiled in, against plain loops, the
// generator's closed form and LAPACK: RS's row kernels, UPDATE (both U
// forms and in place), the matrix generator, FACT through the queue's
// copies. Each rank checks its own 1x1 problems (MPI_COMM_SELF).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "device/launch.hpp"
#include "lu/kernels/row_kernels.hpp"
#include "lu/matgen.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/update/update.hpp"
#include "tests/device/backends.hpp"
#include "tests/device/test_data.hpp"
#include "tests/mpi/lu_context.hpp"

extern "C" void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv,
                        int* info);

namespace hplx::lu {
namespace {

// Matrix entries as HPL draws them, in (-0.5, 0.5).
std::vector<double> random_values(long n, unsigned seed) {
  return test::random_values(n, seed, -0.5, 0.5);
}

class LuPhases : public testing::TestWithParam<device::BackendKind> {
 protected:
  device::Device& dev() const { return test::test_context(GetParam()).device(); }
  device::Queue& q() const { return dev().compute(); }

  template <class T>
  device::Buffer<T> upload(const std::vector<T>& v) const {
    device::Buffer<T> b = dev().alloc<T>(static_cast<long>(v.size()));
    device::copy(q(), b.data(), v.data(), static_cast<long>(v.size()));
    q().synchronize();  // v may go when this returns
    return b;
  }
  template <class T>
  std::vector<T> download(const device::Buffer<T>& b) const {
    std::vector<T> v(b.size());
    device::copy(q(), v.data(), b.data(), b.size());
    q().synchronize();
    return v;
  }
  // The local matrix of a 1x1 grid as a host vector (lda x nq).
  std::vector<double> download(const LocalMatrix& a) const {
    std::vector<double> v(a.lda() * a.nq());
    device::copy(q(), v.data(), a.data(), a.lda() * a.nq());
    q().synchronize();
    return v;
  }
  void upload(LocalMatrix& a, const std::vector<double>& v) const {
    device::copy(q(), a.data(), v.data(), a.lda() * a.nq());
    q().synchronize();
  }

  const ProcessGrid self_{MPI_COMM_SELF, 1, 1, GridOrder::RowMajor};
};

TEST_P(LuPhases, GatherAndScatterMoveExactlyTheListedRows) {
  const long lda = 50, cols = 21;  // 21: a partial last block of 8 columns
  const std::vector<double> a0 = random_values(lda * cols, 1);
  const std::vector<long> rows{7, 0, 49, 13, 3};
  const long m = static_cast<long>(rows.size());
  device::Buffer<double> a = upload(a0), buf = dev().alloc<double>(m * cols);
  device::Buffer<long> r = upload(rows);
  device::launch(q(), kernels::row_copy_indices(m, cols),
                 kernels::GatherRows{a.data(), lda, r.data(), m, cols, buf.data()});
  const std::vector<double> got = download(buf);
  for (long i = 0; i < m; ++i)
    for (long c = 0; c < cols; ++c) ASSERT_EQ(got[i * cols + c], a0[rows[i] + c * lda]);

  // Scatter the rows back shifted by one place in the list: rows[i] gets
  // what was gathered from rows[(i + 1) % m]; every other row is untouched.
  std::vector<double> shifted(m * cols);
  for (long i = 0; i < m; ++i)
    for (long c = 0; c < cols; ++c) shifted[i * cols + c] = got[((i + 1) % m) * cols + c];
  device::Buffer<double> src = upload(shifted);
  device::launch(q(), kernels::row_copy_indices(m, cols),
                 kernels::ScatterRows{a.data(), lda, r.data(), m, cols, src.data()});
  const std::vector<double> after = download(a);
  std::vector<double> want = a0;
  for (long i = 0; i < m; ++i)
    for (long c = 0; c < cols; ++c) want[rows[i] + c * lda] = a0[rows[(i + 1) % m] + c * lda];
  EXPECT_EQ(after, want);
}

TEST_P(LuPhases, InPlaceSwapIsLapacksSequentialInterchanges) {
  const long lda = 40, cols = 19, k = 5;
  const std::vector<long> ipiv{9, 5, 39, 9, 30, 8};  // row 9 moves twice; row 6 swaps with itself
  const int jb = static_cast<int>(ipiv.size());
  const std::vector<double> a0 = random_values(lda * cols, 2);
  std::vector<double> want = a0;
  for (int i = 0; i < jb; ++i)
    for (long c = 0; c < cols; ++c) std::swap(want[k + i + c * lda], want[ipiv[i] + c * lda]);
  device::Buffer<double> a = upload(a0);
  // The kernel reads the pivots as the panel's tail holds them: exact doubles.
  device::Buffer<double> piv = upload(std::vector<double>(ipiv.begin(), ipiv.end()));
  device::launch(q(), kernels::column_blocks(cols),
                 kernels::SwapRowsInPlace{a.data(), lda, piv.data(), k, jb, cols});
  EXPECT_EQ(download(a), want);
}

// The GPU's form of the row copies: one index per (row, column) element,
// the buffer column-major (leading dimension ldb), and only the first
// *count rows of the list moved (a count only the device knows).
TEST_P(LuPhases, RowCopiesWithOneIndexPerElementMoveTheCountedRows) {
  const long lda = 50, cols = 21, ldb = 7;
  const std::vector<double> a0 = random_values(lda * cols, 3);
  const std::vector<long> rows{7, 0, 49, 13, 3, 22};
  const long m = static_cast<long>(rows.size()), counted = 4;
  for (long per_index : {1L, kernels::kColumnBlock}) {
    device::Buffer<double> a = upload(a0);
    device::Buffer<double> buf = upload(std::vector<double>(ldb * cols, -1.0));
    device::Buffer<long> r = upload(rows), count = upload(std::vector<long>{counted});
    device::launch(q(), kernels::row_copy_indices(m, cols, per_index),
                   kernels::GatherRows{a.data(), lda, r.data(), m, cols, buf.data(), false,
                                       per_index, ldb, count.data()});
    const std::vector<double> got = download(buf);
    for (long i = 0; i < ldb; ++i)
      for (long c = 0; c < cols; ++c)
        ASSERT_EQ(got[i + c * ldb], i < counted ? a0[rows[i] + c * lda] : -1.0)
            << per_index << " " << i << " " << c;
    // Back one place down the counted list: rows[i] gets rows[(i + 1) % 4].
    std::vector<double> shifted(ldb * cols, 99.0);
    for (long i = 0; i < counted; ++i)
      for (long c = 0; c < cols; ++c) shifted[i + c * ldb] = got[(i + 1) % counted + c * ldb];
    device::Buffer<double> src = upload(shifted);
    device::launch(q(), kernels::row_copy_indices(m, cols, per_index),
                   kernels::ScatterRows{a.data(), lda, r.data(), m, cols, src.data(), per_index,
                                        ldb, count.data()});
    std::vector<double> want = a0;
    for (long i = 0; i < counted; ++i)
      for (long c = 0; c < cols; ++c)
        want[rows[i] + c * lda] = a0[rows[(i + 1) % counted] + c * lda];
    EXPECT_EQ(download(a), want) << per_index;
  }
}

// Random pivots as partial pivoting makes them (row k + c swapped with a
// row at or below it), with repeats (a row chosen twice) and pivots inside
// the diagonal block.
std::vector<long> random_pivots(std::mt19937& gen, long n, long k, int jb) {
  std::vector<long> ipiv(jb);
  for (int c = 0; c < jb; ++c) {
    const int kind = std::uniform_int_distribution<int>(0, 3)(gen);
    const long lo = k + c;
    if (kind == 0 && c > 0 && ipiv[c - 1] >= lo)
      ipiv[c] = ipiv[c - 1];  // a repeat
    else if (kind == 1)
      ipiv[c] = std::uniform_int_distribution<long>(lo, k + jb - 1)(gen);  // inside the block
    else
      ipiv[c] = std::uniform_int_distribution<long>(lo, n - 1)(gen);
  }
  return ipiv;
}

TEST_P(LuPhases, PlanBuiltOnTheDeviceIsPlanRowSwaps) {
  std::mt19937 gen(11);
  int repeats = 0, inside = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const long k = trial % 5 * 7;
    const int jb = 1 + trial % 37;
    const long n = k + jb + 1 + trial % 50;
    const std::vector<long> ipiv = random_pivots(gen, n, k, jb);
    for (int c = 0; c < jb; ++c) {
      inside += ipiv[c] > k + c && ipiv[c] < k + jb;
      repeats += std::count(ipiv.begin(), ipiv.begin() + c, ipiv[c]) > 0;
    }
    device::Buffer<double> piv = upload(std::vector<double>(ipiv.begin(), ipiv.end()));
    device::Buffer<long> plan = dev().alloc<long>(kernels::plan_longs(jb));
    plan_row_swaps_on_device(q(), piv.data(), k, jb, plan.data());
    const std::vector<long> got = download(plan);
    const RowSwapPlan want = plan_row_swaps(k, jb, ipiv);
    const long* source = got.data() + 3L * jb;
    const long* dest = got.data() + 5L * jb;
    const long count = got[7L * jb];
    ASSERT_EQ(count, jb + static_cast<long>(want.moves.size())) << "trial " << trial;
    for (int r = 0; r < jb; ++r) {
      ASSERT_EQ(source[r], want.u_source[r]) << "trial " << trial << " row " << r;
      ASSERT_EQ(dest[r], k + r);
    }
    std::vector<std::pair<long, long>> moves, want_moves;
    for (long i = jb; i < count; ++i) moves.emplace_back(dest[i], source[i] - k);
    for (const auto& mv : want.moves) want_moves.emplace_back(mv.to, mv.from);
    std::sort(moves.begin(), moves.end());
    ASSERT_EQ(moves, want_moves) << "trial " << trial;
  }
  EXPECT_GT(repeats, 50);  // the cases the test is for did come up
  EXPECT_GT(inside, 50);
}

// The in-place swap of one process row, both ways (a device's plan with
// every element its own index, and dlaswp), against the jb interchanges
// applied in turn, on columns [lc0, lc0 + nn) only.
TEST_P(LuPhases, InPlaceSwapOnADeviceIsTheSequentialInterchanges) {
  const long n = 70;
  const int nb = 9;
  std::mt19937 gen(5);
  LocalMatrix a(dev(), n, nb, self_);
  InPlaceSwapBuffers scratch;
  for (int trial = 0; trial < 12; ++trial) {
    const long k = nb * (trial % 4), lc0 = k + nb, nn = a.nq() - lc0 - trial % 3;
    const std::vector<double> m0 = random_values(a.lda() * a.nq(), 20 + trial);
    Panel p = make_panel(a, k, self_);
    p.ipiv = random_pivots(gen, n, k, p.jb);
    panel_to_device(q(), p);
    std::vector<double> want = m0;
    for (int c = 0; c < p.jb; ++c)
      for (long j = lc0; j < lc0 + nn; ++j)
        std::swap(want[k + c + j * a.lda()], want[p.ipiv[c] + j * a.lda()]);
    for (InPlaceSwapBuffers* s : {&scratch, static_cast<InPlaceSwapBuffers*>(nullptr)}) {
      upload(a, m0);
      swap_rows_in_place(q(), a, p, lc0, nn, s);
      ASSERT_EQ(download(a), want)
          << "trial " << trial << (s ? " with" : " without") << " the device's plan";
    }
  }
}

TEST_P(LuPhases, GeneratedMatrixIsHplsEntryByEntry) {
  for (long n : {1L, 37L, 130L}) {
    LocalMatrix a(dev(), n, 16, self_);
    generate_matrix(q(), a, self_);
    const std::vector<double> got = download(a);
    for (long j = 0; j <= n; ++j)
      for (long i = 0; i < n; ++i)
        ASSERT_EQ(got[i + j * a.lda()], hpl_entry(n, i, j)) << n << " " << i << " " << j;
  }
}

// A panel at k = 0 of width jb over an n x (n + 1) matrix on a 1x1 grid,
// with random L11, L21 already in its buffer, on the device for UPDATE.
Panel random_panel(device::Queue& q, const LocalMatrix& a, int jb, unsigned seed) {
  const ProcessGrid self(MPI_COMM_SELF, 1, 1, GridOrder::RowMajor);
  Panel p = make_panel(a, 0, self);
  const std::vector<double> v = random_values(p.ld() * jb, seed);
  std::copy(v.begin(), v.end(), p.w.begin());
  panel_to_device(q, p);
  EXPECT_EQ(p.jb, jb);
  return p;
}

// What UPDATE must leave in columns [c0, c0 + nn): U := L11^-1 A(0:jb, :),
// A(jb:, :) -= L21 U (L11 unit lower, stored as the panel's A1).
std::vector<double> reference_update(std::vector<double> m, long lda, const Panel& p, long c0,
                                     long nn) {
  const int jb = p.jb;
  const long ld = p.ld();
  for (long c = c0; c < c0 + nn; ++c) {
    double* col = m.data() + c * lda;
    for (int r = 0; r < jb; ++r)
      for (int s = 0; s < r; ++s) col[r] -= p.a1()[r + s * ld] * col[s];
    for (long i = 0; i < p.m2; ++i)
      for (int s = 0; s < jb; ++s) col[jb + i] -= p.a2()[i + s * ld] * col[s];
  }
  return m;
}

TEST_P(LuPhases, UpdateMatchesTheLoopsInPlaceAndWithGatheredU) {
  const long n = 70;
  const int jb = 12;
  for (bool u_transposed : {true, false}) {
    LocalMatrix a(dev(), n, jb, self_);
    const std::vector<double> m0 = random_values(a.lda() * a.nq(), 3);
    const Panel p = random_panel(q(), a, jb, 4);
    const long c0 = jb, nn = n + 1 - jb;  // the trailing columns, b included
    const std::vector<double> want = reference_update(m0, a.lda(), p, c0, nn);

    upload(a, m0);
    update_in_place(q(), a, p, /*l1_transposed=*/false, c0, nn);
    const std::vector<double> in_place = download(a);

    // The same with U gathered out of the matrix as RS leaves it.
    upload(a, m0);
    std::vector<double> u(jb * nn);
    for (long c = 0; c < nn; ++c)
      for (int r = 0; r < jb; ++r)
        (u_transposed ? u[c + r * nn] : u[r + c * jb]) = m0[r + (c0 + c) * a.lda()];
    device::Buffer<double> du = upload(u);
    update_trailing(q(), a, p, du.data(), u_transposed ? nn : jb, {false, u_transposed}, c0, nn,
                    self_);
    const std::vector<double> gathered = download(a);
    for (long c = c0; c < c0 + nn; ++c)
      for (long i = 0; i < n; ++i) {
        const long at = i + c * a.lda();
        ASSERT_NEAR(in_place[at], want[at], 1e-12) << i << "," << c;
        ASSERT_NEAR(gathered[at], want[at], 1e-12) << i << "," << c << " u_t=" << u_transposed;
      }
  }
}

TEST_P(LuPhases, FactorPanelThroughTheQueueMatchesDgetrf) {
  const long n = 90;
  const int nb = 32;
  LocalMatrix a(dev(), n, nb, self_);
  const std::vector<double> m0 = random_values(a.lda() * a.nq(), 5);
  upload(a, m0);
  Panel p = make_panel(a, 0, self_);
  FactParams f;
  f.l1_transposed = false;
  factor_panel(q(), a, p, f, self_);
  EXPECT_EQ(p.info, 0);

  std::vector<double> ref(n * nb);
  for (long j = 0; j < nb; ++j)
    for (long i = 0; i < n; ++i) ref[i + j * n] = m0[i + j * a.lda()];
  std::vector<int> ipiv(nb);
  const int m = static_cast<int>(n), w = nb;
  int info = 0;
  dgetrf_(&m, &w, ref.data(), &m, ipiv.data(), &info);
  ASSERT_EQ(info, 0);
  const std::vector<double> got = download(a);
  for (int c = 0; c < nb; ++c) ASSERT_EQ(p.ipiv[c], ipiv[c] - 1) << c;
  for (long j = 0; j < nb; ++j)
    for (long i = 0; i < n; ++i)
      ASSERT_NEAR(got[i + j * a.lda()], ref[i + j * n], 1e-12) << i << "," << j;
}

HPLX_INSTANTIATE_OVER_BACKENDS(LuPhases);

// What a simulated queue charges each of RS's kernels as (hplx sim's cost
// per element of each kind, calibrated on that kernel): the diagonal
// block's adjacent rows share cache lines, the pivot rows do not.
TEST(RowKernels, TellTheSimulationWhichCopyTheyAre) {
  using device::RowCopy;
  using device::RowCopyOf;
  const kernels::GatherRows pivots{nullptr, 1, nullptr, 1, 1, nullptr};
  kernels::GatherRows block = pivots;
  block.block = true;
  EXPECT_EQ(RowCopyOf<kernels::GatherRows>::of(pivots), RowCopy::Gather);
  EXPECT_EQ(RowCopyOf<kernels::GatherRows>::of(block), RowCopy::BlockGather);
  EXPECT_EQ(RowCopyOf<kernels::ScatterRows>::of({}), RowCopy::Scatter);
  EXPECT_EQ(RowCopyOf<kernels::SwapRowsInPlace>::of({}), RowCopy::Swap);
  EXPECT_EQ(RowCopyOf<kernels::StoreTransposedU>::of({}), RowCopy::BlockStore);
}

}  // namespace
}  // namespace hplx::lu
