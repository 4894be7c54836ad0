#include "core/blas_core.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include <fmt/format.h>

namespace hplx {

namespace {

// Set beside OPENBLAS_CORETYPE on the restart: the core OpenBLAS had chosen.
constexpr const char* kReplacedVar = "HPLX_OPENBLAS_CHOSE";

// OpenBLAS's names (openblas_get_corename()) for cores without AVX2: what
// DYNAMIC_ARCH falls back to on a CPU it does not recognise.
constexpr std::array<std::string_view, 18> kPreAvx2Cores = {
    "Unknown", "Katmai",    "Coppermine", "Northwood",   "Prescott",     "Banias",
    "Atom",    "Core2",     "Penryn",     "Dunnington",  "Nehalem",      "Athlon",
    "Opteron", "Barcelona", "Nano",       "Sandybridge", "Opteron_SSE3", "Bobcat"};

}  // namespace

CpuVectorUnits cpu_vector_units() {
  __builtin_cpu_init();
  CpuVectorUnits cpu;
  cpu.avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  cpu.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return cpu;
}

std::optional<std::string> better_blas_core(std::string_view chosen, const CpuVectorUnits& cpu) {
  // OpenBLAS pads some names; compare the word itself, case as it prints it.
  while (!chosen.empty() && chosen.back() == ' ') chosen.remove_suffix(1);
  const bool fallback =
      std::find(kPreAvx2Cores.begin(), kPreAvx2Cores.end(), chosen) != kPreAvx2Cores.end();
  if (!fallback) return std::nullopt;
  if (cpu.avx512) return "SkylakeX";
  if (cpu.avx2_fma) return "Haswell";
  return std::nullopt;
}

void restart_with_better_blas_core(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice
  const char* chosen = openblas_get_corename();
  if (chosen == nullptr) return;
  const auto better = better_blas_core(chosen, cpu_vector_units());
  if (!better) return;
  // The program's own path, not /proc/self/exe: that would name the
  // process "exe" in ps and top.
  std::array<char, 4096> self{};
  const ssize_t len = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (len <= 0 || len >= static_cast<ssize_t>(self.size()) - 1) return;
  setenv("OPENBLAS_CORETYPE", better->c_str(), 1);
  setenv(kReplacedVar, chosen, 1);
  execv(self.data(), argv);
  // Not restarted (no /proc?): carry on with the kernels loaded, and say
  // nothing that did not happen.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kReplacedVar);
}

std::string fact_team_blas_note(int fact_threads, int openblas_parallel) {
  if (fact_threads == 1 || openblas_parallel != 1) return {};
  return fmt::format(
      "--fact-threads {}: this OpenBLAS is a pthreads build, which runs its own threads under "
      "each of the FACT team's and oversubscribes the cores; use an OpenMP build (Debian and "
      "Ubuntu: libopenblas0-openmp) or --fact-threads 1",
      fact_threads);
}

int openblas_parallel() {
  return openblas_get_parallel();
}

std::string blas_core_note() {
  const char* replaced = std::getenv(kReplacedVar);
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  if (replaced == nullptr || core == nullptr) return {};
  return fmt::format(
      "OpenBLAS chose its {} kernels for this CPU, which it does not know; hplx restarted with "
      "OPENBLAS_CORETYPE={} (set OPENBLAS_CORETYPE to choose otherwise)",
      replaced, core);
}

}  // namespace hplx
