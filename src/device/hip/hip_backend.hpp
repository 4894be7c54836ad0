// The HIP implementation of the device layer (AMD GPUs: MI250X, MI300X), a
// thin mapping as the CUDA one is: Device memory is hipMalloc'd, Pinned
// memory hipHostMalloc'd, each queue a HIP stream with its own rocBLAS
// handle, events HIP events, kernel bodies launched by gpu/launch_gpu.cuh
// (compiled by HIP's clang from the same source as for nvcc). Everything
// above it is the code the emulated device runs in the tests. This mapping
// has been compiled (Debian 13's HIP 5.7 and rocBLAS 5.5), never run on an
// AMD GPU (docs/GPU.md).
//
// Where it differs from the CUDA backend:
//   - rocBLAS 5.5 has 32-bit sizes: a call with a size or leading dimension
//     over 2^31 - 1 throws, naming it (a GCD's 64 GiB never holds one).
//   - no TF32: gemm_tf32 is an FP32 GEMM (rocblas_sgemm).
//   - no graphs: HIP 5.7 cannot record an external event inside a capture,
//     which the replay's timed events need; can_capture() is false and the
//     callers launch directly.
//   - HPLX_UPDATE_SMS and --update-sms are refused: rocBLAS cannot be
//     confined to some compute units.
//
// One GPU (a GCD on an MI250X) per rank: rank r on a node uses device r mod
// (devices), the node-local rank from the launcher's environment, as on CUDA.
#pragma once

#include <memory>
#include <string>

#include "device/backend.hpp"
#include "device/gpu/launch_support.hpp"

namespace hplx::device {

// Throws UsageError "--backend hip: no AMD GPU is present (...)" on a
// machine without a usable one.
std::unique_ptr<Backend> make_hip_backend();

// Whether a HIP device can be used; `why` gets the reason when not.
bool hip_device_present(std::string* why = nullptr);

// The HIP runtime and rocBLAS versions, e.g. "HIP runtime 5.7, rocBLAS 2.47.0".
std::string hip_versions();

}  // namespace hplx::device
