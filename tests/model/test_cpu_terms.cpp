// The CPU terms of a calibrated rank (docs/MODEL.md, "CPU terms"): absent,
// the model is netlib's per-panel sum; FACT beside the update gives the
// maximum of the two instead of their sum; look-ahead spreads FACT over the
// process columns; the spec keys and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "model/model.hpp"

using namespace hplx::model;

namespace {

const std::string kSrc = HPLX_SOURCE_DIR;

const char* kCalibrated = R"([system]
name = "cal"
grid_reading = "as-given"
n_reading = "as-given"
[device]
dgemm_gflops_by_threads = { "1" = 40, "2" = 80 }
)";

std::string error_of(const std::string& text) {
  try {
    parse_system_spec(text, "bad.toml");
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// netlib's per-panel compute, written out here independently of the model.
double netlib_compute(long n_total, int nb, int p, int q, double gamma) {
  double sum = 0;
  for (long c = 0; c < n_total; c += nb) {
    const double n = static_cast<double>(n_total - c), b = std::min<double>(nb, n), u = n - b;
    sum += gamma *
           (std::max(0.0, n / p - b / 3.0) * b * b + u * b * b / q + 2.0 * u * u * b / (p * q));
  }
  return sum;
}

}  // namespace

TEST(CpuTerms, AbsentTheyLeaveNetlibsPerPanelSumExactly) {
  const Problem pb{20000, 192, 1, 2, 1.0 / 40e9, {}};
  LayerParams one{"device", 0, 0, 20000, 20000};
  PanelSum s = per_panel_sum(pb, {one});
  EXPECT_DOUBLE_EQ(s.compute_s, netlib_compute(20000, 192, 1, 2, 1.0 / 40e9));
  EXPECT_EQ(s.swap_copy_s, 0.0);
  EXPECT_NEAR(s.fact_s + s.trsm_s + s.dgemm_s, s.compute_s, 1e-12 * s.compute_s);
  EXPECT_DOUBLE_EQ(s.fact_s, s.fact_total_s);
  // A spec without the keys applies none of them (calibrated or not).
  SystemSpec spec = parse_system_spec(kCalibrated, "cal.toml");
  Prediction m = predict_run(spec, 20000, 192, 1, 1, 1);
  EXPECT_FALSE(m.cpu_terms);
  EXPECT_DOUBLE_EQ(m.compute_s, netlib_compute(20000, 192, 1, 1, 1.0 / 40e9));
}

TEST(CpuTerms, RatesEqualToGammaReduceToTheOldModel) {
  // The new branch with FACT and DTRSM at gamma, no copy and no overlap
  // is the old compute (to rounding).
  Problem pb{15000, 192, 2, 2, 1.0 / 30e9, {}};
  pb.cpu.fact_s_per_flop = pb.gamma_s;
  pb.cpu.trsm_s_per_flop = pb.gamma_s;
  ASSERT_TRUE(pb.cpu.any());
  LayerParams one{"link", 1e-6, 1e-9, 15000, 15000};
  PanelSum with = per_panel_sum(pb, {one});
  PanelSum without = per_panel_sum(Problem{15000, 192, 2, 2, 1.0 / 30e9, {}}, {one});
  EXPECT_NEAR(with.total_s, without.total_s, 1e-12 * without.total_s);
  EXPECT_NEAR(with.compute_s, without.compute_s, 1e-12 * without.compute_s);
}

TEST(CpuTerms, FactBesideTheUpdateGivesTheMaximumInsteadOfTheSum) {
  // Two panels of NB = 100 (N = 200, 1 x 1): panel 0 factors 200 x 100 and
  // updates u = 100 columns, panel 1 factors the last 100 x 100.
  const double g = 1e-9;
  Problem pb{200, 100, 1, 1, g, {}};
  LayerParams none{"device", 0, 0, 200, 200};
  const double f0 = (200.0 - 100.0 / 3) * 1e4, f1 = (100.0 - 100.0 / 3) * 1e4;
  const double upd0 = g * (100.0 * 1e4 + 2.0 * 1e4 * 100);  // DTRSM + DGEMM of panel 0
  for (double fact_rate_s : {g, 100 * g}) {  // FACT shorter, then longer, than the update
    pb.cpu.fact_s_per_flop = fact_rate_s;
    pb.cpu.overlap_ratio = -1;  // no overlap: the sum
    PanelSum sum = per_panel_sum(pb, {none});
    EXPECT_NEAR(sum.iter_s[0], f0 * fact_rate_s + upd0, 1e-15);
    pb.cpu.overlap_ratio = 1;  // the update keeps its whole rate beside FACT: the maximum
    PanelSum max = per_panel_sum(pb, {none});
    EXPECT_NEAR(max.iter_s[0], std::max(f0 * fact_rate_s, upd0), 1e-15);
    // The last panel has no update to hide behind: FACT in full.
    EXPECT_NEAR(max.iter_s[1], f1 * fact_rate_s, 1e-15);
    EXPECT_NEAR(max.fact_total_s, sum.fact_total_s, 1e-15);
    pb.cpu.overlap_ratio = 0.5;  // the update on T - 1 = 1 of 2 threads meanwhile
    PanelSum half = per_panel_sum(pb, {none});
    EXPECT_NEAR(half.iter_s[0], std::max(f0 * fact_rate_s, upd0 + 0.5 * f0 * fact_rate_s), 1e-15);
  }
}

TEST(CpuTerms, LookAheadSpreadsFactOverTheProcessColumns) {
  Problem pb{4000, 200, 1, 4, 1e-10, {}};
  pb.cpu.fact_s_per_flop = 1e-9;
  LayerParams none{"device", 0, 0, 4000, 4000};
  PanelSum plain = per_panel_sum(pb, {none});
  pb.cpu.look_ahead = true;
  PanelSum ahead = per_panel_sum(pb, {none});
  const double f0 = (4000.0 - 200.0 / 3) * 200 * 200 * 1e-9;  // panel 0: on everyone's path
  EXPECT_NEAR(ahead.fact_s, f0 + (plain.fact_s - f0) / 4, 1e-12);
  EXPECT_NEAR(ahead.fact_total_s, plain.fact_total_s, 1e-12);
}

TEST(CpuTerms, CopyColumnsAndSpecKeysReachThePrediction) {
  SystemSpec spec = parse_system_spec(std::string(kCalibrated) + R"(fact_gflops = 20
fact_column_us = 2
trsm_gflops_by_threads = { "1" = 20, "2" = 36 }
swap_ns_per_word_by_threads = { "1" = 14, "2" = 9 }
[schedule]
look_ahead = 1
fact_overlap = true
)",
                                      "cal.toml");
  EXPECT_DOUBLE_EQ(*spec.device.fact_gflops, 20);
  EXPECT_DOUBLE_EQ(spec.trsm_s_per_flop(2), 1.0 / 36e9);
  EXPECT_DOUBLE_EQ(spec.swap_s_per_word(1), 14e-9);
  EXPECT_DOUBLE_EQ(spec.swap_s_per_word(4), 9e-9);  // nearest measured count
  EXPECT_EQ(spec.schedule.look_ahead, 1);
  EXPECT_TRUE(spec.schedule.fact_overlap);
  const long n = 10000;
  const int nb = 200;
  Prediction two = predict_run(spec, n, nb, 1, 1, 2);
  EXPECT_TRUE(two.cpu_terms);
  // The local copy: t_sw b u summed over the panels, u = n - (k + 1) nb.
  double words = 0;
  for (long c = 0; c < n; c += nb) words += nb * static_cast<double>(n - c - nb);
  EXPECT_NEAR(two.swap_copy_s, 9e-9 * words, 1e-9);
  // FACT: b lambda_f + flops / R_f per panel, partly hidden beside the update.
  double fact = 0;
  for (long c = 0; c < n; c += nb) fact += nb * 2e-6 + (n - c - nb / 3.0) * nb * nb / 20e9;
  EXPECT_NEAR(two.fact_total_s, fact, 1e-9);
  EXPECT_LT(two.fact_s, two.fact_total_s);
  EXPECT_NEAR(two.fact_s + two.trsm_s + two.dgemm_s, two.compute_s, 1e-9 * two.compute_s);
  const double sum = std::accumulate(two.iter_s.begin(), two.iter_s.end(), 0.0);
  EXPECT_NEAR(sum, two.time_s, 1e-9 * two.time_s);
  // One thread: no FACT beside the update (nothing to run it on).
  Prediction one = predict_run(spec, n, nb, 1, 1, 1);
  EXPECT_NEAR(one.fact_s, one.fact_total_s, 1e-12);
  // The JSON the `hplx lu --predict` record carries shows the split.
  const nlohmann::json j = to_json(two, false);
  for (const char* k : {"fact_s", "fact_total_s", "trsm_s", "dgemm_s", "swap_copy_s"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_TRUE(j["cpu_terms"].get<bool>());
  // The original models stay netlib's.
  Prediction orig = predict_original_panels(spec, RunPoint{n, nb, 1, 1, 2});
  EXPECT_FALSE(orig.cpu_terms);
  EXPECT_EQ(orig.swap_copy_s, 0.0);
}

TEST(CpuTerms, BadKeysNameTheKeyAndWhatIsAllowed) {
  EXPECT_NE(error_of(std::string(kCalibrated) + "trsm_gflops_by_threads = { \"x\" = 1 }\n")
                .find("key 'device.trsm_gflops_by_threads.x': not a thread count"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kCalibrated) + "fact_gflops = 0\n")
                .find("key 'device.fact_gflops': 0 is not > 0"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kCalibrated) + "[schedule]\nfact_overlap = 3\n")
                .find("key 'schedule.fact_overlap': '3' is not a boolean"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kCalibrated) + "[schedule]\nlook_ahead = -1\n")
                .find("key 'schedule.look_ahead'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kCalibrated) + "[schedule]\ndepth = 1\n")
                .find("key 'schedule.depth': unknown key"),
            std::string::npos);
}

TEST(CpuTerms, NoExampleSystemCarriesThem) {
  // The published comparisons (Table 5, TOP500 systems) stay netlib/MCL.
  for (const char* f : {"hdpex-p100", "summit", "selene", "frontier-crusher", "seed003-4gpu"}) {
    SystemSpec spec = load_system_spec(kSrc + "/examples/systems/" + f + ".toml");
    Prediction m = predict_mcl(spec, RunPoint{100000, 384, 2, 2, 0});
    EXPECT_FALSE(m.cpu_terms) << f;
  }
}
