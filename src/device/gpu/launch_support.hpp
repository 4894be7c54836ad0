// What the launch layer (launch_gpu.cuh) asks of the GPU backend it is
// compiled for: a queue's stream, error checks, a queue's scratch for
// reductions, the cooperative launch's capacity. No vendor type appears
// here; the GPU backend compiled in (cuda/cuda_backend.cpp or
// hip/hip_backend.cpp) defines these, kernel_name gpu/gpu_common.cpp.
#pragma once

#include <string>

#include "device/queue.hpp"

namespace hplx::device {

// The stream of a queue of the GPU backend (a cudaStream_t), for kernel
// launches. Throws for a queue of another backend.
void* gpu_stream_of(Queue& q);

// Throws Error naming `what`, the runtime's error and the thread's current
// operation (device_errors.hpp) when `status` is not 0 (success).
void check_gpu(int status, const char* what);

// After a kernel launch or a BLAS call on `stream`: with
// HPLX_DEVICE_SYNC=1, waits for the stream and throws, naming `what`, if
// the work failed; otherwise nothing.
void check_device_work(void* stream, const char* what);

// A kernel body's type as C++ spells it (for error messages).
std::string kernel_name(const char* mangled);

// A queue's scratch for reductions (launch_gpu.cuh's reduce_on_device),
// made with the queue: one partial sum per block in device memory, and the
// result in pinned host memory, which the last kernel writes.
inline constexpr int kReduceBlocks = 1024;
struct ReduceScratch {
  double* partials = nullptr;  // kReduceBlocks, device memory
  double* result = nullptr;    // one, pinned host memory
};
ReduceScratch gpu_reduce_scratch(Queue& q);

namespace gpu_detail {
// The blocks of `kernel` (`threads` threads each) that the current device
// holds at once: a cooperative launch may not have more. Throws where the
// device cannot launch cooperative kernels.
unsigned cooperative_capacity(const void* kernel, int threads);
}  // namespace gpu_detail

}  // namespace hplx::device
