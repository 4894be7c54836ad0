#include "device/host/host_backend.hpp"

#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/blas_forwarding.hpp"
#include "device/host_blas.hpp"

extern "C" char* openblas_get_config(void);
extern "C" int openblas_get_num_threads(void);

namespace hplx::device {

void* allocate_host(std::size_t bytes) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const bool huge = bytes >= 2 * kHugePage;
  const std::size_t base = huge ? kHugePage : 64;
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + base - 1) / base * base;
  void* p = std::aligned_alloc(base, rounded);
  if (p == nullptr)
    throw SystemError(fmt::format("cannot allocate {} bytes of host memory", bytes));
  if (huge) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure is harmless
  return p;
}

void free_host(void* p) noexcept {
  std::free(p);
}

std::size_t free_host_bytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * size : 0;
}

namespace {

// C = alpha op(A) op(B) + beta C for a narrow B (the LU's look-ahead panel,
// n <= 2k columns): OpenBLAS's threads split such a product poorly (about
// one core's rate on two), so outside a parallel region the rows of C are
// dealt to the OpenMP threads instead, each calling single-threaded BLAS on
// its slice. Inside a parallel region the caller's thread does it alone.
template <class T>
void host_gemm(Trans ta, Trans tb, long m, long n, long k, T alpha, const T* a, long lda,
               const T* b, long ldb, T beta, T* c, long ldc) {
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  constexpr long kMinRowsPerThread = 256;
  if (ta == Trans::No && threads > 1 && n <= 2 * k && m >= threads * kMinRowsPerThread) {
#pragma omp parallel num_threads(threads)
    {
      const long t = omp_get_thread_num();
      const long r0 = m * t / threads, r1 = m * (t + 1) / threads;
      host_blas::gemm(ta, tb, r1 - r0, n, k, alpha, a + r0, lda, b, ldb, beta, c + r0, ldc);
    }
    return;
  }
  host_blas::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// A mixed GEMM's operand as the FP32 value SGEMM multiplies: a 16-bit
// value widened (exactly), a float rounded to TF32.
inline float operand(Half x) {
  return to_float(x);
}
inline float operand(BFloat16 x) {
  return to_float(x);
}
inline float operand(float x) {
  return round_to_tf32(x);
}

// The rows x cols block at a (leading dimension lda) as FP32 operands in w
// (leading dimension rows).
template <class T>
void widen(long rows, long cols, const T* a, long lda, float* w) {
  const bool threads = rows * cols >= (1L << 16) && !omp_in_parallel();
#pragma omp parallel for schedule(static) if (threads)
  for (long j = 0; j < cols; ++j)
    for (long i = 0; i < rows; ++i) w[i + j * rows] = operand(a[i + j * lda]);
}

template <class T>
void gemm_mixed_t(Trans ta, Trans tb, long m, long n, long k, float alpha, const T* a, long lda,
                  const T* b, long ldb, float beta, float* c, long ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // C = beta C, and beta = 0 clears C (NaN included), as BLAS does
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < m; ++i) c[i + j * ldc] = beta == 0.0f ? 0.0f : beta * c[i + j * ldc];
    return;
  }
  // Blocks of k bound the FP32 copies at (m + n) * kBlock floats.
  constexpr long kBlock = 512;
  const long kb_max = std::min(k, kBlock);
  std::vector<float> wa(static_cast<std::size_t>(m * kb_max)),
      wb(static_cast<std::size_t>(n * kb_max));
  for (long l0 = 0; l0 < k; l0 += kBlock) {
    const long kb = std::min(kBlock, k - l0);
    // op(A)'s columns l0 .. l0 + kb: A's columns (No) or rows (Yes).
    long lwa, lwb;
    if (ta == Trans::No) {
      widen(m, kb, a + l0 * lda, lda, wa.data());
      lwa = m;
    } else {
      widen(kb, m, a + l0, lda, wa.data());
      lwa = kb;
    }
    // op(B)'s rows l0 .. l0 + kb: B's rows (No) or columns (Yes).
    if (tb == Trans::No) {
      widen(kb, n, b + l0, ldb, wb.data());
      lwb = kb;
    } else {
      widen(n, kb, b + l0 * ldb, ldb, wb.data());
      lwb = n;
    }
    host_gemm(ta, tb, m, n, kb, alpha, wa.data(), lwa, wb.data(), lwb, l0 == 0 ? beta : 1.0f, c,
              ldc);
  }
}

// The host's work is done when it is queued: its events are reached when
// they are recorded.
class DoneEvent final : public Event {
 public:
  explicit DoneEvent(bool timed) : timed_(timed) {}
  bool done() const override { return true; }
  void synchronize() override {}
  double seconds_until(const Event& later) const override {
    const auto& e = dynamic_cast<const DoneEvent&>(later);
    if (!timed_ || !e.timed_) throw_untimed_event("host");
    return e.at_ - at_;
  }

 private:
  bool timed_;
  double at_ = wall_time();
};

class HostQueue final : public BlasForwarding<HostQueue> {
 public:
  HostQueue(Backend& b, QueuePriority priority) : backend_(b), priority_(priority) {}
  QueuePriority priority() const override { return priority_; }
  Backend& backend() const override { return backend_; }
  bool runs_inline() const override { return true; }
  bool executes_on_host() const override { return true; }

  void copy_bytes(void* dst, const void* src, std::size_t bytes) override {
    if (bytes > 0 && dst != src) std::memmove(dst, src, bytes);
  }
  void copy_columns(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                    std::size_t col_bytes, long cols) override {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    for (long j = 0; j < cols; ++j) copy_bytes(d + j * dst_pitch, s + j * src_pitch, col_bytes);
  }
  void execute(std::function<void()> work) override { work(); }
  void host_callback(std::function<void()> fn) override { fn(); }
  EventPtr record() override { return std::make_shared<DoneEvent>(false); }
  EventPtr record_timed() override { return std::make_shared<DoneEvent>(true); }
  void wait(const EventPtr&) override {}
  void synchronize() override {}

  // BLAS on the calling thread (blas_forwarding.hpp).
  template <class T>
  void gemm_t(Trans ta, Trans tb, long m, long n, long k, T alpha, const T* a, long lda, const T* b,
              long ldb, T beta, T* c, long ldc) {
    host_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  template <class T>
  void trsm_t(Side side, Uplo uplo, Trans ta, Diag diag, long m, long n, T alpha, const T* a,
              long lda, T* b, long ldb) {
    host_blas::trsm(side, uplo, ta, diag, m, n, alpha, a, lda, b, ldb);
  }
  template <class T>
  void gemv_t(Trans ta, long m, long n, T alpha, const T* a, long lda, const T* x, long incx,
              T beta, T* y, long incy) {
    host_blas::gemv(ta, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  template <class L>
  void gemm_mixed_t(Trans ta, Trans tb, long m, long n, long k, float alpha, const L* a, long lda,
                    const L* b, long ldb, float beta, float* c, long ldc) {
    host_gemm_mixed(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

 private:
  Backend& backend_;
  QueuePriority priority_;
};

class HostBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Host; }
  std::string describe() const override {
    return fmt::format("host: {}, {} BLAS threads", openblas_get_config(),
                       openblas_get_num_threads());
  }
  bool host_accessible(MemorySpace) const override { return true; }
  void* allocate(std::size_t bytes, MemorySpace) override { return allocate_host(bytes); }
  void deallocate(void* p, std::size_t, MemorySpace) noexcept override { free_host(p); }
  std::size_t free_device_bytes() const override { return free_host_bytes(); }
  using Backend::make_queue;
  std::unique_ptr<Queue> make_queue(QueuePriority priority) override {
    return std::make_unique<HostQueue>(*this, priority);
  }
};

}  // namespace

void host_gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const Half* a,
                     long lda, const Half* b, long ldb, float beta, float* c, long ldc) {
  gemm_mixed_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void host_gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const BFloat16* a,
                     long lda, const BFloat16* b, long ldb, float beta, float* c, long ldc) {
  gemm_mixed_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void host_gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a,
                     long lda, const float* b, long ldb, float beta, float* c, long ldc) {
  gemm_mixed_t(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

std::unique_ptr<Backend> make_host_backend() {
  return std::make_unique<HostBackend>();
}

}  // namespace hplx::device
