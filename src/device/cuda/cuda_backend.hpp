// The CUDA implementation of the device layer, a thin mapping: Device
// memory is cudaMalloc'd (no managed memory), Pinned memory cudaMallocHost'd,
// each queue a CUDA stream with its own cuBLAS handle, events CUDA events,
// kernel bodies launched by launch_cuda.cuh. Everything above it (the LU's
// and the MxP's orchestration, the kernels' arithmetic) is the code the
// emulated device runs in the tests; this mapping itself has been compiled
// here, not run on a GPU (docs/GPU.md says what has).
//
// One GPU per rank: rank r on a node uses device r mod (devices), the
// node-local rank read from the launcher's environment
// (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, MPI_LOCALRANKID), 0 without one.
#pragma once

#include <memory>
#include <string>

#include "device/backend.hpp"

namespace hplx::device {

// Throws UsageError "--backend cuda: no CUDA device is present (...)" on a
// machine without a usable GPU.
std::unique_ptr<Backend> make_cuda_backend();

// Whether a CUDA device can be used; `why` gets the reason when not.
bool cuda_device_present(std::string* why = nullptr);

// The CUDA runtime and cuBLAS versions, e.g. "CUDA runtime 13.0, cuBLAS 13.0.0".
std::string cuda_versions();

// The stream of a queue of the CUDA backend (a cudaStream_t), for kernel
// launches (launch_cuda.cuh). Throws for a queue of another backend.
void* cuda_stream_of(Queue& q);

// Throws Error naming `what`, the CUDA error and the thread's current
// operation (device_errors.hpp) when `status` is not 0 (cudaSuccess).
void check_cuda(int status, const char* what);

// After a kernel launch or a BLAS call on `stream` (a cudaStream_t): with
// HPLX_DEVICE_SYNC=1, waits for the stream and throws, naming `what`, if
// the work failed; otherwise nothing.
void check_device_work(void* stream, const char* what);

// A kernel body's type as C++ spells it (for error messages).
std::string kernel_name(const char* mangled);

// A queue's scratch for reductions (launch_cuda.cuh's reduce_on_device),
// made with the queue: one partial sum per block in device memory, and the
// result in pinned host memory, which the last kernel writes.
inline constexpr int kReduceBlocks = 1024;
struct ReduceScratch {
  double* partials = nullptr;  // kReduceBlocks, device memory
  double* result = nullptr;    // one, pinned host memory
};
ReduceScratch cuda_reduce_scratch(Queue& q);

namespace cuda_detail {
// The blocks of `kernel` (`threads` threads each) that the current device
// holds at once: a cooperative launch may not have more. Throws where the
// device cannot launch cooperative kernels.
unsigned cooperative_capacity(const void* kernel, int threads);
}  // namespace cuda_detail

}  // namespace hplx::device
