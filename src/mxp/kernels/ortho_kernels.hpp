// CGS2's projections as kernel bodies over chunks of rows (cgs2.hpp): one
// index per chunk of kOrthoChunk rows of the basis Q (n x j, column-major,
// leading dimension ld) and of the vector w. Per chunk, in one read of its
// rows of Q: optionally w -= Q h (each row's products in column order),
// then optionally the chunk's partial sums of Q^T w (each column's terms in
// row order, in double). SumChunksBody then adds the chunks' partial sums in
// chunk order: the order of the device layer's fixed-order reductions
// (device/launch.hpp: chunks of 4096 terms in index order, then the chunks'
// sums in order), so the projections repeat bit for bit on any number of
// threads and from one run to the next.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::mxp::kernels {

inline constexpr long kOrthoChunk = 4096;  // rows per partial sum (device::kReduceChunk)
inline constexpr long kOrthoBlock = 256;   // rows of a chunk held in a local buffer at once
inline constexpr int kOrthoColumns = 8;    // columns summed side by side (independent chains)

template <class T>
struct CgsChunkBody {
  const T* q;
  long ld, n;
  int j;
  T* w;
  const T* h;        // may be null: no update
  double* partials;  // may be null: no sums; else partials[c * j + i] for chunk c, column i
  HPLX_HD void operator()(long c) const {
    const long r0 = c * kOrthoChunk;
    const long r1 = r0 + kOrthoChunk < n ? r0 + kOrthoChunk : n;
    double* part = partials ? partials + c * j : nullptr;
    if (part)
      for (int i = 0; i < j; ++i) part[i] = 0;
    T buf[kOrthoBlock];
    for (long b0 = r0; b0 < r1; b0 += kOrthoBlock) {
      const long len = b0 + kOrthoBlock < r1 ? kOrthoBlock : r1 - b0;
      for (long k = 0; k < len; ++k) buf[k] = w[b0 + k];
      if (h) {
        for (int i = 0; i < j; ++i) {
          const T hi = h[i];
          const T* qi = q + i * ld + b0;
          for (long k = 0; k < len; ++k) buf[k] -= qi[k] * hi;
        }
        for (long k = 0; k < len; ++k) w[b0 + k] = buf[k];
      }
      if (part) {
        // The same block of Q again, from cache. Groups of columns side by
        // side keep several sums in flight; each column's sum still takes
        // its terms in row order.
        int i = 0;
        for (; i + kOrthoColumns <= j; i += kOrthoColumns) {
          double s[kOrthoColumns];
          for (int g = 0; g < kOrthoColumns; ++g) s[g] = part[i + g];
          for (long k = 0; k < len; ++k) {
            const double v = static_cast<double>(buf[k]);
            for (int g = 0; g < kOrthoColumns; ++g)
              s[g] += static_cast<double>(q[(i + g) * ld + b0 + k]) * v;
          }
          for (int g = 0; g < kOrthoColumns; ++g) part[i + g] = s[g];
        }
        for (; i < j; ++i) {
          const T* qi = q + i * ld + b0;
          double s = part[i];
          for (long k = 0; k < len; ++k)
            s += static_cast<double>(qi[k]) * static_cast<double>(buf[k]);
          part[i] = s;
        }
      }
    }
  }
};

// h[i] = the sum of partials[c * j + i] over the chunks c < chunks, in
// chunk order. One index per column.
struct SumChunksBody {
  const double* partials;
  long chunks;
  int j;
  double* h;
  HPLX_HD void operator()(long i) const {
    double s = 0;
    for (long c = 0; c < chunks; ++c) s += partials[c * j + i];
    h[i] = s;
  }
};

}  // namespace hplx::mxp::kernels
