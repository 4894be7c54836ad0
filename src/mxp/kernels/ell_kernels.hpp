// The sparse kernels of HPG-MxP as kernel bodies (device/kernel_body.hpp):
// one row (or one coarse point) per index, plain pointers into the queue's
// memory, written once for every backend. Launched over a row range
// [row0, row0 + count) with device::launch; the host backend runs the
// faster slice-wise loop of host/ell_simd.hpp instead (same sums), chosen
// in one place per kernel.
#pragma once

#include "device/kernel_body.hpp"
#include "mxp/ell_layout.hpp"

namespace hplx::mxp::kernels {

// The row sum acc -/+= sum over the first `slots` slots of A[r,s] x[col].
template <bool Subtract, class T>
HPLX_HD inline T ell_row_sum(const T* vals, const int* cols, const T* x, long r, int slots, T acc) {
  const long base = ell_index(r, 0);
  for (int s = 0; s < slots; ++s) {
    const long k = base + static_cast<long>(s) * kSliceRows;
    if constexpr (Subtract)
      acc -= vals[k] * x[cols[k]];
    else
      acc += vals[k] * x[cols[k]];
  }
  return acc;
}

// y[r] = sum_s A[r,s] x[col(r,s)].
template <class T>
struct SpmvBody {
  const T* vals;
  const int* cols;
  const T* x;
  T* y;
  long row0;
  HPLX_HD void operator()(long i) const {
    const long r = row0 + i;
    y[r] = ell_row_sum<false>(vals, cols, x, r, kSlots, T(0));
  }
};

// Gauss-Seidel relaxation of rows that do not read each other (one color):
// x[r] += (b[r] - sum_s A[r,s] x[col]) / a_rr. `slot_limit` (may be null):
// per slice, the slots that can be nonzero products (EllPattern).
template <class T>
struct GsBody {
  const T* vals;
  const int* cols;
  const T* inv_diag;
  const T* b;
  T* x;
  const unsigned char* slot_limit;
  long row0;
  HPLX_HD void operator()(long i) const {
    const long r = row0 + i;
    const int slots = slot_limit ? slot_limit[r / kSliceRows] : kSlots;
    const T acc = ell_row_sum<true>(vals, cols, x, r, slots, b[r]);
    x[r] += acc * inv_diag[r];
  }
};

// The post-smoother's first colour with the prolongation fused in (the
// rows are coarse points: the coarse block comes first in the sweep):
// x[r] += z_c[f2c[r]], then the relaxation of GsBody, which reads the
// corrected x[r] in its diagonal term. The same operations in the same order
// as a ProlongBody launch followed by GsBody, so the same bits.
template <class T>
struct GsProlongBody {
  const T* vals;
  const int* cols;
  const T* inv_diag;
  const T* b;
  T* x;
  const int* f2c;
  const T* zc;
  long row0;
  HPLX_HD void operator()(long i) const {
    const long r = row0 + i;
    x[r] += zc[f2c[r]];
    const T acc = ell_row_sum<true>(vals, cols, x, r, kSlots, b[r]);
    x[r] += acc * inv_diag[r];
  }
};

// The reference's sequential sweep: rows row0 .. row0 + count - 1 one after
// the other (each reads the rows before it already updated). One index.
template <class T>
struct GsSequentialBody {
  const T* vals;
  const int* cols;
  const T* inv_diag;
  const T* b;
  T* x;
  long row0, count;
  HPLX_HD void operator()(long) const {
    for (long r = row0; r < row0 + count; ++r) {
      const T acc = ell_row_sum<true>(vals, cols, x, r, kSlots, b[r]);
      x[r] += acc * inv_diag[r];
    }
  }
};

// x[r] = b[r] / a_rr: the first color of a sweep from x = 0.
template <class T>
struct DiagonalSolveBody {
  const T* inv_diag;
  const T* b;
  T* x;
  HPLX_HD void operator()(long r) const { x[r] = b[r] * inv_diag[r]; }
};

// Fused residual + restriction at the coarse points that are fine rows
// row0 + i: r_c[f2c[row]] = r[row] - (A z)[row].
template <class T>
struct RestrictBody {
  const T* vals;
  const int* cols;
  const T* r;
  const T* z;
  T* rc;
  const int* f2c;
  long row0;
  HPLX_HD void operator()(long i) const {
    const long f = row0 + i;
    rc[f2c[f]] = ell_row_sum<true>(vals, cols, z, f, kSlots, r[f]);
  }
};

// The same per coarse row i, from fine row c2f[i] (orderings whose coarse
// points are not one block).
template <class T>
struct RestrictGatherBody {
  const T* vals;
  const int* cols;
  const T* r;
  const T* z;
  T* rc;
  const int* c2f;
  HPLX_HD void operator()(long i) const {
    const long f = c2f[i];
    rc[i] = ell_row_sum<true>(vals, cols, z, f, kSlots, r[f]);
  }
};

// Prolongation: z[c2f[i]] += z_c[i].
template <class T>
struct ProlongBody {
  const int* c2f;
  const T* zc;
  T* z;
  HPLX_HD void operator()(long i) const { z[c2f[i]] += zc[i]; }
};

}  // namespace hplx::mxp::kernels
