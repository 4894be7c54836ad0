// LU phases made repeatable for `hplx model calibrate`'s CPU terms: each
// one prepares its inputs (untimed) and runs the phase exactly as hplx lu
// does, through the LU's own functions. The model's calibration times them
// through the app (apps/hplx/model_command.cpp), so src/model does not
// depend on the LU (layers: core <- device <- lu; core <- model).
#pragma once

#include <memory>
#include <vector>

#include "device/types.hpp"

namespace hplx::lu {

// FACT as hplx lu runs it on one thread: an m x b panel copied out of a
// matrix (column-major, leading dimension ld, at least m rows), factored by
// hplx's recursive panel factorization (factor_stacked_panel with hplx lu's
// defaults: RFACT Crout, PFACT Right, NBMIN 4, NDIV 2) and copied back.
class FactTiming {
 public:
  // `src` (ld x b) is the matrix every repetition starts from.
  FactTiming(std::vector<double> src, long ld, long m, int b);
  ~FactTiming();
  FactTiming(const FactTiming&) = delete;
  FactTiming& operator=(const FactTiming&) = delete;
  void prepare();  // restores the matrix from src
  void run();      // copy the panel out, factor it, copy it back

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The row swap's copies as the run makes them, on an m x m matrix in host
// memory (the matrix's own allocation, huge pages) over n columns, in
// 256-column chunks dealt over `threads` OpenMP threads, b rows each, one
// kernel of src/lu/kernels/row_kernels.hpp per kind:
//   Swap: lu::swap_rows_in_place (b interchanges of rows k .. k+b-1 with rows
//     further down, column by column), as the update runs it with one
//     process row;
//   Gather / Scatter: b rows spread over the matrix (as pivots are) into /
//     from a row buffer;
//   BlockGather: b adjacent rows (the diagonal block's) into a row buffer;
//   BlockStore: U (n x b, row-contiguous) stored back, transposed, into b
//     adjacent rows.
class RowCopyTiming {
 public:
  RowCopyTiming(device::RowCopy kind, long m, long n, int b, int threads);
  ~RowCopyTiming();
  RowCopyTiming(const RowCopyTiming&) = delete;
  RowCopyTiming& operator=(const RowCopyTiming&) = delete;
  // New rows (uniform below the panel's, as pivots; another block), their
  // lines flushed from the caches: a run's copies find them in memory.
  void prepare();
  void run();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace hplx::lu
