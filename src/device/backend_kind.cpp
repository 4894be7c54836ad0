#include "device/backend_kind.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/compiled_backends.hpp"

namespace hplx::device {

const char* name_of(BackendKind kind) {
  switch (kind) {
    case BackendKind::Host:
      return "host";
    case BackendKind::Emulated:
      return "emulated";
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::Sim:
      return "sim";
  }
  return "?";
}

const std::vector<BackendKind>& all_backend_kinds() {
  static const std::vector<BackendKind> kinds{BackendKind::Host, BackendKind::Emulated,
                                              BackendKind::Cuda, BackendKind::Sim};
  return kinds;
}

bool compiled_in(BackendKind kind) {
  switch (kind) {
    case BackendKind::Host:
      return true;
    case BackendKind::Emulated:
      return kEmulatedCompiled;
    case BackendKind::Cuda:
      return kCudaCompiled;
    case BackendKind::Sim:
      return kSimCompiled;
  }
  return false;
}

const char* cmake_switch(BackendKind kind) {
  switch (kind) {
    case BackendKind::Host:
      return "(always built)";
    case BackendKind::Emulated:
      return "-DHPLX_EMULATED=on";
    case BackendKind::Cuda:
      return "-DHPLX_CUDA=on (needs nvcc and cuBLAS)";
    case BackendKind::Sim:
      return "-DHPLX_SIM=on (needs SimGrid's smpicxx)";
  }
  return "";
}

BackendKind parse_backend(const std::string& text) {
  for (BackendKind k : all_backend_kinds()) {
    if (text != name_of(k)) continue;
    if (!compiled_in(k))
      throw UsageError(
          fmt::format("--backend {}: not compiled in; rebuild with {} (compiled in: {})", text,
                      cmake_switch(k), compiled_backends()));
    return k;
  }
  throw UsageError(
      fmt::format("--backend '{}': unknown; allowed: host, emulated, cuda, sim (compiled in: {})",
                  text, compiled_backends()));
}

std::string compiled_backends() {
  std::string s;
  for (BackendKind k : all_backend_kinds()) {
    if (!compiled_in(k)) continue;
    if (!s.empty()) s += ", ";
    s += name_of(k);
  }
  return s;
}

}  // namespace hplx::device
