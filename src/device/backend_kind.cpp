#include "device/backend_kind.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/compiled_backends.hpp"

namespace hplx::device {
namespace {

// One row per implementation, in BackendKind's order.
struct KindInfo {
  BackendKind kind;
  const char* name;
  bool compiled;
  const char* cmake_switch;
  BackendTraits traits;
};

constexpr KindInfo kKinds[] = {
    {BackendKind::Host,
     "host",
     true,
     "(always built)",
     {.gpu = false, .host_blas = true, .fact_on_host = true}},
    {BackendKind::Emulated,
     "emulated",
     kEmulatedCompiled,
     "-DHPLX_EMULATED=on",
     {.gpu = false, .host_blas = true, .fact_on_host = false}},
    {BackendKind::Cuda,
     "cuda",
     kCudaCompiled,
     "-DHPLX_CUDA=on (needs nvcc and cuBLAS)",
     {.gpu = true, .host_blas = false, .fact_on_host = false}},
    {BackendKind::Hip,
     "hip",
     kHipCompiled,
     "-DHPLX_HIP=on (needs HIP's clang and rocBLAS)",
     {.gpu = true, .host_blas = false, .fact_on_host = false}},
    // The simulated cluster is a program of its own (built against
    // SimGrid's SMPI when HPLX_SIM is on) that `hplx sim` runs under smpirun.
    {BackendKind::Sim,
     "sim",
     kSimCompiled,
     "-DHPLX_SIM=on (SimGrid's smpicxx) and run `hplx sim SPEC`",
     {.gpu = false, .host_blas = false, .fact_on_host = true}},
};

const KindInfo& info(BackendKind kind) {
  return kKinds[static_cast<int>(kind)];
}

}  // namespace

const char* name_of(BackendKind kind) {
  return info(kind).name;
}

BackendTraits traits_of(BackendKind kind) {
  return info(kind).traits;
}

const std::vector<BackendKind>& all_backend_kinds() {
  static const std::vector<BackendKind> kinds = [] {
    std::vector<BackendKind> v;
    for (const KindInfo& k : kKinds) v.push_back(k.kind);
    return v;
  }();
  return kinds;
}

bool compiled_in(BackendKind kind) {
  return info(kind).compiled;
}

const char* cmake_switch(BackendKind kind) {
  return info(kind).cmake_switch;
}

BackendKind parse_backend(const std::string& text) {
  for (const KindInfo& k : kKinds) {
    if (text != k.name) continue;
    if (!k.compiled)
      throw UsageError(
          fmt::format("--backend {}: not compiled in; rebuild with {} (compiled in: {})", text,
                      k.cmake_switch, compiled_backends()));
    return k.kind;
  }
  throw UsageError(fmt::format(
      "--backend '{}': unknown; allowed: host, emulated, cuda, hip, sim (compiled in: {})", text,
      compiled_backends()));
}

std::string compiled_backends() {
  std::string s;
  for (const KindInfo& k : kKinds) {
    if (!k.compiled) continue;
    if (!s.empty()) s += ", ";
    s += k.name;
  }
  return s;
}

}  // namespace hplx::device
