// ELLPACK storage of the 27-point operator (seed 002 section 3.2.2): every
// row has kSlots entries, stored column-major by row slot, so consecutive
// rows of one slot are consecutive in memory and no row pointer is needed.
// On a CPU the slot-major layout is cut into slices of kSliceRows rows
// (sliced ELL): slot s of row r sits at ((r / C) * kSlots + s) * C + r % C,
// C = kSliceRows. Inside a slice it is the GPU layout; across slices the
// matrix is one sequential stream, which the hardware prefetchers follow
// (plain slot-major rows would make the kernels jump between 27 streams
// n entries apart). Rows with fewer than 27 neighbours
// (on the global boundary) pad with a zero value pointing at the row itself.
// Column indices below `rows` are owned rows (color ordering), from `rows`
// on they index the halo. The pattern is shared between the double matrix
// and its single-precision copy.
//
// Storage is the device layer's (device::Buffer, MemorySpace::Device, from
// the run's Device): generation builds the matrix on the host and copies it
// in (problem.cpp). The kernels are bodies (kernels/ell_kernels.hpp) with a
// host fast path (host/ell_simd.hpp), chosen in one place per kernel.
#pragma once

#include <memory>
#include <vector>

#include "device/device.hpp"
#include "mxp/coloring.hpp"
#include "mxp/dispatch.hpp"
#include "mxp/ell_layout.hpp"
#include "mxp/halo.hpp"
#include "mxp/motif_stats.hpp"

namespace hplx::mxp {

struct EllPattern {
  long rows = 0;
  long halo = 0;             // halo entries a vector needs after the owned rows
  device::Buffer<int> cols;  // storage(rows) entries
  // Each row's entries are sorted by column (owned rows, then the halo, then
  // the padding), so the entries in the blocks of earlier colors come
  // first. earlier_slots[sl]: over the rows of slice sl, the most entries
  // whose column lies in a block before the row's own (see sort_rows); a
  // Gauss-Seidel sweep from x = 0 reads only those slots (the rest multiply
  // zeros: the row's own block, later blocks and the halo are still zero).
  device::Buffer<unsigned char> earlier_slots;
  long long earlier_entries = 0;  // sum over slices of earlier_slots x its rows

  // Where slot s of row r is stored in cols and values.
  static long index(long r, int s) { return ell_index(r, s); }
  // Entries for `rows` rows (the last slice is padded).
  static long storage(long rows) { return ell_storage(rows); }
};

template <class T>
struct EllMatrix {
  std::shared_ptr<const EllPattern> pattern;
  device::Buffer<T> values;    // same layout as pattern->cols
  device::Buffer<T> inv_diag;  // 1 / a_rr
  long long global_nnz = 0;

  long rows() const { return pattern->rows; }
  long columns() const { return pattern->rows + pattern->halo; }
};

// The same matrix with values rounded to T (on dev's compute queue; the
// pattern is shared).
template <class T>
EllMatrix<T> convert_matrix(device::Device& dev, const EllMatrix<double>& a);

// y[r] = sum_s A[r,s] x[col(r,s)] for r in [begin, end), on q.
template <class T>
void spmv_rows(device::Queue& q, const EllMatrix<T>& a, const T* x, T* y, long begin, long end,
               KernelPath path = KernelPath::Best);

// Distributed y = A x on q: x needs columns() entries (its halo is filled
// here); the interior rows of every color run while the halo is in flight.
template <class T>
void spmv(device::Queue& q, const EllMatrix<T>& a, const ColorOrdering& order,
          HaloExchange<T>& halo, T* x, T* y, MotifStats* stats);

// Bytes a kernel reads or writes per row of an ELL matrix of T (27 values
// and column indices) plus `vectors` streamed vector entries of T.
template <class T>
constexpr double ell_row_bytes(int vectors) {
  return kSlots * (sizeof(T) + sizeof(int)) + vectors * sizeof(T);
}

}  // namespace hplx::mxp
