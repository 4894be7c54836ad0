// Whether the BLAS's kernels can reach the CPU's peak.
//
// An HPL run on the CPU is as fast as its DGEMM, and the commonest way to
// lose half of it is a BLAS running kernels narrower than the CPU's vector
// units: an OpenBLAS too old to know a new CPU, or OPENBLAS_CORETYPE set by a
// site or an environment. On a Zen 5 (AVX-512), Debian's OpenBLAS 0.3.21
// with OPENBLAS_CORETYPE=Haswell ran a 4000 x 4000 x 192 DGEMM at 89-91
// Gflop/s on 2 threads, at 154-158 with its own choice (Cooperlake), and
// nothing said why (issue 67). So hplx compares the kernels' family with the
// CPU's units (core/cpu_peak.hpp, the factor Rpeak is made of) and says, in
// one line, the record and the report, what the BLAS can reach at most.
//
// hplx never changes OPENBLAS_CORETYPE here: a site may set it for good
// reasons (older OpenBLAS builds compute wrong results on some new CPUs).
//
// The logic is pure (recorded CPU descriptions and BLAS strings in, facts
// and text out) so that it is tested on the CPUs that matter rather than on
// the machine at hand; probe_blas_kernels() alone asks this process.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/cpu_peak.hpp"

namespace hplx {

// The widest FMA a family of BLAS kernels uses, and the FP64 flops per cycle
// per core it gives, counted as core/cpu_peak.hpp counts the CPU's (two FMA
// units), so that the two compare.
struct KernelFamily {
  std::string isa;  // e.g. "AVX2"
  int flops_per_cycle = 0;
};

// The family of OpenBLAS's kernels for its core name
// (openblas_get_corename(): "Haswell", "SkylakeX", "neoversev2", ...;
// case and padding ignored); empty for a name the table does not know.
std::optional<KernelFamily> openblas_kernel_family(std::string_view core);

struct BlasKernels {
  std::string blas = "unknown";         // "OpenBLAS", or the first word another BLAS reports
  std::string version;                  // "0.3.21"; empty when it says none
  std::string core = "unknown";         // the kernels it runs: OpenBLAS's core name
  std::optional<KernelFamily> kernels;  // empty: not in the table
  VectorUnits cpu;                      // flops_per_cycle 0: unknown
  std::optional<std::string> coretype;  // OPENBLAS_CORETYPE, when set

  // The most of Rpeak the kernels can reach (1 when they are as wide as the
  // CPU's units or wider); empty when either side is unknown.
  std::optional<double> reachable_share() const;
};

// The facts, from what the BLAS reports (`config`: openblas_get_config() or
// another BLAS's string; `core`: openblas_get_corename(), empty for another
// BLAS), the CPU's units and OPENBLAS_CORETYPE as the environment has it.
BlasKernels assess_blas_kernels(std::string_view config, std::string_view core,
                                const VectorUnits& cpu, std::optional<std::string> coretype);

// The warning (without "hplx: warning: ") when the kernels are narrower than
// the CPU's units: both, the likely cause, the most DGEMM can reach; empty
// otherwise.
std::string blas_kernels_warning(const BlasKernels& k);

// One line for the record and the report, whatever the verdict.
std::string describe(const BlasKernels& k);

// {"blas", "blas_version", "core", "kernels_isa", "kernels_flops_per_cycle",
//  "cpu_isa", "cpu_flops_per_cycle", "openblas_coretype",
//  "rpeak_reachable_share", "summary"}; unknown values are null.
nlohmann::json to_json(const BlasKernels& k);

// This process's BLAS, CPU and environment. Never throws.
BlasKernels probe_blas_kernels();

}  // namespace hplx
