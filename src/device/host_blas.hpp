// The CPU BLAS (OpenBLAS), typed and column-major, for work that runs on
// the host whatever the backend: FACT on a panel copied to the host, the
// small triangular solves of the back substitution, the host queue's BLAS.
// Sizes are `long` so callers never narrow; empty calls return at once.
#pragma once

#include <cblas.h>

#include "device/types.hpp"

namespace hplx::device::host_blas {

using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

namespace detail {
inline CBLAS_TRANSPOSE t(Trans x) {
  return x == Trans::No ? CblasNoTrans : CblasTrans;
}
inline CBLAS_SIDE s(Side x) {
  return x == Side::Left ? CblasLeft : CblasRight;
}
inline CBLAS_UPLO u(Uplo x) {
  return x == Uplo::Lower ? CblasLower : CblasUpper;
}
inline CBLAS_DIAG d(Diag x) {
  return x == Diag::Unit ? CblasUnit : CblasNonUnit;
}
}  // namespace detail

// C = alpha op(A) op(B) + beta C, C is m x n, op(A) m x k.
inline void gemm(Trans ta, Trans tb, long m, long n, long k, double alpha, const double* a,
                 long lda, const double* b, long ldb, double beta, double* c, long ldc) {
  if (m <= 0 || n <= 0) return;
  cblas_dgemm(CblasColMajor, detail::t(ta), detail::t(tb), m, n, k, alpha, a, lda, b, ldb, beta, c,
              ldc);
}
inline void gemm(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a, long lda,
                 const float* b, long ldb, float beta, float* c, long ldc) {
  if (m <= 0 || n <= 0) return;
  cblas_sgemm(CblasColMajor, detail::t(ta), detail::t(tb), m, n, k, alpha, a, lda, b, ldb, beta, c,
              ldc);
}

// B = alpha op(A)^-1 B (Left) or alpha B op(A)^-1 (Right); B is m x n.
inline void trsm(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, double alpha,
                 const double* a, long lda, double* b, long ldb) {
  if (m <= 0 || n <= 0) return;
  cblas_dtrsm(CblasColMajor, detail::s(side), detail::u(uplo), detail::t(ta), detail::d(diag), m, n,
              alpha, a, lda, b, ldb);
}
inline void trsm(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, float alpha,
                 const float* a, long lda, float* b, long ldb) {
  if (m <= 0 || n <= 0) return;
  cblas_strsm(CblasColMajor, detail::s(side), detail::u(uplo), detail::t(ta), detail::d(diag), m, n,
              alpha, a, lda, b, ldb);
}

// x = op(A)^-1 x, A n x n triangular.
inline void trsv(Uplo uplo, Trans ta, Diag diag, long n, const double* a, long lda, double* x,
                 long incx) {
  if (n <= 0) return;
  cblas_dtrsv(CblasColMajor, detail::u(uplo), detail::t(ta), detail::d(diag), n, a, lda, x, incx);
}

// y = alpha op(A) x + beta y, A m x n. An empty product still scales y by
// beta, as BLAS does.
template <class T>
inline void gemv(Trans ta, long m, long n, T alpha, const T* a, long lda, const T* x, long incx,
                 T beta, T* y, long incy) {
  if (m <= 0 || n <= 0) {
    const long len = (ta == Trans::No) ? m : n;
    for (long i = 0; i < len; ++i) y[i * incy] = (beta == T(0)) ? T(0) : beta * y[i * incy];
    return;
  }
  if constexpr (sizeof(T) == sizeof(double))
    cblas_dgemv(CblasColMajor, detail::t(ta), m, n, alpha, a, lda, x, incx, beta, y, incy);
  else
    cblas_sgemv(CblasColMajor, detail::t(ta), m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// A += alpha x y^T, A m x n.
inline void ger(long m, long n, double alpha, const double* x, long incx, const double* y,
                long incy, double* a, long lda) {
  if (m <= 0 || n <= 0) return;
  cblas_dger(CblasColMajor, m, n, alpha, x, incx, y, incy, a, lda);
}

inline void scal(long n, double alpha, double* x, long incx) {
  if (n > 0) cblas_dscal(n, alpha, x, incx);
}

// Index of the first entry of largest absolute value (0-based), -1 if n <= 0.
inline long iamax(long n, const double* x, long incx) {
  return n > 0 ? static_cast<long>(cblas_idamax(n, x, incx)) : -1;
}

}  // namespace hplx::device::host_blas
