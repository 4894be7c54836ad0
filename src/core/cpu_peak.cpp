#include "core/cpu_peak.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "core/system_info.hpp"
#include "core/threads.hpp"

namespace hplx {

namespace {

std::optional<std::string> cpuinfo_field(const std::string& key) {
  return proc_field("/proc/cpuinfo", key);
}

std::optional<long long> read_integer(const std::string& path) {
  std::ifstream in(path);
  long long v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

std::set<std::string> words(const std::string& s) {
  std::set<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

}  // namespace

double rpeak_gflops(int cores, double clock_ghz, int flops_per_cycle) {
  return static_cast<double>(cores) * clock_ghz * flops_per_cycle;
}

double CpuPeak::gflops() const {
  return rpeak_gflops(cores, clock_ghz, units.flops_per_cycle);
}

std::string CpuPeak::describe() const {
  return fmt::format("{} cores ({}) x {:.3f} GHz ({}) x {} flops/cycle ({}) = {:.1f} Gflops", cores,
                     cores_source, clock_ghz, clock_source, units.flops_per_cycle, units.isa,
                     gflops());
}

VectorUnits vector_units(const std::set<std::string>& flags, const std::string& vendor,
                         int family) {
  const auto has = [&](const char* f) { return flags.count(f) > 0; };
  if (has("avx512f")) {
    // Zen 4 (AMD family 0x19) executes 512-bit FMAs on 256-bit units.
    if (vendor == "AuthenticAMD" && family == 0x19)
      return {16, "AVX-512 on Zen 4's 256-bit units: 2 FMA units x 4 doubles x 2", "AVX-512"};
    return {32, "AVX-512: 2 FMA units x 8 doubles x 2", "AVX-512"};
  }
  if (has("avx2") && has("fma")) return {16, "AVX2+FMA: 2 FMA units x 4 doubles x 2", "AVX2"};
  if (has("avx")) return {8, "AVX: 1 add + 1 multiply unit x 4 doubles", "AVX"};
  if (has("sse2")) return {4, "SSE2: 1 add + 1 multiply unit x 2 doubles", "SSE2"};
  if (has("sve"))
    return {8, "SVE (vector length not read; 128 bits assumed): 2 FMA pipes x 2 x 2", "SVE"};
  if (has("asimd")) return {8, "NEON: 2 FMA pipes x 2 doubles x 2", "NEON"};
  return {0, "no known vector unit in the CPU flags", ""};
}

int count_physical_cores(const std::vector<std::pair<int, int>>& package_core) {
  std::set<std::pair<int, int>> distinct(package_core.begin(), package_core.end());
  return static_cast<int>(distinct.size());
}

std::optional<double> clock_from_model_name(const std::string& model) {
  static const std::regex ghz(R"(@\s*([0-9]+(\.[0-9]+)?)\s*GHz)", std::regex::icase);
  std::smatch m;
  if (!std::regex_search(model, m, ghz)) return std::nullopt;
  const double v = std::stod(m[1].str());
  return v > 0 ? std::optional<double>(v) : std::nullopt;
}

VectorUnits probe_vector_units() {
  const std::string flags = cpuinfo_field("flags").value_or(cpuinfo_field("Features").value_or(""));
  int family = 0;
  try {
    family = std::stoi(cpuinfo_field("cpu family").value_or("0"));
  } catch (const std::exception&) {
  }
  return vector_units(words(flags), cpuinfo_field("vendor_id").value_or(""), family);
}

CpuPeakProbe probe_cpu_peak() {
  CpuPeakProbe out;
  try {
    CpuPeak p;
    // Cores: the topology of the CPUs this job may use.
    const std::vector<int> cpus = usable_cpus();
    std::vector<std::pair<int, int>> ids;
    for (int c : cpus) {
      const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/topology/", c);
      const auto pkg = read_integer(dir + "physical_package_id");
      const auto core = read_integer(dir + "core_id");
      if (!pkg || !core) {
        ids.clear();
        break;
      }
      ids.emplace_back(static_cast<int>(*pkg), static_cast<int>(*core));
    }
    if (!ids.empty()) {
      p.cores = count_physical_cores(ids);
      p.cores_source = fmt::format("physical cores of cpus {}", format_cpu_list(cpus));
    } else {
      p.cores = static_cast<int>(std::max<std::size_t>(cpus.size(), 1));
      p.cores_source = "logical cpus: the core topology is not readable";
    }

    // Clock: the nominal one first.
    const std::string cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq/";
    const std::string model = cpuinfo_field("model name").value_or("");
    if (const auto khz = read_integer(cpufreq + "base_frequency"); khz && *khz > 0) {
      p.clock_ghz = *khz / 1e6;
      p.clock_source = "cpufreq base_frequency";
    } else if (const auto ghz = clock_from_model_name(model)) {
      p.clock_ghz = *ghz;
      p.clock_source = "model name";
    } else if (const auto max = read_integer(cpufreq + "cpuinfo_max_freq"); max && *max > 0) {
      p.clock_ghz = *max / 1e6;
      p.clock_source = "cpufreq cpuinfo_max_freq";
    } else if (const auto mhz = cpuinfo_field("cpu MHz")) {
      try {
        p.clock_ghz = std::stod(*mhz) / 1e3;
        p.clock_source = "/proc/cpuinfo cpu MHz";
      } catch (const std::exception&) {
      }
    }
    if (!(p.clock_ghz > 0)) {
      out.why_not =
          "the CPU clock is not readable (no cpufreq, no GHz in the model name, no cpu MHz)";
      return out;
    }

    p.units = probe_vector_units();
    if (p.units.flops_per_cycle == 0) {
      out.why_not = "the FP64 flops per cycle are not known for this CPU (" + p.units.isa + ")";
      return out;
    }
    out.peak = p;
  } catch (const std::exception& e) {
    out.why_not = e.what();
  }
  return out;
}

}  // namespace hplx
