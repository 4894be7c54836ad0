// The TOP500 figures of a sweep (core/top500.hpp) and the Rpeak arithmetic
// of the CPU probe (core/cpu_peak.hpp): what a site submits, so each rule a
// user would check by hand is checked here.
#include "core/cpu_peak.hpp"
#include "core/top500.hpp"

#include <gtest/gtest.h>

namespace {

using hplx::Rpeak;
using hplx::SweepPoint;

SweepPoint pt(long n, double gflops, int nb = 128) {
  return SweepPoint{n, nb, gflops, std::nullopt};
}

TEST(Top500, RmaxIsTheBestTestAndNmaxItsN) {
  const auto f = hplx::top500_figures({pt(1000, 10), pt(4000, 40, 192), pt(2000, 30)}, {});
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->rmax_gflops, 40);
  EXPECT_EQ(f->nmax, 4000);
  EXPECT_EQ(f->nmax_nb, 192);
  EXPECT_EQ(f->tests, 3);
  EXPECT_EQ(f->distinct_n, 3);
}

TEST(Top500, NHalfIsTheSmallestMeasuredNReachingHalfOfRmax) {
  // Half of Rmax = 20: N = 1000 (10) stays below, N = 2000 (20) reaches it.
  const auto f = hplx::top500_figures({pt(4000, 40), pt(1000, 10), pt(2000, 20), pt(3000, 35)}, {});
  ASSERT_TRUE(f && f->n_half);
  EXPECT_EQ(*f->n_half, 2000);
  EXPECT_NE(f->n_half_how.find("between 1000 and 2000"), std::string::npos) << f->n_half_how;
}

TEST(Top500, NHalfUsesTheBestRateAtEachN) {
  // Two NB at N = 1000: the better one (21 >= 20) counts.
  const auto f = hplx::top500_figures({pt(1000, 8, 64), pt(1000, 21, 128), pt(4000, 40)}, {});
  ASSERT_TRUE(f && f->n_half);
  EXPECT_EQ(*f->n_half, 1000);
  EXPECT_NE(f->n_half_how.find("at most 1000"), std::string::npos) << f->n_half_how;
}

TEST(Top500, NHalfNotMeasuredWhenNoSmallerNReachesHalf) {
  const auto f = hplx::top500_figures({pt(1000, 5), pt(2000, 19.9), pt(4000, 40)}, {});
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->n_half);
  EXPECT_NE(f->n_half_how.find("not measured"), std::string::npos);
  EXPECT_NE(f->n_half_how.find("between 2000 and 4000"), std::string::npos) << f->n_half_how;
  EXPECT_EQ(hplx::to_json(*f)["n_half"], "not measured");
}

TEST(Top500, NHalfNotMeasuredWithOneN) {
  const auto f = hplx::top500_figures({pt(4000, 40)}, {});
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->n_half);
  EXPECT_NE(f->n_half_how.find("no N below Nmax = 4000 was run"), std::string::npos);
}

TEST(Top500, NoneWithoutPassedTests) {
  EXPECT_FALSE(hplx::top500_figures({}, Rpeak{100, "x"}));
}

TEST(Top500, RmaxOverRpeakAndItsSource) {
  const auto f = hplx::top500_figures({pt(1000, 30), pt(2000, 60)}, Rpeak{80, "--rpeak 80"});
  ASSERT_TRUE(f && f->rpeak_gflops && f->rmax_over_rpeak);
  EXPECT_DOUBLE_EQ(*f->rmax_over_rpeak, 0.75);
  const nlohmann::json j = hplx::to_json(*f);
  EXPECT_DOUBLE_EQ(j["rpeak_gflops"].get<double>(), 80);
  EXPECT_EQ(j["rpeak_source"], "--rpeak 80");
  EXPECT_EQ(j["n_half"], 1000);
  const auto lines = hplx::describe(*f);
  bool efficiency = false;
  for (const auto& l : lines) efficiency |= l.find("Rmax/Rpeak 75.0%") != std::string::npos;
  EXPECT_TRUE(efficiency);
}

// Rmax/Rpeak of 45% reads as a slow machine unless the record says that the
// BLAS's kernels could reach only half of Rpeak.
TEST(Top500, WhatTheBlasCanReachSitsBesideRmaxOverRpeak) {
  // A Zen 5 (AVX-512) running OpenBLAS's Haswell kernels (AVX2).
  const hplx::VectorUnits zen5 =
      hplx::vector_units({"avx2", "fma", "avx512f"}, "AuthenticAMD", 0x1a);
  const auto haswell =
      hplx::assess_blas_kernels("OpenBLAS 0.3.21 Haswell", "Haswell", zen5, "Haswell");
  const auto f =
      hplx::top500_figures({pt(1000, 20), pt(2000, 45)}, Rpeak{100, "detected"}, "", haswell);
  ASSERT_TRUE(f);
  const nlohmann::json j = hplx::to_json(*f);
  EXPECT_DOUBLE_EQ(j["rpeak_reachable_by_blas"].get<double>(), 0.5);
  EXPECT_EQ(j["blas_kernels"], hplx::blas_kernels_warning(haswell));
  const auto lines = hplx::describe(*f);
  bool said = false;
  for (const auto& l : lines)
    said |= l.rfind("hplx:   BLAS    at most 50% of Rpeak: OpenBLAS runs its Haswell", 0) == 0;
  EXPECT_TRUE(said);
  // Kernels that can reach Rpeak add no line, and the record still names them.
  const auto cooperlake =
      hplx::assess_blas_kernels("OpenBLAS 0.3.21 Cooperlake", "Cooperlake", zen5, std::nullopt);
  const auto full =
      hplx::top500_figures({pt(1000, 20), pt(2000, 45)}, Rpeak{100, "detected"}, "", cooperlake);
  for (const auto& l : hplx::describe(*full)) EXPECT_EQ(l.find("BLAS"), std::string::npos) << l;
  EXPECT_DOUBLE_EQ(hplx::to_json(*full)["rpeak_reachable_by_blas"].get<double>(), 1.0);
}

TEST(Top500, RpeakUnknownSaysWhy) {
  const auto f = hplx::top500_figures({pt(1000, 30)}, std::nullopt, "no clock");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->rmax_over_rpeak);
  const nlohmann::json j = hplx::to_json(*f);
  EXPECT_TRUE(j["rpeak_gflops"].is_null());
  EXPECT_EQ(j["rpeak_source"], "no clock");
}

TEST(Top500, Green500GflopsPerWattIsTheRmaxTests) {
  SweepPoint a = pt(1000, 10), b = pt(2000, 40);
  a.watts = 10;
  b.watts = 100;
  const auto f = hplx::top500_figures({a, b}, {});
  ASSERT_TRUE(f && f->rmax_gflops_per_watt);
  EXPECT_DOUBLE_EQ(*f->rmax_gflops_per_watt, 0.4);
  EXPECT_DOUBLE_EQ(*f->rmax_watts, 100);
}

TEST(Rpeak, IsCoresTimesClockTimesFlopsPerCycle) {
  EXPECT_DOUBLE_EQ(hplx::rpeak_gflops(2, 2.5, 32), 160);
  hplx::CpuPeak p;
  p.cores = 64;
  p.clock_ghz = 2.0;
  p.units = {16, "AVX2+FMA", "AVX2"};
  EXPECT_DOUBLE_EQ(p.gflops(), 2048);
  EXPECT_NE(p.describe().find("= 2048.0 Gflops"), std::string::npos) << p.describe();
}

TEST(Rpeak, FlopsPerCycleFromTheVectorUnits) {
  EXPECT_EQ(hplx::vector_units({"sse2", "avx", "avx2", "fma", "avx512f"}).flops_per_cycle, 32);
  EXPECT_EQ(hplx::vector_units({"avx512f"}, "AuthenticAMD", 0x19).flops_per_cycle, 16);  // Zen 4
  EXPECT_EQ(hplx::vector_units({"avx512f"}, "AuthenticAMD", 0x1a).flops_per_cycle, 32);  // Zen 5
  EXPECT_EQ(hplx::vector_units({"sse2", "avx", "avx2", "fma"}).flops_per_cycle, 16);
  EXPECT_EQ(hplx::vector_units({"sse2", "avx"}).flops_per_cycle, 8);
  EXPECT_EQ(hplx::vector_units({"sse2"}).flops_per_cycle, 4);
  EXPECT_EQ(hplx::vector_units({"fp", "asimd"}).flops_per_cycle, 8);
  EXPECT_EQ(hplx::vector_units({"vsx"}).flops_per_cycle, 0);
}

TEST(Rpeak, PhysicalCoresCountSiblingsOnce) {
  // 2 packages x 2 cores, each with 2 hardware threads.
  EXPECT_EQ(
      hplx::count_physical_cores({{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 0}, {0, 1}, {1, 0}, {1, 1}}),
      4);
}

TEST(Rpeak, ClockFromTheModelName) {
  EXPECT_DOUBLE_EQ(*hplx::clock_from_model_name("Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz"), 2.4);
  EXPECT_FALSE(hplx::clock_from_model_name("AMD EPYC"));
}

TEST(Rpeak, ProbeGivesAPeakOrAReason) {
  const hplx::CpuPeakProbe probe = hplx::probe_cpu_peak();
  if (probe.peak) {
    EXPECT_GE(probe.peak->cores, 1);
    EXPECT_GT(probe.peak->gflops(), 0);
  } else {
    EXPECT_FALSE(probe.why_not.empty());
  }
}

}  // namespace
