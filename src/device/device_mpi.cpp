#include "device/device_mpi.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::device {

namespace {

bool gpu_backend(BackendKind b) {
  return b == BackendKind::Cuda || b == BackendKind::Hip;
}

// What the library says for `backend`, as one line for the notes.
std::string said(BackendKind backend, int says) {
  if (backend == BackendKind::Hip)
    return says == 1   ? "the MPI library says it reads ROCm device memory"
           : says == 0 ? "MPIX_Query_rocm_support() = 0"
                       : "the MPI library has no MPIX_Query_rocm_support and "
                         "MPICH_GPU_SUPPORT_ENABLED is not 1";
  return says == 1   ? "MPIX_Query_cuda_support() = 1"
         : says == 0 ? "MPIX_Query_cuda_support() = 0"
                     : "the MPI library has no MPIX_Query_cuda_support";
}

}  // namespace

int mpi_says_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1 ? 1 : 0;
#else
  return -1;
#endif
}

int mpi_says_rocm_aware() {
#if defined(MPIX_ROCM_AWARE_SUPPORT)
  if (MPIX_Query_rocm_support() == 1) return 1;
#endif
  // Cray MPICH loads its GPU transport layer (GTL) when told to.
  const char* cray = std::getenv("MPICH_GPU_SUPPORT_ENABLED");
  if (cray != nullptr && std::strcmp(cray, "1") == 0) return 1;
#if defined(MPIX_ROCM_AWARE_SUPPORT)
  return 0;
#else
  return -1;
#endif
}

DeviceMpi choose_device_mpi(BackendKind backend, const std::string& mode) {
  if (mode != "auto" && mode != "on" && mode != "off")
    throw UsageError(fmt::format("--cuda-aware-mpi {}: allowed: auto, on, off", mode));
  if (mode == "off") return {false, "--cuda-aware-mpi off: panels and rows go through the host"};
  const bool has_device_memory = gpu_backend(backend) || backend == BackendKind::Emulated;
  if (!has_device_memory) {
    if (mode == "on")
      throw UsageError(fmt::format(
          "--cuda-aware-mpi on --backend {}: that backend has no device memory; allowed there: "
          "auto or off",
          name_of(backend)));
    return {false, ""};
  }
  const int says = backend == BackendKind::Hip ? mpi_says_rocm_aware() : mpi_says_cuda_aware();
  const std::string why = said(backend, says);
  if (mode == "on") {
    if (gpu_backend(backend) && says == 0)
      throw UsageError(fmt::format(
          "--cuda-aware-mpi on --backend {}: this MPI library cannot read device memory ({}); "
          "allowed: auto or off, or an MPI built with {} support",
          name_of(backend), why, backend == BackendKind::Hip ? "ROCm" : "CUDA"));
    return {true, fmt::format("--cuda-aware-mpi on: MPI sends device FACT's panels and the row "
                              "swaps' rows from device memory ({})",
                              backend == BackendKind::Emulated ? "the emulated device's memory "
                                                                 "is host memory"
                                                               : why)};
  }
  const bool on = gpu_backend(backend) && says == 1;
  return {on, fmt::format("--cuda-aware-mpi auto: {} ({})",
                          on ? "MPI sends device FACT's panels and the row swaps' rows from "
                               "device memory"
                             : "panels and rows go through the host",
                          why)};
}

}  // namespace hplx::device
