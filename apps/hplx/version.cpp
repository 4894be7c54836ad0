#include "version.hpp"

#include <mpi.h>

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/blas_core.hpp"
#include "device/backend.hpp"
#include "device/backend_kind.hpp"
#include "model/system_spec.hpp"

extern "C" char* openblas_get_config(void);

namespace hplx::app {
namespace {

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len));
  if (const auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ',' || s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}", __clang_version__);
#elif defined(__GNUC__)
  return fmt::format("g++ {}", __VERSION__);
#else
  return "unknown";
#endif
}

}  // namespace

std::string version_text() {
  std::string s = fmt::format("hplx {}\n", HPLX_VERSION);
  s += fmt::format("backends: {}\n", device::compiled_backends());
  if (device::compiled_in(device::BackendKind::Hip))
    s += "hip: compiled and tested on the emulated device; it has not run on an AMD GPU "
         "(docs/GPU.md)\n";
  if (const std::string gpu = device::device_libraries(); !gpu.empty())
    s += fmt::format(
        "GPU libraries: {}\nnewest device check in this source: {} (bench/gpu/check.sh's "
        "summary, of the commit it names; docs/GPU.md says what ran)\n",
        gpu, HPLX_NEWEST_DEVICE_CHECK);
  s += fmt::format("MPI: {}\n", mpi_library());
  s += fmt::format("OpenBLAS: {}\n", openblas_get_config());
  if (const std::string note = blas_core_note(); !note.empty()) s += note + "\n";
  s += fmt::format("fmt {}.{}.{}, nlohmann-json {}.{}.{}, CLI11 {}, toml++ {}\n",
                   FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100,
                   NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                   NLOHMANN_JSON_VERSION_PATCH, CLI11_VERSION, model::toml_library_version());
  s += fmt::format("compiler: {}, C++ {}", compiler(), __cplusplus);
  return s;
}

}  // namespace hplx::app
