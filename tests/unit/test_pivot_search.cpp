// The pivot search of device FACT's leaf (kernels/fact_kernels.hpp): the
// chunks' candidates, the groups' candidates and the pick, run here as
// the host loops a host queue runs, must pick the row a plain scan of the
// column picks (the larger magnitude, NaN above every number, a tie to the
// smaller row) for any row count, and keep each thread's scan short.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "lu/kernels/fact_kernels.hpp"

namespace hplx::lu::kernels {
namespace {

// The first row of [first, end) with the largest pivot magnitude.
long plain_scan(const std::vector<double>& column, long first, long end) {
  long best = first;
  for (long r = first + 1; r < end; ++r)
    if (pivot_magnitude(column[r]) > pivot_magnitude(column[best])) best = r;
  return best;
}

// The search's pick over rows [first, end) of one column (ld = its size).
long two_level_pick(const std::vector<double>& column, long first, long end, double& mag) {
  const PivotSearch search = PivotSearch::of(end - first);
  std::vector<double> candidates(search.doubles(), -7.0);
  double* grouped = candidates.data() + 2 * search.chunks;
  const ColumnCandidates chunk{
      column.data(), static_cast<long>(column.size()), 0, first, end, candidates.data(),
      search.chunks};
  for (long g = 0; g < search.chunks; ++g) chunk(g);
  const GroupCandidates group{candidates.data(), search.chunks, grouped, search.groups};
  for (long h = 0; h < search.groups; ++h) group(h);
  return best_candidate(grouped, search.groups, mag);
}

TEST(PivotSearch, PicksThePlainScansRowForAnyRowCount) {
  std::mt19937_64 gen(5);
  std::uniform_int_distribution<int> small(-3, 3);  // ties in every search
  for (long rows :
       {1L, 2L, 15L, 16L, 17L, 31L, 33L, 300L, 1023L, 4097L, 65535L, 65537L, 70001L, 124000L}) {
    for (int kind = 0; kind < 3; ++kind) {
      const long first = 3;  // the search starts below the top of W
      std::vector<double> column(first + rows);
      for (auto& v : column) v = small(gen);
      if (kind == 1) column[first + rows / 2] = -1e300;  // one clear winner
      if (kind == 2) {                                   // NaNs rank above every number
        column[first + rows - 1] = std::numeric_limits<double>::quiet_NaN();
        column[first + rows / 3] = std::numeric_limits<double>::quiet_NaN();
      }
      double mag = 0;
      const long picked = two_level_pick(column, first, first + rows, mag);
      const long expected = plain_scan(column, first, first + rows);
      ASSERT_EQ(picked, expected) << "rows=" << rows << " kind=" << kind;
      EXPECT_EQ(mag, pivot_magnitude(column[expected])) << "rows=" << rows << " kind=" << kind;
    }
  }
}

TEST(PivotSearch, EachThreadScansFewValuesAtAGpusPanelHeight) {
  // A thread's scan is a chain of loads the pivot waits on: at a full H200
  // panel's 124000 rows no thread of any level scans more than 64 values
  // (one level scanned 256 rows, then 485 candidates).
  for (long rows : {1000L, 20000L, 61000L, 124000L}) {
    const PivotSearch s = PivotSearch::of(rows);
    const long per_chunk = (rows + s.chunks - 1) / s.chunks;
    const long per_group = (s.chunks + s.groups - 1) / s.groups;
    EXPECT_LE(per_chunk, 64) << rows;
    EXPECT_LE(per_group, 64) << rows;
    EXPECT_LE(s.groups, 64) << rows;
    EXPECT_GE(s.groups * s.groups, s.chunks) << rows;
  }
  // Every chunk and every group has a row or a candidate to give.
  for (long rows = 1; rows < 3000; ++rows) {
    const PivotSearch s = PivotSearch::of(rows);
    ASSERT_LE(s.chunks, rows);
    ASSERT_LE(s.groups, s.chunks);
  }
}

}  // namespace
}  // namespace hplx::lu::kernels
