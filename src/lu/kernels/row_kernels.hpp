// RS's row copies as kernel bodies (device/kernel_body.hpp): written once,
// run by every backend's launch() — host loops here, GPU threads later.
//
// Pivot rows are scattered down a column, so every element copied is a
// cache miss of its own. Each index of these bodies is a block of
// kColumnBlock columns, and each row is copied across those columns at
// once: eight independent misses in flight instead of one dependent chain,
// and the buffer side (eight consecutive doubles of a row) one cache line.
// Measured on the project's 2-core VM (N = 10000, 192 or 96 rows, column
// blocks of 1, 4, 8, 16): 1.4 to 1.8x faster than one column at a time; 8
// was the best or level with the best.
//
// Row buffers are row-contiguous: row i of a buffer of nn columns is
// buf[i * nn .. i * nn + nn).
#pragma once

#include "device/kernel_body.hpp"
#include "device/types.hpp"

namespace hplx::lu::kernels {

inline constexpr long kColumnBlock = 8;

// Column blocks over nn columns: the index range of the bodies below.
inline long column_blocks(long nn) {
  return (nn + kColumnBlock - 1) / kColumnBlock;
}

// dst[i * nn + c] = a[rows[i] + c * lda] for i < m, c < nn. `block`: the
// rows are adjacent rows of one block, which share cache lines (a
// simulated queue's cost only).
struct GatherRows {
  const double* a;
  long lda;
  const long* rows;
  long m, nn;
  double* dst;
  bool block = false;
  double moved_per_index() const { return static_cast<double>(m) * kColumnBlock; }
  device::RowCopy row_copy() const {
    return block ? device::RowCopy::BlockGather : device::RowCopy::Gather;
  }
  HPLX_HD void operator()(long blk) const {
    const long c0 = blk * kColumnBlock;
    const long c1 = c0 + kColumnBlock < nn ? c0 + kColumnBlock : nn;
    for (long i = 0; i < m; ++i) {
      const double* row = a + rows[i];
      for (long c = c0; c < c1; ++c) dst[i * nn + c] = row[c * lda];
    }
  }
};

// a[rows[i] + c * lda] = src[i * nn + c] for i < m, c < nn.
struct ScatterRows {
  double* a;
  long lda;
  const long* rows;
  long m, nn;
  const double* src;
  double moved_per_index() const { return static_cast<double>(m) * kColumnBlock; }
  device::RowCopy row_copy() const { return device::RowCopy::Scatter; }
  HPLX_HD void operator()(long blk) const {
    const long c0 = blk * kColumnBlock;
    const long c1 = c0 + kColumnBlock < nn ? c0 + kColumnBlock : nn;
    for (long i = 0; i < m; ++i) {
      double* row = a + rows[i];
      for (long c = c0; c < c1; ++c) row[c * lda] = src[i * nn + c];
    }
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

}  // namespace hplx::lu::kernels
