// ELLPACK storage of the 27-point operator (seed 002 section 3.2.2): every
// row has kSlots entries, stored column-major by row slot (slot s of row r
// at s * rows + r), so consecutive rows of one slot are consecutive in
// memory and no row pointer is needed. Rows with fewer than 27 neighbours
// (on the global boundary) pad with a zero value pointing at the row itself.
// Column indices below `rows` are owned rows (color ordering), from `rows`
// on they index the halo. The pattern is shared between the double matrix
// and its single-precision copy.
#pragma once

#include <memory>
#include <vector>

#include "mxp/coloring.hpp"
#include "mxp/halo.hpp"
#include "mxp/motif_stats.hpp"

namespace hplx::mxp {

inline constexpr int kSlots = 27;

struct EllPattern {
  long rows = 0;
  long halo = 0;          // halo entries a vector needs after the owned rows
  std::vector<int> cols;  // kSlots * rows
};

template <class T>
struct EllMatrix {
  std::shared_ptr<const EllPattern> pattern;
  std::vector<T> values;    // kSlots * rows, same layout as pattern->cols
  std::vector<T> inv_diag;  // 1 / a_rr
  long long global_nnz = 0;

  long rows() const { return pattern->rows; }
  long columns() const { return pattern->rows + pattern->halo; }
};

// The same matrix with values rounded to T.
template <class T>
EllMatrix<T> convert_matrix(const EllMatrix<double>& a);

// y[r] = sum_s A[r,s] x[col(r,s)] for r in [begin, end) (OpenMP threads).
template <class T>
void spmv_rows(const EllMatrix<T>& a, const T* x, T* y, long begin, long end);

// Distributed y = A x: x needs columns() entries (its halo is filled here);
// the interior rows of every color run while the halo is in flight.
template <class T>
void spmv(const EllMatrix<T>& a, const ColorOrdering& order, HaloExchange<T>& halo, T* x, T* y,
          MotifStats* stats);

// Bytes a kernel reads or writes per row of an ELL matrix of T (27 values
// and column indices) plus `vectors` streamed vector entries of T.
template <class T>
constexpr double ell_row_bytes(int vectors) {
  return kSlots * (sizeof(T) + sizeof(int)) + vectors * sizeof(T);
}

}  // namespace hplx::mxp
