// RS's row copies as kernel bodies (device/kernel_body.hpp): written once,
// run by every backend's launch(): host loops on the host and emulated
// backends, one GPU thread per index on CUDA.
//
// Every index of the gather and scatter bodies is one row and `cols`
// adjacent columns of it, rows varying fastest (index i: row i mod m,
// column block i / m), so that every element can have its own index.
// On a GPU cols = 1: one thread per (row, column) element, all of them
// independent (a launch over nn / 8 column blocks, each walking the rows in
// turn, left an H200 with too few threads to hide a row miss). On the host
// cols = kColumnBlock: pivot rows are scattered down a column, so every
// element copied is a cache miss of its own, and a row copied across eight
// columns at once has eight independent misses in flight instead of one
// dependent chain, the buffer side of a row one cache line. Measured on the
// project's 2-core VM (N = 10000, 192 or 96 rows, column blocks of 1, 4, 8,
// 16): 1.4 to 1.8x faster than one column at a time; 8 was the best or
// level with the best. row_swap.cpp's row_copy_columns() picks cols for a queue.
//
// Row buffers are row-contiguous unless the body says otherwise (ldb > 0):
// row i of a buffer of nn columns is buf[i * nn .. i * nn + nn); with ldb,
// element (i, c) is buf[i + c * ldb] (column-major: U as the update wants
// it when not transposed, and the in-place swap's staging rows).
#pragma once

#include "device/kernel_body.hpp"
#include "device/queue.hpp"
#include "device/types.hpp"

namespace hplx::lu::kernels {

inline constexpr long kColumnBlock = 8;

// Column blocks over nn columns: the index range of SwapRowsInPlace.
inline long column_blocks(long nn) {
  return (nn + kColumnBlock - 1) / kColumnBlock;
}

// The indices of a gather or scatter of m rows by nn columns, `cols`
// columns per index.
inline long row_copy_indices(long m, long nn, long cols = kColumnBlock) {
  return m * ((nn + cols - 1) / cols);
}

// The element (row, column range) of index i of a row copy.
struct RowCopyIndex {
  long r, c0, c1;
  HPLX_HD RowCopyIndex(long i, long m, long nn, long cols)
      : r(i % m), c0((i / m) * cols), c1(c0 + cols < nn ? c0 + cols : nn) {}
};

// dst(i, c) = a[rows[i] + c * lda] for i < m, c < nn (dst row-contiguous,
// or column-major with leading dimension ldb > 0). `block`: the rows are
// adjacent rows of one block, which share cache lines (a simulated queue's
// cost only). `count`: when set, only rows i < *count are copied (a row
// list whose length only the device knows).
struct GatherRows {
  const double* a;
  long lda;
  const long* rows;
  long m, nn;
  double* dst;
  bool block = false;
  long cols = kColumnBlock;
  long ldb = 0;
  const long* count = nullptr;
  double moved_per_index() const { return static_cast<double>(cols); }
  device::RowCopy row_copy() const {
    return block ? device::RowCopy::BlockGather : device::RowCopy::Gather;
  }
  HPLX_HD void operator()(long i) const {
    const RowCopyIndex e(i, m, nn, cols);
    if (count != nullptr && e.r >= *count) return;
    const double* row = a + rows[e.r];
    if (ldb > 0)
      for (long c = e.c0; c < e.c1; ++c) dst[e.r + c * ldb] = row[c * lda];
    else
      for (long c = e.c0; c < e.c1; ++c) dst[e.r * nn + c] = row[c * lda];
  }
};

// a[rows[i] + c * lda] = src(i, c) for i < m, c < nn (src laid out as
// GatherRows's dst; `count` likewise).
struct ScatterRows {
  double* a;
  long lda;
  const long* rows;
  long m, nn;
  const double* src;
  long cols = kColumnBlock;
  long ldb = 0;
  const long* count = nullptr;
  double moved_per_index() const { return static_cast<double>(cols); }
  device::RowCopy row_copy() const { return device::RowCopy::Scatter; }
  HPLX_HD void operator()(long i) const {
    const RowCopyIndex e(i, m, nn, cols);
    if (count != nullptr && e.r >= *count) return;
    double* row = a + rows[e.r];
    if (ldb > 0)
      for (long c = e.c0; c < e.c1; ++c) row[c * lda] = src[e.r + c * ldb];
    else
      for (long c = e.c0; c < e.c1; ++c) row[c * lda] = src[e.r * nn + c];
  }
};

// LAPACK's dlaswp on nn columns: rows k + i and pivots[i] exchanged for
// i = 0 .. jb-1, in order (a row may move twice). The pivots are the
// panel's tail: global rows as exact doubles.
struct SwapRowsInPlace {
  double* a;
  long lda;
  const double* pivots;
  long k;
  int jb;
  long nn;
  // Every pivot row swapped (HPL's pivots are rarely on the diagonal): one
  // element of U each, the unit the calibrated swap cost is measured in.
  double moved_per_index() const { return static_cast<double>(jb) * kColumnBlock; }
  HPLX_HD void operator()(long blk) const {
    const long c0 = blk * kColumnBlock;
    const long c1 = c0 + kColumnBlock < nn ? c0 + kColumnBlock : nn;
    for (int i = 0; i < jb; ++i) {
      const long r = static_cast<long>(pivots[i]), d = k + i;
      if (r == d) continue;
      for (long c = c0; c < c1; ++c) {
        const double t = a[d + c * lda];
        a[d + c * lda] = a[r + c * lda];
        a[r + c * lda] = t;
      }
    }
  }
};

// The solved U, nn x jb with row r of U contiguous (ldu >= nn), stored
// into the jb matrix rows starting at `rows` (leading dimension lda): the
// transposed copy, one matrix column per index.
struct StoreTransposedU {
  const double* u;
  long ldu;
  int jb;
  double* rows;
  long lda;
  double moved_per_index() const { return jb; }
  device::RowCopy row_copy() const { return device::RowCopy::BlockStore; }
  HPLX_HD void operator()(long c) const {
    for (int r = 0; r < jb; ++r) rows[r + c * lda] = u[c + r * ldu];
  }
};

// The row-swap plan (lu/phases/comm/row_swap.hpp, plan_row_swaps) built on the device
// from the panel's pivots in device memory, so that a device FACT's pivots
// need no trip to the host before its swap. Two launches over one plan
// array `p` of plan_longs(jb) longs:
//
//   PivotSlots (jb indices, all independent): where each interchange's
//     pivot row is kept while the interchanges are replayed: a row of the
//     diagonal block at its own slot r < jb, a row outside it at slot
//     jb + c0, c0 the first interchange naming it (a repeated pivot row
//     finds its earlier slot; O(jb) per index, fine for a few hundred
//     to a few thousand pivots on a GPU);
//   ReplaySwaps (1 index): netlib's jb sequential interchanges replayed on
//     those slots (the one thing that is sequential), then the plan written
//     out as two row lists: source[i] and dest[i] for i < *count, row
//     dest[i] receiving the old row source[i]. The first jb entries are U
//     (dest k + r, source u_source[r]); the rest are the plan's moves (an
//     old row k + from of the block pushed below it, to row `to`), in the
//     order of the interchanges that first named them (plan_row_swaps sorts
//     them by `to`: the same moves).
//
// The in-place swap then gathers the sources and scatters them to the
// destinations: every element its own index, no order among them.
inline long plan_longs(int jb) {
  return 7L * jb + 1;
}
struct PlanArrays {
  long *slot, *content, *source, *dest, *count;
  HPLX_HD PlanArrays(long* p, int jb)
      : slot(p), content(p + jb), source(p + 3L * jb), dest(p + 5L * jb), count(p + 7L * jb) {}
};

struct PivotSlots {
  const double* pivots;  // the panel's tail: global rows as exact doubles
  long k;
  int jb;
  long* plan;
  HPLX_HD void operator()(long c) const {
    const PlanArrays s(plan, jb);
    const long r = static_cast<long>(pivots[c]);
    if (r >= k && r < k + jb) {
      s.slot[c] = r - k;
      return;
    }
    long first = c;
    for (long e = 0; e < c; ++e)
      if (static_cast<long>(pivots[e]) == r) {
        first = e;
        break;
      }
    s.slot[c] = jb + first;
  }
};

struct ReplaySwaps {
  const double* pivots;
  long k;
  int jb;
  long* plan;
  // One element per interchange; the device's cost is its latency, not
  // rows moved.
  double moved_per_index() const { return jb; }
  HPLX_HD void operator()(long) const {
    const PlanArrays s(plan, jb);
    // content[slot]: the original row now at that slot's position.
    for (long r = 0; r < jb; ++r) s.content[r] = k + r;
    for (long c = 0; c < jb; ++c)
      if (s.slot[c] == jb + c) s.content[jb + c] = static_cast<long>(pivots[c]);
    for (long c = 0; c < jb; ++c) {
      if (static_cast<long>(pivots[c]) == k + c) continue;
      const long t = s.content[c];
      s.content[c] = s.content[s.slot[c]];
      s.content[s.slot[c]] = t;
    }
    long n = 0;
    for (long r = 0; r < jb; ++r, ++n) {
      s.source[n] = s.content[r];
      s.dest[n] = k + r;
    }
    for (long c = 0; c < jb; ++c) {
      if (s.slot[c] != jb + c) continue;  // in the block, or a repeat
      const long pos = static_cast<long>(pivots[c]), orig = s.content[jb + c];
      // A position below the block can only receive a row of the block.
      if (pos >= k + jb && orig != pos) {
        s.source[n] = orig;
        s.dest[n] = pos;
        ++n;
      }
    }
    *s.count = n;
  }
};

}  // namespace hplx::lu::kernels
