// The FP64 peak of this node's CPUs, as the TOP500 defines Rpeak: cores x
// clock x double-precision flops per cycle per core. Each factor is read
// from the machine and says where it came from, because a VM or an unusual
// CPU can hide any of them; `hplx lu --rpeak` overrides the result.
//
//   cores       physical cores (distinct package/core ids in
//               /sys/devices/system/cpu/cpuN/topology) among the CPUs this
//               process could be given (core/threads.hpp usable_cpus());
//               logical CPUs when the topology is not readable.
//   clock       the nominal clock: cpufreq's base_frequency, else the
//               "@ 2.40GHz" of the model name, else cpuinfo_max_freq, else
//               /proc/cpuinfo's "cpu MHz" (what a VM shows).
//   flops/cycle from the vector units the CPU flags name (x86: avx512f,
//               avx2+fma, avx, sse2; arm64: sve, asimd), assuming two FMA
//               pipes per core, halved for AMD Zen 4 (family 0x19), whose
//               AVX-512 runs on 256-bit units.
// Probing never throws: a factor it cannot find makes the result empty,
// with the reason.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hplx {

struct VectorUnits {
  int flops_per_cycle = 0;  // FP64 flops per cycle per core; 0: unknown
  std::string isa;          // e.g. "AVX-512, 2 FMA units x 8 doubles x 2"
  std::string name;         // the widest unit alone, e.g. "AVX-512"; "" when unknown
};

struct CpuPeak {
  int cores = 0;
  std::string cores_source;
  double clock_ghz = 0;
  std::string clock_source;
  VectorUnits units;
  double gflops() const;
  // "2 cores x 2.096 GHz (/proc/cpuinfo cpu MHz) x 32 flops/cycle (AVX-512, ...) = 134.1 Gflops"
  std::string describe() const;
};

// cores x clock_ghz x flops_per_cycle, in Gflop/s.
double rpeak_gflops(int cores, double clock_ghz, int flops_per_cycle);

// What the vector units give, from /proc/cpuinfo's flags (x86 "flags", arm64
// "Features"), its "vendor_id" and "cpu family".
VectorUnits vector_units(const std::set<std::string>& flags, const std::string& vendor = "",
                         int family = 0);

// Physical cores among (package id, core id) pairs, one pair per logical CPU.
int count_physical_cores(const std::vector<std::pair<int, int>>& package_core);

// The clock in GHz from a model name such as "Intel(R) Xeon(R) Gold 6148 CPU
// @ 2.40GHz"; empty when it names none.
std::optional<double> clock_from_model_name(const std::string& model);

// This CPU's units, from /proc/cpuinfo (vector_units() of its flags).
VectorUnits probe_vector_units();

// This node's peak, or the reason it cannot be found.
struct CpuPeakProbe {
  std::optional<CpuPeak> peak;
  std::string why_not;
};
CpuPeakProbe probe_cpu_peak();

}  // namespace hplx
