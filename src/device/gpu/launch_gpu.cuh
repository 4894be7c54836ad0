// Kernel bodies on a GPU stream: the __global__ wrappers only map thread
// indices to body(i) (a grid-stride loop); the bodies are the same code the
// host and emulated backends run. One source for nvcc and hipcc
// (gpu_runtime.hpp names what differs). Included only by the kernels'
// gpu_instances.cu files, which instantiate these for their bodies:
//
//   template void hplx::device::launch_on_device(Queue&, long, const MyBody&);
#pragma once

#include <algorithm>
#include <string>
#include <typeinfo>

#include "device/device_errors.hpp"
#include "device/gpu/gpu_runtime.hpp"
#include "device/gpu/launch_support.hpp"
#include "device/kernel_body.hpp"
#include "device/queue.hpp"

namespace hplx::device {

namespace gpu_detail {

inline constexpr int kThreads = 256;

inline unsigned blocks_for(long n) {
  const long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535L * 16 ? b : 65535L * 16);  // grid-stride beyond
}

template <class Body>
__global__ void for_each_index(long n, Body body) {
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    body(i);
}

// The block's threads' sums (`s`, one per thread) added in a fixed tree
// order; thread 0 returns the total.
__device__ inline double block_total(double s) {
  __shared__ double partial[kThreads];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  return partial[0];
}

// Each block's sum of its indices' terms (each thread's grid-stride terms
// in index order, then the block's tree) into partials[block].
template <class Body>
__global__ void block_sums(long n, Body body, double* partials) {
  double s = 0;
  const long stride = static_cast<long>(gridDim.x) * blockDim.x;
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    s += body(i);
  const double total = block_total(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One block: the `count` partial sums added in a fixed order into *out.
// (A template only so that every file that includes this has its own.)
template <int = 0>
__global__ void sum_partials(int count, const double* partials, double* out) {
  double s = 0;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += blockDim.x) s += partials[i];
  const double total = block_total(s);
  if (threadIdx.x == 0) *out = total;
}

// Every phase of a phased body (launch.hpp's launch_phased), the grid's
// threads striding over each phase's indices and meeting at a grid-wide
// barrier before the next (a cooperative launch).
template <class Body>
__global__ void phases_with_grid_barriers(Body body) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const long phases = body.phases();
  const long stride = gpu::grid_threads(grid);
  for (long p = 0; p < phases; ++p) {
    const long n = body.extent(p);
    for (long i = static_cast<long>(grid.thread_rank()); i < n; i += stride) body(p, i);
    if (p + 1 < phases) grid.sync();
  }
}

// The same in one block: the block's barrier between phases. (A
// cooperative launch of one block would meet at a grid-wide barrier, an
// atomic in global memory and a spin on it, at every phase.)
template <class Body>
__global__ void phases_in_one_block(Body body) {
  const long phases = body.phases();
  for (long p = 0; p < phases; ++p) {
    const long n = body.extent(p);
    for (long i = static_cast<long>(threadIdx.x); i < n; i += blockDim.x) body(p, i);
    if (p + 1 < phases) __syncthreads();
  }
}

}  // namespace gpu_detail

template <class Body>
void launch_on_device(Queue& q, long n, const Body& body) {
  auto stream = static_cast<gpu::Stream>(gpu_stream_of(q));
  gpu_detail::for_each_index<<<gpu_detail::blocks_for(n), gpu_detail::kThreads, 0, stream>>>(n,
                                                                                             body);
  const gpu::Status launched = gpu::last_launch_status();
  if (launched != gpu::kSuccess || device_sync_mode()) {
    const std::string what = kernel_name(typeid(Body).name());
    check_gpu(launched, what.c_str());
    check_device_work(stream, what.c_str());
  }
}

// `blocks` 0: as many as the device holds at once. Fewer leave SMs to the
// kernels of other queues (the update's DGEMM beside device FACT), and a
// cooperative launch starts only when all its blocks fit. One block is a
// plain launch whose phases meet at the block's barrier.
template <class Body>
void launch_phased_on_device(Queue& q, const Body& body, int blocks) {
  auto stream = static_cast<gpu::Stream>(gpu_stream_of(q));
  const void* kernel = reinterpret_cast<const void*>(&gpu_detail::phases_with_grid_barriers<Body>);
  static const unsigned capacity = gpu_detail::cooperative_capacity(kernel, gpu_detail::kThreads);
  const unsigned grid = blocks > 0 && static_cast<unsigned>(blocks) < capacity
                            ? static_cast<unsigned>(blocks)
                            : capacity;
  gpu::Status launched;
  if (grid == 1) {
    gpu_detail::phases_in_one_block<<<1, gpu_detail::kThreads, 0, stream>>>(body);
    launched = gpu::last_launch_status();
  } else {
    Body arg = body;
    void* args[] = {&arg};
    launched =
        gpu::launch_cooperative(kernel, dim3(grid), dim3(gpu_detail::kThreads), args, 0, stream);
  }
  if (launched != gpu::kSuccess || device_sync_mode()) {
    const std::string what = kernel_name(typeid(Body).name());
    check_gpu(launched, what.c_str());
    check_device_work(stream, what.c_str());
  }
}

// The host waits for the sum (a reduction ends where its value is needed).
// The same n gives the same blocks and the same order of additions: the
// same sum from one run to the next (no atomics). Nothing is allocated:
// the partial sums and the result live in the queue's ReduceScratch, and
// the last kernel writes the result straight into its pinned memory.
template <class Body>
double reduce_on_device(Queue& q, long n, const Body& body) {
  auto stream = static_cast<gpu::Stream>(gpu_stream_of(q));
  const ReduceScratch scratch = gpu_reduce_scratch(q);
  const unsigned blocks = std::min<unsigned>(gpu_detail::blocks_for(n), kReduceBlocks);
  gpu_detail::block_sums<<<blocks, gpu_detail::kThreads, 0, stream>>>(n, body, scratch.partials);
  check_gpu(gpu::last_launch_status(), kernel_name(typeid(Body).name()).c_str());
  gpu_detail::sum_partials<<<1, gpu_detail::kThreads, 0, stream>>>(
      static_cast<int>(blocks), scratch.partials, scratch.result);
  check_gpu(gpu::last_launch_status(), "the sum of a reduction's partial sums");
  q.synchronize();
  return *scratch.result;
}

}  // namespace hplx::device
