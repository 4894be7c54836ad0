// The CUDA implementation of the device layer, a thin mapping: Device
// memory is cudaMalloc'd (no managed memory), Pinned memory cudaMallocHost'd,
// each queue a CUDA stream with its own cuBLAS handle, events CUDA events,
// kernel bodies launched by gpu/launch_gpu.cuh. Everything above it (the LU's
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
#include "device/gpu/launch_support.hpp"

namespace hplx::device {

// Throws UsageError "--backend cuda: no CUDA device is present (...)" on a
// machine without a usable GPU.
std::unique_ptr<Backend> make_cuda_backend();

// Whether a CUDA device can be used; `why` gets the reason when not.
bool cuda_device_present(std::string* why = nullptr);

// The CUDA runtime and cuBLAS versions, e.g. "CUDA runtime 13.0, cuBLAS 13.0.0".
std::string cuda_versions();

// The launch layer's needs (gpu_stream_of, check_gpu, gpu_reduce_scratch,
// ...) are declared in device/gpu/launch_support.hpp and defined here.

}  // namespace hplx::device
