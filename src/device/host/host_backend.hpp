// The host implementation of the device layer: memory is host memory,
// every queue runs its work on the calling thread before returning (BLAS
// from OpenBLAS with its threads, kernel bodies as OpenMP loops), events
// are complete when recorded. It is a real backend and the oracle the
// contract tests hold the others to. Schedules that overlap host work with
// queued work do it with worker threads (src/lu/schedules/pdgesv.cpp: FACT beside
// the update).
#pragma once

#include <memory>
#include <vector>

#include "device/backend.hpp"
#include "device/precision.hpp"

namespace hplx::device {

std::unique_ptr<Backend> make_host_backend();

// Host memory for large arrays: 64-byte aligned, on 2 MiB boundaries with
// transparent huge pages asked for from 4 MiB on (the row swaps touch one
// element per column: with 4 KiB pages that is one TLB miss each).
void* allocate_host(std::size_t bytes);
void free_host(void* p) noexcept;

// A std::vector on allocate_host, for host arrays that should sit in memory
// as the matrix does: one-thread DGEMM of 4000 x 4000 x 192 ran at 79-81
// Gflop/s on huge pages where std::vector's 4 KiB pages gave 75-77.
template <class T>
struct HostAllocator {
  using value_type = T;
  HostAllocator() = default;
  template <class U>
  HostAllocator(const HostAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_host(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { free_host(p); }
  template <class U>
  bool operator==(const HostAllocator<U>&) const noexcept {
    return true;
  }
};
template <class T>
using HostVector = std::vector<T, HostAllocator<T>>;

// The host's mixed-precision GEMM (Queue::gemm_mixed), on the calling
// thread's OpenMP team: C (FP32) = alpha op(A) op(B) + beta C with A and B
// widened to FP32 a block of k at a time (exactly: every 16-bit value is a
// float) and multiplied by OpenBLAS's SGEMM, so each product is exact
// (for BF16, short of FP32's overflow and underflow) and the sums are FP32.
// The emulated device runs it on its queues' threads.
void host_gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const Half* a,
                     long lda, const Half* b, long ldb, float beta, float* c, long ldc);
void host_gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const BFloat16* a,
                     long lda, const BFloat16* b, long ldb, float beta, float* c, long ldc);
// TF32 (Queue::gemm_tf32): A and B rounded to TF32 a block of k at a time
// (round_to_tf32), then the same SGEMM.
void host_gemm_mixed(Trans ta, Trans tb, long m, long n, long k, float alpha, const float* a,
                     long lda, const float* b, long ldb, float beta, float* c, long ldc);

// Host memory still available (the memory preflight of backends whose
// device memory is host memory).
std::size_t free_host_bytes();

}  // namespace hplx::device
