// One set of names for the GPU runtimes the launch layer (launch_gpu.cuh)
// needs, so that one source compiles with nvcc (CUDA) and with hipcc (HIP,
// AMD GPUs): the stream and error types, the last launch's error, the
// cooperative launch, cooperative groups, and the grid's thread count.
// Included only by launch_gpu.cuh; everything else reaches a GPU through the
// device layer (tests/check_vendor_apis.py).
#pragma once

#if defined(__HIPCC__)
// hip_runtime.h first, in a block of its own (clang-format sorts within a
// block): the cooperative groups' header needs its thread indices.
#include <hip/hip_runtime.h>

#include <hip/hip_cooperative_groups.h>
#else
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#endif

#include <cstddef>

namespace hplx::device::gpu {

#if defined(__HIPCC__)
using Stream = hipStream_t;
using Status = hipError_t;
inline constexpr Status kSuccess = hipSuccess;
inline Status last_launch_status() {
  return hipGetLastError();
}
inline Status launch_cooperative(const void* kernel, dim3 grid, dim3 block, void** args,
                                 std::size_t shared_bytes, Stream stream) {
  return hipLaunchCooperativeKernel(kernel, grid, block, args, static_cast<unsigned>(shared_bytes),
                                    stream);
}
// HIP 5.7's grid_group has size(); CUDA 12 and later num_threads().
__device__ inline long grid_threads(const cooperative_groups::grid_group& g) {
  return static_cast<long>(g.size());
}
#else
using Stream = cudaStream_t;
using Status = cudaError_t;
inline constexpr Status kSuccess = cudaSuccess;
inline Status last_launch_status() {
  return cudaGetLastError();
}
inline Status launch_cooperative(const void* kernel, dim3 grid, dim3 block, void** args,
                                 std::size_t shared_bytes, Stream stream) {
  return cudaLaunchCooperativeKernel(kernel, grid, block, args, shared_bytes, stream);
}
__device__ inline long grid_threads(const cooperative_groups::grid_group& g) {
  return static_cast<long>(g.num_threads());
}
#endif

}  // namespace hplx::device::gpu
