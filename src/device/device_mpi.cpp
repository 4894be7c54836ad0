#include "device/device_mpi.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::device {

int mpi_says_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1 ? 1 : 0;
#else
  return -1;
#endif
}

DeviceMpi choose_device_mpi(BackendKind backend, const std::string& mode) {
  if (mode != "auto" && mode != "on" && mode != "off")
    throw UsageError(fmt::format("--cuda-aware-mpi {}: allowed: auto, on, off", mode));
  if (mode == "off") return {false, "--cuda-aware-mpi off: panels and rows go through the host"};
  const bool has_device_memory = backend == BackendKind::Cuda || backend == BackendKind::Emulated;
  if (!has_device_memory) {
    if (mode == "on")
      throw UsageError(fmt::format(
          "--cuda-aware-mpi on --backend {}: that backend has no device memory; allowed there: "
          "auto or off",
          name_of(backend)));
    return {false, ""};
  }
  const int says = mpi_says_cuda_aware();
  const std::string said = says == 1   ? "MPIX_Query_cuda_support() = 1"
                           : says == 0 ? "MPIX_Query_cuda_support() = 0"
                                       : "the MPI library has no MPIX_Query_cuda_support";
  if (mode == "on") {
    if (backend == BackendKind::Cuda && says == 0)
      throw UsageError(
          fmt::format("--cuda-aware-mpi on: this MPI library is not CUDA-aware ({}); allowed: "
                      "auto or off, or an MPI built with CUDA support",
                      said));
    return {true, fmt::format("--cuda-aware-mpi on: MPI sends device FACT's panels and the row "
                              "swaps' rows from device memory ({})",
                              backend == BackendKind::Emulated ? "the emulated device's memory "
                                                                 "is host memory"
                                                               : said)};
  }
  const bool on = backend == BackendKind::Cuda && says == 1;
  return {on, fmt::format("--cuda-aware-mpi auto: {} ({})",
                          on ? "MPI sends device FACT's panels and the row swaps' rows from "
                               "device memory"
                             : "panels and rows go through the host",
                          said)};
}

}  // namespace hplx::device
