// The one switch from a backend's name to its implementation. Each
// implementation folder registers here; one that is not built gives the
// "not compiled in" error of parse_backend().
#include <fmt/format.h>

#include "core/error.hpp"
#include "device/backend.hpp"
#include "device/compiled_backends.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "device/emulated/emulated_backend.hpp"
#include "device/hip/hip_backend.hpp"
#include "device/host/host_backend.hpp"
#include "device/launch.hpp"

namespace hplx::device {

std::unique_ptr<Backend> make_backend(BackendKind kind) {
  switch (kind) {
    case BackendKind::Host:
      return make_host_backend();
    case BackendKind::Emulated:
      if constexpr (kEmulatedCompiled) return make_emulated_backend(emulated_options_from_env());
      break;
    case BackendKind::Cuda:
      if constexpr (kCudaCompiled) return make_cuda_backend();
      break;
    case BackendKind::Hip:
      if constexpr (kHipCompiled) return make_hip_backend();
      break;
    case BackendKind::Sim:
      // Its ranks make it from their model (device/sim/sim_backend.hpp).
      if constexpr (kSimCompiled)
        throw UsageError("--backend sim: the simulated cluster runs through `hplx sim SPEC`");
      break;
  }
  throw UsageError(fmt::format("--backend {}: not compiled in; rebuild with {}", name_of(kind),
                               cmake_switch(kind)));
}

BackendKind default_backend() {
  if constexpr (kCudaCompiled)
    if (cuda_device_present()) return BackendKind::Cuda;
  if constexpr (kHipCompiled)
    if (hip_device_present()) return BackendKind::Hip;
  return BackendKind::Host;
}

std::string device_libraries() {
  if constexpr (kCudaCompiled) return cuda_versions();
  if constexpr (kHipCompiled) return hip_versions();
  return {};
}

bool usable(BackendKind kind, std::string* why) {
  if (!compiled_in(kind)) {
    if (why) *why = fmt::format("not compiled in; rebuild with {}", cmake_switch(kind));
    return false;
  }
  if (kind == BackendKind::Cuda) {
    if constexpr (kCudaCompiled) return cuda_device_present(why);
  }
  if (kind == BackendKind::Hip) {
    if constexpr (kHipCompiled) return hip_device_present(why);
  }
  return true;
}

void throw_untimed_event(const char* backend) {
  throw Error(fmt::format(
      "{} backend: seconds_until() on an event of record(), which only orders work (on a GPU it "
      "takes no timestamp); record the events to time with record_timed()",
      backend));
}

void throw_no_device_kernel(const Queue& q) {
  throw Error(
      fmt::format("this kernel is not compiled for the {} backend", name_of(q.backend().kind())));
}

}  // namespace hplx::device
