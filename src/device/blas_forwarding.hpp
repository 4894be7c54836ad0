// The queue's BLAS overloads (queue.hpp: GEMM, TRSM and GEMV in double and
// float, the mixed GEMM on Half, BFloat16 and TF32 operands, the last
// stored as float) forwarded once, for
// every backend, to one template per routine, as BLAS++ writes each routine
// once over its scalar types. A backend's queue derives from
// BlasForwarding<ItsQueue> (which derives from Queue) and defines, for
// BlasForwarding to call (public, or with BlasForwarding a friend):
//   template <class T> void gemm_t(Trans ta, Trans tb, long m, long n, long k, T alpha,
//                                  const T* a, long lda, const T* b, long ldb, T beta, T* c,
//                                  long ldc);
//   template <class T> void trsm_t(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n,
//                                  T alpha, const T* a, long lda, T* b, long ldb);
//   template <class T> void gemv_t(Trans ta, long m, long n, T alpha, const T* a, long lda,
//                                  const T* x, long incx, T beta, T* y, long incy);
//   template <class L> void gemm_mixed_t(Trans ta, Trans tb, long m, long n, long k,
//                                        float alpha, const L* a, long lda, const L* b,
//                                        long ldb, float beta, float* c, long ldc);
#pragma once

#include "device/queue.hpp"

namespace hplx::device {

template <class Derived>
class BlasForwarding : public Queue {
 public:
  void gemm(Trans ta, Trans tb, long m, long n, long k, double alpha, const double* a, long lda,
            const double* b, long ldb, double beta, double* c, long ldc) final {
    self().gemm_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a, long lda,
            const float* b, long ldb, float beta, float* c, long ldc) final {
    self().gemm_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void trsm(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, double alpha,
            const double* a, long lda, double* b, long ldb) final {
    self().trsm_t(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  }
  void trsm(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, float alpha, const float* a,
            long lda, float* b, long ldb) final {
    self().trsm_t(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  }
  void gemv(Trans ta, long m, long n, double alpha, const double* a, long lda, const double* x,
            long incx, double beta, double* y, long incy) final {
    self().gemv_t(ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  void gemv(Trans ta, long m, long n, float alpha, const float* a, long lda, const float* x,
            long incx, float beta, float* y, long incy) final {
    self().gemv_t(ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  void gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const Half* a, long lda,
                  const Half* b, long ldb, float beta, float* c, long ldc) final {
    self().gemm_mixed_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const BFloat16* a,
                  long lda, const BFloat16* b, long ldb, float beta, float* c, long ldc) final {
    self().gemm_mixed_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  // TF32 is the mixed GEMM whose operands are stored as float.
  void gemm_tf32(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a, long lda,
                 const float* b, long ldb, float beta, float* c, long ldc) final {
    self().gemm_mixed_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace hplx::device
