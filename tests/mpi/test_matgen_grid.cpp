// generate_local on real MPI process grids: every local entry equals
// hpl_entry bit for bit, the local parts cover [A | b] exactly once, and the
// assembled matrix is the same whatever the grid shape, mapping and NB;
// generate_matrix in slices (the watchdog's progress) makes the same local
// matrix as one launch, on the host and the emulated device.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "device/compiled_backends.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu_context.hpp"

namespace hplx::lu {
namespace {

struct World {
  int rank = 0, size = 1;
  World() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
};

enum class Order { RowMajor, ColumnMajor };

// Where world rank `rank` sits in a p x q grid (as HPL_grid_init), or false
// for ranks >= p*q.
bool grid_coords(int rank, int p, int q, Order order, int& myrow, int& mycol) {
  if (rank >= p * q) return false;
  if (order == Order::RowMajor) {
    myrow = rank / q;
    mycol = rank % q;
  } else {
    myrow = rank % p;
    mycol = rank / p;
  }
  return true;
}

long allreduce_sum(long v) {
  long out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

// The whole [A | b] of order n (column-major, leading dimension n) as the
// single process of a 1 x 1 grid generates it.
std::vector<double> whole_matrix(long n) {
  std::vector<double> m(static_cast<std::size_t>(n * (n + 1)));
  generate_local(n, 64, 1, 1, 0, 0, m.data(), n);
  return m;
}

TEST(MatgenGrid, WholeMatrixReferenceIsHplEntry) {
  for (long n : {1L, 2L, 7L, 31L, 100L}) {
    const auto m = whole_matrix(n);
    for (long j = 0; j <= n; ++j) {
      for (long i = 0; i < n; ++i) ASSERT_EQ(m[i + j * n], hpl_entry(n, i, j));
    }
  }
}

TEST(MatgenGrid, EveryGridMatchesHplEntryAndCoversOnce) {
  const World w;
  int configs = 0;
  for (int p = 1; p <= w.size; ++p) {
    for (int q = 1; p * q <= w.size; ++q) {
      for (Order order : {Order::RowMajor, Order::ColumnMajor}) {
        for (long n : {1L, 2L, 7L, 31L, 100L}) {
          const auto reference = whole_matrix(n);
          for (int nb : {1, 3, 4, 64, static_cast<int>(n) + 5}) {
            const std::string where = "grid " + std::to_string(p) + "x" + std::to_string(q) +
                                      (order == Order::RowMajor ? " row-major" : " col-major") +
                                      " n=" + std::to_string(n) + " nb=" + std::to_string(nb);
            ++configs;
            int myrow = -1, mycol = -1;
            const bool in_grid = grid_coords(w.rank, p, q, order, myrow, mycol);

            // Each rank scatters its local entries into a zeroed global
            // matrix and counts them; the sums over ranks must be the
            // reference matrix and all ones.
            std::vector<double> assembled(static_cast<std::size_t>(n * (n + 1)), 0.0);
            std::vector<int> count(assembled.size(), 0);
            long mismatches = 0;
            if (in_grid) {
              const long mp = local_count(n, nb, myrow, p);
              const long nq = local_count(n + 1, nb, mycol, q);
              const long lda = mp + 2;  // padding rows must stay untouched
              const double sentinel = 1234.5;
              std::vector<double> a(static_cast<std::size_t>(lda * (nq + 1)), sentinel);
              generate_local(n, nb, p, q, myrow, mycol, a.data(), lda);
              for (long lj = 0; lj < nq + 1; ++lj) {
                for (long li = 0; li < lda; ++li) {
                  const double got = a[li + lj * lda];
                  if (li >= mp || lj >= nq) {
                    mismatches += got != sentinel;
                    continue;
                  }
                  const long i = local_to_global(li, nb, myrow, p);
                  const long j = local_to_global(lj, nb, mycol, q);
                  if (i >= n || j > n) {
                    ++mismatches;
                    continue;
                  }
                  // Bit-exact comparison.
                  const double want = hpl_entry(n, i, j);
                  if (std::memcmp(&got, &want, sizeof got) != 0) {
                    ++mismatches;
                    ADD_FAILURE() << where << " rank " << w.rank << " (" << myrow << "," << mycol
                                  << ") i=" << i << " j=" << j << ": " << got << " != " << want;
                  }
                  assembled[i + j * n] = got;
                  ++count[i + j * n];
                }
              }
            }
            EXPECT_EQ(allreduce_sum(mismatches), 0) << where;

            MPI_Allreduce(MPI_IN_PLACE, assembled.data(), static_cast<int>(assembled.size()),
                          MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, count.data(), static_cast<int>(count.size()), MPI_INT,
                          MPI_SUM, MPI_COMM_WORLD);
            long bad_cover = 0, bad_value = 0;
            for (std::size_t k = 0; k < assembled.size(); ++k) {
              bad_cover += count[k] != 1;
              // x + 0.0 == x exactly, so the sum is the one owner's value.
              bad_value += std::memcmp(&assembled[k], &reference[k], sizeof(double)) != 0;
            }
            EXPECT_EQ(bad_cover, 0) << where;
            EXPECT_EQ(bad_value, 0) << where;
          }
        }
      }
    }
  }
  // Grid shapes with p*q <= size, for sizes 1..4: 1, 3, 5, 8.
  const int shapes[] = {0, 1, 3, 5, 8};
  if (w.size <= 4) {
    EXPECT_EQ(configs, shapes[w.size] * 2 * 5 * 5);
  }
}

// The local matrix (its mp rows of every local column; the padding rows
// below them are never written) as the host sees it.
std::vector<double> local_entries(device::Queue& q, const LocalMatrix& a) {
  std::vector<double> out(static_cast<std::size_t>(a.mp() * a.nq()));
  device::copy_matrix(q, a.mp(), a.nq(), a.data(), a.lda(), out.data(), a.mp());
  q.synchronize();
  return out;
}

TEST(MatgenGrid, SlicesMakeTheSameMatrixAndMarkEachSlice) {
  const World w;
  std::vector<device::BackendKind> kinds{device::BackendKind::Host};
  if (device::kEmulatedCompiled) kinds.push_back(device::BackendKind::Emulated);
  for (device::BackendKind kind : kinds) {
    device::Device& dev = test::test_context(kind).device();
    for (const auto& [p, q] : {std::pair{w.size, 1}, std::pair{1, w.size}}) {
      const ProcessGrid grid(MPI_COMM_WORLD, p, q, GridOrder::RowMajor);
      const long n = 203;
      const int nb = 16;
      LocalMatrix whole(dev, n, nb, grid), sliced(dev, n, nb, grid);
      int slices = 0;
      generate_matrix(dev.compute(), whole, grid);
      // 7 local columns a slice: a share of nq columns takes ceil(nq / 7).
      generate_matrix(
          dev.compute(), sliced, grid, [&slices] { ++slices; }, 7 * sliced.mp());
      const std::string where = std::string(device::name_of(kind)) + " grid " + std::to_string(p) +
                                "x" + std::to_string(q) + " rank " + std::to_string(w.rank);
      EXPECT_EQ(slices, (sliced.nq() + 6) / 7) << where;
      EXPECT_EQ(local_entries(dev.compute(), sliced), local_entries(dev.compute(), whole)) << where;
    }
  }
}

}  // namespace
}  // namespace hplx::lu
