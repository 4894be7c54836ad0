// Whether the BLAS's kernels can reach the CPU's peak (core/blas_kernels.hpp),
// on recorded CPU descriptions (/proc/cpuinfo's vendor, family and flags)
// and BLAS strings (openblas_get_config(), openblas_get_corename()), not on
// the machine at hand; OPENBLAS_CORETYPE is passed in, never set.
#include "core/blas_kernels.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

namespace {

using hplx::assess_blas_kernels;
using hplx::blas_kernels_warning;
using hplx::BlasKernels;
using hplx::VectorUnits;

std::set<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::set<std::string> out;
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

// The vector flags of each CPU's /proc/cpuinfo, as recorded on the machine.
const std::string kX86Base = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx f16c fma avx2 bmi1 bmi2 ";
const std::string kAvx512 =
    "avx512f avx512dq avx512ifma avx512cd avx512bw avx512vl avx512_bf16 avx512vbmi "
    "avx512_vbmi2 avx512_vnni avx512_bitalg avx512_vpopcntdq ";

VectorUnits zen4() {  // AMD EPYC 9654: family 0x19
  return hplx::vector_units(words(kX86Base + kAvx512), "AuthenticAMD", 0x19);
}
VectorUnits zen5() {  // AMD EPYC 9005: family 0x1A
  return hplx::vector_units(words(kX86Base + kAvx512 + "avx512_vp2intersect avx_vnni"),
                            "AuthenticAMD", 0x1a);
}
VectorUnits sapphire_rapids() {  // Xeon Platinum 8480+: family 6, model 143
  return hplx::vector_units(words(kX86Base + kAvx512 + "amx_bf16 amx_tile amx_int8 avx512_fp16"),
                            "GenuineIntel", 6);
}
VectorUnits emerald_rapids() {  // Xeon Platinum 8592+: family 6, model 207
  return hplx::vector_units(words(kX86Base + kAvx512 + "amx_bf16 amx_tile amx_int8 avx512_fp16"),
                            "GenuineIntel", 6);
}
VectorUnits grace() {  // NVIDIA Grace (Neoverse V2): "Features", no vendor_id
  return hplx::vector_units(
      words("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp "
            "asimdhp cpuid asimdrdm jscvt fcma lrcpc dcpop sha3 asimddp "
            "sha512 sve asimdfhm sve2 svebf16 i8mm bf16"));
}
VectorUnits riscv() {  // a CPU the table does not know: "isa : rv64imafdcv", no flags
  return hplx::vector_units(words("rv64imafdcv"));
}

// Debian 12's openblas_get_config() in its OpenMP build.
std::string debian(const std::string& core) {
  return "OpenBLAS 0.3.21  USE_OPENMP DYNAMIC_ARCH NO_AFFINITY " + core + " MAX_THREADS=64";
}

TEST(BlasKernels, HaswellKernelsForcedOnZen5WarnThatDgemmReachesHalfOfRpeak) {
  // Issue 67's machine: the line a user reads, word for word.
  const BlasKernels k = assess_blas_kernels(debian("Haswell"), "Haswell", zen5(), "Haswell");
  EXPECT_EQ(blas_kernels_warning(k),
            "OpenBLAS runs its Haswell kernels (AVX2, 16 flops/cycle) on a CPU with AVX-512 (32): "
            "OPENBLAS_CORETYPE=Haswell is set; DGEMM can reach at most half of Rpeak");
  EXPECT_EQ(k.reachable_share(), 0.5);
}

TEST(BlasKernels, AnOpenBlasThatDoesNotKnowTheCpuIsNamedAsTheCause) {
  // No variable: an OpenBLAS that takes a Zen 5 for an older Zen.
  const BlasKernels k = assess_blas_kernels(debian("Zen"), "Zen", zen5(), std::nullopt);
  const std::string w = blas_kernels_warning(k);
  EXPECT_NE(w.find("OpenBLAS runs its Zen kernels (AVX2, 16 flops/cycle) on a CPU with AVX-512 "
                   "(32): OPENBLAS_CORETYPE is not set, so OpenBLAS 0.3.21 chose them: likely "
                   "too old to know this CPU; DGEMM can reach at most half of Rpeak"),
            std::string::npos)
      << w;
  // Emerald Rapids with 0.3.21's SSE3 fallback: an eighth.
  const BlasKernels emr =
      assess_blas_kernels(debian("Prescott"), "Prescott", emerald_rapids(), std::nullopt);
  EXPECT_NE(blas_kernels_warning(emr).find("(SSE2, 4 flops/cycle) on a CPU with AVX-512 (32)"),
            std::string::npos)
      << blas_kernels_warning(emr);
  EXPECT_NE(blas_kernels_warning(emr).find("at most an eighth of Rpeak"), std::string::npos);
}

TEST(BlasKernels, KernelsAsWideAsTheCpuSayNothing) {
  const struct {
    const char* cpu_name;
    VectorUnits cpu;
    const char* core;
  } cases[] = {
      {"Zen 5", zen5(), "Cooperlake"},
      {"Zen 4", zen4(), "SkylakeX"},
      // Zen 4's AVX-512 runs on 256-bit units: AVX2 kernels reach the same peak.
      {"Zen 4", zen4(), "Zen"},
      {"Sapphire Rapids", sapphire_rapids(), "SapphireRapids"},
      {"Emerald Rapids", emerald_rapids(), "SkylakeX"},  // as hplx's restart sets it
      {"Grace", grace(), "neoversev2"},
      {"Grace", grace(), "NEOVERSEV1"},
      // Grace's SVE is 128 bits wide, as NEON: the generic kernels are no narrower.
      {"Grace", grace(), "ARMV8"},
  };
  for (const auto& c : cases) {
    const BlasKernels k = assess_blas_kernels(debian(c.core), c.core, c.cpu, std::nullopt);
    EXPECT_EQ(blas_kernels_warning(k), "") << c.cpu_name << " " << c.core;
    EXPECT_EQ(k.reachable_share(), 1.0) << c.cpu_name << " " << c.core;
    EXPECT_NE(hplx::describe(k).find("they can reach Rpeak"), std::string::npos)
        << hplx::describe(k);
  }
}

TEST(BlasKernels, SapphireRapidsWithAvx2ForcedLosesHalf) {
  const BlasKernels k =
      assess_blas_kernels(debian("Haswell"), "Haswell", sapphire_rapids(), " Haswell ");
  EXPECT_NE(blas_kernels_warning(k).find("OPENBLAS_CORETYPE=Haswell is set; DGEMM can reach at "
                                         "most half of Rpeak"),
            std::string::npos)
      << blas_kernels_warning(k);
}

TEST(BlasKernels, WhatTheTableDoesNotKnowIsRecordedNotCompared) {
  // A CPU without known vector units.
  const BlasKernels cpu = assess_blas_kernels("OpenBLAS 0.3.26 RISCV64_ZVL256B MAX_THREADS=64",
                                              "RISCV64_ZVL256B", riscv(), std::nullopt);
  EXPECT_EQ(blas_kernels_warning(cpu), "");
  EXPECT_EQ(cpu.reachable_share(), std::nullopt);
  EXPECT_NE(hplx::describe(cpu).find("on a CPU whose vector units hplx does not know: not "
                                     "compared"),
            std::string::npos)
      << hplx::describe(cpu);
  // A core name newer than the table.
  const BlasKernels core =
      assess_blas_kernels(debian("Graniterapids"), "Graniterapids", sapphire_rapids(), "");
  EXPECT_EQ(blas_kernels_warning(core), "");
  EXPECT_EQ(hplx::describe(core),
            "OpenBLAS runs its Graniterapids kernels (not in hplx's table) on a CPU with AVX-512 "
            "(32): not compared");
  // Another BLAS: its own name, kernels unknown.
  const BlasKernels blis = assess_blas_kernels("BLIS 0.9.0", "", zen5(), std::nullopt);
  EXPECT_EQ(blis.blas, "BLIS");
  EXPECT_EQ(blis.core, "unknown");
  EXPECT_EQ(blas_kernels_warning(blis), "");
  EXPECT_EQ(assess_blas_kernels("", "", zen5(), std::nullopt).blas, "unknown");
}

TEST(BlasKernels, TheRecordCarriesBothSidesAndTheShare) {
  const BlasKernels k = assess_blas_kernels(debian("Haswell"), "Haswell", zen5(), "Haswell");
  const nlohmann::json j = hplx::to_json(k);
  EXPECT_EQ(j["blas"], "OpenBLAS");
  EXPECT_EQ(j["blas_version"], "0.3.21");
  EXPECT_EQ(j["core"], "Haswell");
  EXPECT_EQ(j["kernels_isa"], "AVX2");
  EXPECT_EQ(j["kernels_flops_per_cycle"], 16);
  EXPECT_EQ(j["cpu_isa"], "AVX-512");
  EXPECT_EQ(j["cpu_flops_per_cycle"], 32);
  EXPECT_EQ(j["openblas_coretype"], "Haswell");
  EXPECT_EQ(j["rpeak_reachable_share"], 0.5);
  EXPECT_EQ(j["summary"], blas_kernels_warning(k));
  const nlohmann::json unknown =
      hplx::to_json(assess_blas_kernels("BLIS 0.9.0", "", riscv(), std::nullopt));
  EXPECT_TRUE(unknown["rpeak_reachable_share"].is_null());
  EXPECT_TRUE(unknown["kernels_isa"].is_null());
  EXPECT_TRUE(unknown["cpu_isa"].is_null());
  EXPECT_TRUE(unknown["openblas_coretype"].is_null());
}

TEST(BlasKernels, TheTableKnowsEachFamilyWhateverTheCase) {
  const struct {
    const char* core;
    const char* isa;
    int flops;
  } rows[] = {{"SapphireRapids", "AVX-512", 32}, {"skylakex", "AVX-512", 32},
              {"Haswell", "AVX2", 16},           {"Sandybridge", "AVX", 8},
              {"Prescott  ", "SSE2", 4},         {"NEOVERSEV2", "SVE", 8},
              {"neoversen1", "NEON", 8}};
  for (const auto& r : rows) {
    const auto f = hplx::openblas_kernel_family(r.core);
    ASSERT_TRUE(f) << r.core;
    EXPECT_EQ(f->isa, r.isa) << r.core;
    EXPECT_EQ(f->flops_per_cycle, r.flops) << r.core;
  }
  EXPECT_FALSE(hplx::openblas_kernel_family("Graniterapids"));
}

TEST(BlasKernels, ThisProcessLinksOpenBlasAndNamesItsKernels) {
  // What the probe reads here (not what it concludes: that is the CPU's).
  const BlasKernels k = hplx::probe_blas_kernels();
  EXPECT_EQ(k.blas, "OpenBLAS");
  EXPECT_NE(k.core, "unknown");
  EXPECT_FALSE(hplx::describe(k).empty());
}

}  // namespace
