// Whether MPI may be handed device memory (`hplx lu --cuda-aware-mpi
// auto|on|off`): a CUDA-aware MPI library reads and writes GPU memory
// itself, so a panel factored on the device goes along the process row
// from the device's buffer, and the row swap's rows go up and down the
// process column from and into device buffers, with no copy through the
// host.
//   auto: on where the backend is cuda and the MPI library says it is
//         CUDA-aware at run time (Open MPI's MPIX_Query_cuda_support), or
//         the backend is hip and it says it is ROCm-aware (Open MPI's
//         MPIX_Query_rocm_support, or Cray MPICH's GPU transport layer,
//         MPICH_GPU_SUPPORT_ENABLED=1); off otherwise (an MPI that cannot
//         say is taken as not aware).
//   on:   on a device backend. Refused on cuda or hip when the library says
//         it is not aware (it would read device pointers as host memory and
//         crash or send garbage). The emulated device's memory is host
//         memory that any MPI reads: there `on` stands for an aware MPI,
//         for the tests.
//   off:  panels and rows go through the host's side of their buffers.
// The host and sim backends have no device memory: `on` is refused there.
#pragma once

#include <string>

#include "device/backend_kind.hpp"

namespace hplx::device {

struct DeviceMpi {
  bool on = false;
  std::string why;  // one line for the run's notes
};

// `mode`: "auto", "on" or "off". Throws UsageError naming the value.
// MPI must be initialised.
DeviceMpi choose_device_mpi(BackendKind backend, const std::string& mode);

// What the MPI library says of itself: 1 aware, 0 not, -1 it cannot say.
int mpi_says_cuda_aware();
int mpi_says_rocm_aware();

}  // namespace hplx::device
