// CGS2's projections as kernel bodies over chunks of rows (cgs2.hpp): one
// index per chunk of kOrthoChunk rows of the basis Q (n x j, column-major,
// leading dimension ld) and of the vector w. Per chunk, in one read of its
// rows of Q: optionally w -= Q h (each row's products in column order),
// then optionally the chunk's partial sums of Q^T w in double, kOrthoLanes
// per column (row k of the chunk in lane k mod kOrthoLanes, each lane in
// row order: the terms of a column vectorize). SumChunksBody then adds each
// chunk's lanes in lane order and the chunks in chunk order. A fixed order,
// as in the device layer's reductions (device/launch.hpp: chunks of 4096
// terms, then the chunks' sums in order; there each chunk strictly in index
// order, one chain that does not vectorize), so the projections repeat bit
// for bit on any number of threads and from one run to the next.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::mxp::kernels {

inline constexpr long kOrthoChunk = 4096;  // rows per partial sum (device::kReduceChunk)
inline constexpr long kOrthoBlock = 512;   // rows of a chunk held in a local buffer at once
inline constexpr int kOrthoLanes = 16;     // partial sums per column and chunk (four AVX2 vectors)

template <class T>
struct CgsChunkBody {
  const T* q;
  long ld, n;
  int j;
  T* w;
  const T* h;        // may be null: no update
  double* partials;  // may be null: no sums; else [(c * j + i) * kOrthoLanes + lane]
  HPLX_HD void operator()(long c) const {
    const long r0 = c * kOrthoChunk;
    const long r1 = r0 + kOrthoChunk < n ? r0 + kOrthoChunk : n;
    double* part = partials ? partials + c * j * kOrthoLanes : nullptr;
    if (part)
      for (int i = 0; i < j * kOrthoLanes; ++i) part[i] = 0;
    T buf[kOrthoBlock];
    double wd[kOrthoBlock];
    for (long b0 = r0; b0 < r1; b0 += kOrthoBlock) {
      const long len = b0 + kOrthoBlock < r1 ? kOrthoBlock : r1 - b0;
      for (long k = 0; k < len; ++k) buf[k] = w[b0 + k];
      if (h) {
        // Each row's products subtracted in column order, four columns per
        // pass over the block (the same operations as one column at a time).
        int i = 0;
        for (; i + 4 <= j; i += 4) {
          const T h0 = h[i], h1 = h[i + 1], h2 = h[i + 2], h3 = h[i + 3];
          const T* q0 = q + i * ld + b0;
          const T* q1 = q0 + ld;
          const T* q2 = q1 + ld;
          const T* q3 = q2 + ld;
          for (long k = 0; k < len; ++k) {
            T v = buf[k];
            v -= q0[k] * h0;
            v -= q1[k] * h1;
            v -= q2[k] * h2;
            v -= q3[k] * h3;
            buf[k] = v;
          }
        }
        for (; i < j; ++i) {
          const T hi = h[i];
          const T* qi = q + i * ld + b0;
          for (long k = 0; k < len; ++k) buf[k] -= qi[k] * hi;
        }
        for (long k = 0; k < len; ++k) w[b0 + k] = buf[k];
      }
      if (part) {
        // The same block of Q again, from cache. Each column's chunk sum in
        // kOrthoLanes lanes (row r0 + k in lane k mod kOrthoLanes, each lane
        // in row order), so the terms of one column vectorize.
        for (long k = 0; k < len; ++k) wd[k] = static_cast<double>(buf[k]);
        const long whole = len - len % kOrthoLanes;
        for (int i = 0; i < j; ++i) {
          const T* qi = q + i * ld + b0;
          double* lane = part + i * kOrthoLanes;
          double acc[kOrthoLanes];
          for (int t = 0; t < kOrthoLanes; ++t) acc[t] = lane[t];
          for (long k = 0; k < whole; k += kOrthoLanes)
            for (int t = 0; t < kOrthoLanes; ++t)
              acc[t] += static_cast<double>(qi[k + t]) * wd[k + t];
          for (long k = whole; k < len; ++k)
            acc[k % kOrthoLanes] += static_cast<double>(qi[k]) * wd[k];
          for (int t = 0; t < kOrthoLanes; ++t) lane[t] = acc[t];
        }
      }
    }
  }
};

// The same reads and sums as CgsChunkBody, mapped for a GPU: one index per
// (chunk, lane), index c * kOrthoLanes + t, for the rows r0 + t, r0 + t +
// kOrthoLanes, ... of chunk c in row order, so that neighbouring threads
// read neighbouring rows. Each row's update subtracts its products in
// column order and its lane sums add in row order: the arithmetic of
// CgsChunkBody, term for term, with the same partials. The row of Q and the
// j sums stay in registers, so at most kLaneColumns columns (a larger j
// takes CgsChunkBody).
inline constexpr int kLaneColumns = 32;

template <class T>
struct CgsLaneBody {
  const T* q;
  long ld, n;
  int j;
  T* w;
  const T* h;        // may be null: no update
  double* partials;  // may be null: no sums; else as CgsChunkBody's
  HPLX_HD void operator()(long index) const {
    const long c = index / kOrthoLanes;
    const int t = static_cast<int>(index % kOrthoLanes);
    const long r0 = c * kOrthoChunk;
    const long r1 = r0 + kOrthoChunk < n ? r0 + kOrthoChunk : n;
    double acc[kLaneColumns];
    T row[kLaneColumns];
    for (int i = 0; i < kLaneColumns; ++i) acc[i] = 0;
    for (long r = r0 + t; r < r1; r += kOrthoLanes) {
      T v = w[r];
      for (int i = 0; i < kLaneColumns; ++i)
        if (i < j) row[i] = q[i * ld + r];
      if (h) {
        for (int i = 0; i < kLaneColumns; ++i)
          if (i < j) v -= row[i] * h[i];
        w[r] = v;
      }
      if (partials) {
        const double vd = static_cast<double>(v);
        for (int i = 0; i < kLaneColumns; ++i)
          if (i < j) acc[i] += static_cast<double>(row[i]) * vd;
      }
    }
    if (partials)
      for (int i = 0; i < kLaneColumns; ++i)
        if (i < j) partials[(c * j + i) * kOrthoLanes + t] = acc[i];
  }
};

// SumChunksBody in two launches, for a GPU, with its sums in its order:
// each chunk's lanes added in lane order (one index per (chunk, column),
// into totals[c * j + i]), then each column's chunk totals in chunk order.
// A chunk's kOrthoLanes partial sums of one column added in lane order.
HPLX_HD inline double lane_total(const double* lane) {
  double chunk = lane[0];
  for (int t = 1; t < kOrthoLanes; ++t) chunk += lane[t];
  return chunk;
}

struct ChunkLanesBody {
  const double* partials;
  int j;
  double* totals;
  HPLX_HD void operator()(long k) const { totals[k] = lane_total(partials + k * kOrthoLanes); }
};
struct SumChunkTotalsBody {
  const double* totals;
  long chunks;
  int j;
  double* h;
  HPLX_HD void operator()(long i) const {
    double s = 0;
    for (long c = 0; c < chunks; ++c) s += totals[c * j + i];
    h[i] = s;
  }
};

// h[i] = the sum over the chunks c < chunks, in chunk order, of column i's
// lanes added in lane order. One index per column.
struct SumChunksBody {
  const double* partials;
  long chunks;
  int j;
  double* h;
  HPLX_HD void operator()(long i) const {
    double s = 0;
    for (long c = 0; c < chunks; ++c) s += lane_total(partials + (c * j + i) * kOrthoLanes);
    h[i] = s;
  }
};

}  // namespace hplx::mxp::kernels
