// The host backend's fast path for the sliced-ELL kernels (host only: AVX2
// intrinsics, OpenMP, prefetches). The portable bodies in kernels/ compute
// the same sums row by row and run on every backend; on a CPU this loop is
// faster because it walks a slice slot by slot (one sequential stream) and
// reads x with vector loads where a group's columns are consecutive. It is
// chosen in one place per kernel (ell_matrix.cpp, gauss_seidel.cpp,
// multigrid.cpp) when the queue's backend is the host one.
#pragma once

#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "mxp/ell_layout.hpp"

namespace hplx::mxp::host {

// acc[i] -= (Subtract) or += v[i] * x[c[i]] for i < len: one slot of a
// slice. With AVX2, every group of 8 (float) or 4 (double) rows checks
// whether its column indices are consecutive (c[i + k] == c[i] + k) and then
// reads x with one vector load instead of a gather; otherwise it gathers
// with scalar loads. The index array is read either way, so the bytes and
// the result are those of the plain loop (same products, same order per
// row). Why: on this CPU (Zen 3) the float loop was instruction-bound, not
// memory-bound: vgatherdps made the float SpMV slower per byte than the
// double one (docs/PERFORMANCE.md, fifth session). Under the color
// ordering most groups of a stencil matrix are consecutive, but any matrix
// is handled.
template <bool Subtract, class T>
inline void slot_fma(const T* __restrict v, const int* __restrict c, const T* x, T* __restrict acc,
                     long len) {
  long i = 0;
#if defined(__AVX2__) && defined(__FMA__)
  if constexpr (std::is_same_v<T, float>) {
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (; i + 8 <= len; i += 8) {
      const __m256i ci = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + i));
      const int c0 = c[i];
      const __m256i want = _mm256_add_epi32(_mm256_set1_epi32(c0), iota);
      __m256 xv;
      if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(ci, want)) == -1) {
        xv = _mm256_loadu_ps(x + c0);
      } else {
        xv = _mm256_setr_ps(x[c[i]], x[c[i + 1]], x[c[i + 2]], x[c[i + 3]], x[c[i + 4]],
                            x[c[i + 5]], x[c[i + 6]], x[c[i + 7]]);
      }
      const __m256 a = _mm256_loadu_ps(acc + i), vv = _mm256_loadu_ps(v + i);
      _mm256_storeu_ps(acc + i,
                       Subtract ? _mm256_fnmadd_ps(vv, xv, a) : _mm256_fmadd_ps(vv, xv, a));
    }
  } else if constexpr (std::is_same_v<T, double>) {
    const __m128i iota = _mm_setr_epi32(0, 1, 2, 3);
    for (; i + 4 <= len; i += 4) {
      const __m128i ci = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + i));
      const int c0 = c[i];
      const __m128i want = _mm_add_epi32(_mm_set1_epi32(c0), iota);
      __m256d xv;
      if (_mm_movemask_epi8(_mm_cmpeq_epi32(ci, want)) == 0xFFFF) {
        xv = _mm256_loadu_pd(x + c0);
      } else {
        xv = _mm256_setr_pd(x[c[i]], x[c[i + 1]], x[c[i + 2]], x[c[i + 3]]);
      }
      const __m256d a = _mm256_loadu_pd(acc + i), vv = _mm256_loadu_pd(v + i);
      _mm256_storeu_pd(acc + i,
                       Subtract ? _mm256_fnmadd_pd(vv, xv, a) : _mm256_fmadd_pd(vv, xv, a));
    }
  }
#endif
  for (; i < len; ++i) {
    if constexpr (Subtract)
      acc[i] -= v[i] * x[c[i]];
    else
      acc[i] += v[i] * x[c[i]];
  }
}

// For the rows r in [begin, end) of the sliced-ELL matrix (vals, cols) with
// `rows` rows (OpenMP threads over the slices, static schedule): starts from
// acc = init(r), subtracts (Subtract) or adds every A[r,s] x[col(r,s)], and
// hands the result to store(r, acc). SpMV, Gauss-Seidel and the fused
// restriction are this loop with different ends. `slot_limit` (may be
// null): read only the first slot_limit[sl] slots of slice sl (the others
// must multiply zeros).
template <bool Subtract, class T, class Init, class Store>
inline void ell_row_sums(const T* __restrict vals, const int* __restrict cols, long rows,
                         const T* x, long begin, long end, Init init, Store store,
                         const unsigned char* slot_limit = nullptr) {
  // x is not __restrict: Gauss-Seidel writes it through `store`.
  if (begin >= end) return;
  const long first = begin / kSliceRows, last = (end - 1) / kSliceRows;
  const long slices = (rows + kSliceRows - 1) / kSliceRows;
#pragma omp parallel for schedule(static)
  for (long sl = first; sl <= last; ++sl) {
    const long r0 = sl * kSliceRows > begin ? sl * kSliceRows : begin;
    const long r1 = (sl + 1) * kSliceRows < end ? (sl + 1) * kSliceRows : end;
    const long len = r1 - r0;
    const long base = sl * kSlots * kSliceRows + (r0 - sl * kSliceRows);
    T acc[kSliceRows];
    for (long i = 0; i < len; ++i) acc[i] = init(r0 + i);
    const int slots = slot_limit ? slot_limit[sl] : kSlots;
    for (int s = 0; s < slots; ++s) {
      const T* __restrict v = vals + base + s * kSliceRows;
      const int* __restrict c = cols + base + s * kSliceRows;
      // The same slot of the next slice: the hardware prefetchers alone
      // leave a core at ~1/3 of its stream bandwidth here (measured: 9.5 ->
      // 12.6 GB/s float, 9.5 -> 14.7 GB/s double on one core). Prefetches
      // stay inside the arrays.
      if (sl + 1 < slices) {
        const char* next_v = reinterpret_cast<const char*>(v + kSlots * kSliceRows);
        const char* next_c = reinterpret_cast<const char*>(c + kSlots * kSliceRows);
        for (long l = 0; l < kSliceRows * long(sizeof(T)); l += 64) __builtin_prefetch(next_v + l);
        for (long l = 0; l < kSliceRows * long(sizeof(int)); l += 64)
          __builtin_prefetch(next_c + l);
      }
      slot_fma<Subtract>(v, c, x, acc, len);
    }
    for (long i = 0; i < len; ++i) store(r0 + i, acc[i]);
  }
}

}  // namespace hplx::mxp::host
