#include "core/blas_kernels.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace hplx {

namespace {

struct CoreRow {
  std::string_view core;  // lower case
  std::string_view isa;
  int flops_per_cycle;
};

// OpenBLAS's core names (x86 and arm64, DYNAMIC_ARCH and single-target
// builds) and the widest FMA of the DGEMM kernels each selects. Zen runs the
// Haswell kernels; the Bulldozer line's AVX/FMA kernels run on 128-bit units;
// SVE kernels are vector-length agnostic, counted at the 128 bits cpu_peak
// assumes for SVE, as Grace's are.
constexpr CoreRow kCores[] = {
    {"sapphirerapids", "AVX-512", 32},
    {"cooperlake", "AVX-512", 32},
    {"skylakex", "AVX-512", 32},
    {"haswell", "AVX2", 16},
    {"zen", "AVX2", 16},
    {"excavator", "AVX", 8},
    {"steamroller", "AVX", 8},
    {"piledriver", "AVX", 8},
    {"bulldozer", "AVX", 8},
    {"sandybridge", "AVX", 8},
    {"nehalem", "SSE2", 4},
    {"dunnington", "SSE2", 4},
    {"penryn", "SSE2", 4},
    {"core2", "SSE2", 4},
    {"atom", "SSE2", 4},
    {"prescott", "SSE2", 4},
    {"northwood", "SSE2", 4},
    {"banias", "SSE2", 4},
    {"nano", "SSE2", 4},
    {"bobcat", "SSE2", 4},
    {"barcelona", "SSE2", 4},
    {"opteron_sse3", "SSE2", 4},
    {"opteron", "SSE2", 4},
    {"neoversev2", "SVE", 8},
    {"neoversev1", "SVE", 8},
    {"neoversen2", "SVE", 8},
    {"armv8sve", "SVE", 8},
    {"a64fx", "SVE", 8},
    {"neoversen1", "NEON", 8},
    {"armv8", "NEON", 8},
    {"cortexa53", "NEON", 8},
    {"cortexa55", "NEON", 8},
    {"cortexa57", "NEON", 8},
    {"cortexa72", "NEON", 8},
    {"cortexa73", "NEON", 8},
    {"falkor", "NEON", 8},
    {"thunderx", "NEON", 8},
    {"thunderx2t99", "NEON", 8},
    {"thunderx3t110", "NEON", 8},
    {"tsv110", "NEON", 8},
    {"emag8180", "NEON", 8},
    {"vortex", "NEON", 8},
};

std::string trimmed(std::string_view s) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "half", "a quarter", "an eighth" where the widths make one; else a percent.
std::string share_words(double share) {
  if (std::abs(share - 0.5) < 1e-9) return "half";
  if (std::abs(share - 0.25) < 1e-9) return "a quarter";
  if (std::abs(share - 0.125) < 1e-9) return "an eighth";
  return fmt::format("{:.0f}%", 100 * share);
}

// "OpenBLAS runs its Haswell kernels (AVX2, 16 flops/cycle) on a CPU with
// AVX-512 (32)", or what is not known of either.
std::string both_sides(const BlasKernels& k) {
  std::string s = k.blas == "unknown" ? std::string("the BLAS") : k.blas;
  s += k.core == "unknown" ? std::string(" runs kernels it does not name")
                           : fmt::format(" runs its {} kernels", k.core);
  if (k.kernels)
    s += fmt::format(" ({}, {} flops/cycle)", k.kernels->isa, k.kernels->flops_per_cycle);
  else if (k.core != "unknown")
    s += " (not in hplx's table)";
  if (k.cpu.flops_per_cycle > 0)
    s += fmt::format(" on a CPU with {} ({})", k.cpu.name, k.cpu.flops_per_cycle);
  else
    s += " on a CPU whose vector units hplx does not know";
  return s;
}

}  // namespace

std::optional<KernelFamily> openblas_kernel_family(std::string_view core) {
  const std::string key = lower(trimmed(core));
  for (const CoreRow& row : kCores)
    if (row.core == key) return KernelFamily{std::string(row.isa), row.flops_per_cycle};
  return std::nullopt;
}

std::optional<double> BlasKernels::reachable_share() const {
  if (!kernels || kernels->flops_per_cycle <= 0 || cpu.flops_per_cycle <= 0) return std::nullopt;
  return std::min(1.0, static_cast<double>(kernels->flops_per_cycle) / cpu.flops_per_cycle);
}

BlasKernels assess_blas_kernels(std::string_view config, std::string_view core,
                                const VectorUnits& cpu, std::optional<std::string> coretype) {
  BlasKernels k;
  k.cpu = cpu;
  if (coretype && !trimmed(*coretype).empty()) k.coretype = trimmed(*coretype);
  // OpenBLAS's configuration starts "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."; another
  // BLAS's first word names it.
  const std::string text = trimmed(config);
  const auto space = text.find(' ');
  if (!text.empty()) k.blas = text.substr(0, space);
  if (space != std::string::npos) {
    const std::string rest = trimmed(std::string_view(text).substr(space));
    const std::string word = rest.substr(0, rest.find(' '));
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word.front()))) k.version = word;
  }
  if (const std::string name = trimmed(core); !name.empty()) k.core = name;
  // The table holds OpenBLAS's names; another BLAS's are its own.
  if (k.blas == "OpenBLAS") k.kernels = openblas_kernel_family(k.core);
  return k;
}

std::string blas_kernels_warning(const BlasKernels& k) {
  const auto share = k.reachable_share();
  if (!share || *share >= 1) return {};
  const std::string version = k.version.empty() ? k.blas : k.blas + " " + k.version;
  const std::string cause =
      k.coretype ? fmt::format("OPENBLAS_CORETYPE={} is set", *k.coretype)
                 : fmt::format(
                       "OPENBLAS_CORETYPE is not set, so {} chose them: likely too old to "
                       "know this CPU",
                       version);
  return fmt::format("{}: {}; DGEMM can reach at most {} of Rpeak", both_sides(k), cause,
                     share_words(*share));
}

std::string describe(const BlasKernels& k) {
  if (std::string w = blas_kernels_warning(k); !w.empty()) return w;
  const auto share = k.reachable_share();
  return both_sides(k) + (share ? ": they can reach Rpeak" : ": not compared");
}

nlohmann::json to_json(const BlasKernels& k) {
  const auto or_null = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  const auto share = k.reachable_share();
  return {
      {"blas", k.blas},
      {"blas_version", k.version.empty() ? nlohmann::json() : nlohmann::json(k.version)},
      {"core", k.core},
      {"kernels_isa", k.kernels ? nlohmann::json(k.kernels->isa) : nlohmann::json()},
      {"kernels_flops_per_cycle",
       k.kernels ? nlohmann::json(k.kernels->flops_per_cycle) : nlohmann::json()},
      {"cpu_isa", k.cpu.flops_per_cycle > 0 ? nlohmann::json(k.cpu.name) : nlohmann::json()},
      {"cpu_flops_per_cycle",
       k.cpu.flops_per_cycle > 0 ? nlohmann::json(k.cpu.flops_per_cycle) : nlohmann::json()},
      {"openblas_coretype", or_null(k.coretype)},
      {"rpeak_reachable_share", or_null(share)},
      {"summary", describe(k)},
  };
}

}  // namespace hplx
