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

// hplx lu's update deals 256-column chunks over its threads, 1-thread BLAS
// each: the spec's update_gflops_by_threads is that rate, and it replaces
// gamma(T) in the DGEMM term and in FACT's overlap ratio.
TEST(CpuTerms, TheDealtUpdateRateReplacesGammaInTheDgemmTerm) {
  const std::string base = std::string(kCalibrated) + R"(fact_gflops = 15
[schedule]
look_ahead = 1
fact_overlap = true
)";
  SystemSpec plain = parse_system_spec(base, "cal.toml");
  SystemSpec dealt = parse_system_spec(
      std::string(kCalibrated) + "update_gflops_by_threads = { \"1\" = 40, \"2\" = 88 }\n" +
          base.substr(std::string(kCalibrated).size()),
      "cal.toml");
  EXPECT_DOUBLE_EQ(dealt.update_s_per_flop(2), 1.0 / 88e9);
  EXPECT_DOUBLE_EQ(plain.update_s_per_flop(2), 0.0);
  const long n = 8000;
  const int nb = 200;
  double gemm = 0;
  for (long c = 0; c < n; c += nb) gemm += 2.0 * (n - c - nb) * (n - c - nb) * nb;
  Prediction a = predict_run(plain, n, nb, 1, 1, 2);
  Prediction b = predict_run(dealt, n, nb, 1, 1, 2);
  EXPECT_NEAR(a.dgemm_s, gemm / 80e9, 1e-9 * a.dgemm_s);  // gamma(2)
  EXPECT_NEAR(b.dgemm_s, gemm / 88e9, 1e-9 * b.dgemm_s);  // the dealt rate
  EXPECT_GT(b.gflops, a.gflops * 1.05);
  // The original model keeps gamma: the new key is a CPU term.
  Prediction orig = predict_original_panels(dealt, RunPoint{n, nb, 1, 1, 2});
  EXPECT_NEAR(orig.dgemm_s, gemm / 80e9, 1e-9 * orig.dgemm_s);
}

TEST(CpuTerms, ChunkTailIsTheLastChunksImbalance) {
  // One thread, no chunks or no time: nothing.
  EXPECT_EQ(chunk_tail_s(1.0, 4096, 256, 1), 0.0);
  EXPECT_EQ(chunk_tail_s(1.0, 4096, 0, 2), 0.0);
  EXPECT_EQ(chunk_tail_s(0.0, 4096, 256, 2), 0.0);
  // 2 threads, 16 chunks of an update taking 1 s on both: a chunk takes
  // 2/16 s on one thread, the wall grows by a quarter of it.
  EXPECT_NEAR(chunk_tail_s(1.0, 4096, 256, 2), 2.0 / 16 / 4, 1e-15);
  // One chunk on two threads: it runs on one, twice the balanced time.
  EXPECT_NEAR(chunk_tail_s(1.0, 100, 256, 2), 1.0, 1e-15);
  // 4 threads, 2 chunks: a chunk takes 4 * 1 s / 2 = 2 s on one thread and
  // the wall is that chunk, 1 s more than the balanced 1 s.
  EXPECT_NEAR(chunk_tail_s(1.0, 512, 256, 4), 1.0, 1e-15);
  // The average of a simulation: thread 1 starts the chunks, thread 0
  // joins at a uniformly spread time (after FACT), both take the next chunk
  // when free; the wall minus the balanced (work + join) / 2.
  const int chunks = 40;
  const double c = 1.0;
  double sum = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    const double join = 3.0 + c * (i + 0.5) / trials;  // phase spread over one chunk
    double free[2] = {join, 0.0};
    for (int k = 0; k < chunks; ++k) {
      const int who = free[0] <= free[1] ? 0 : 1;
      free[who] += c;
    }
    const double wall = std::max(free[0], free[1]);
    sum += wall - (chunks * c + join) / 2.0;
  }
  const double t_upd = chunks * c / 2.0;  // the update on both threads
  EXPECT_NEAR(sum / trials, chunk_tail_s(t_upd, chunks * 256.0, 256, 2), 0.01 * c);
}

TEST(CpuTerms, WithLookAheadFactHidesBehindThePreviousPanelsUpdate) {
  // Three panels of NB = 100 (N = 300, 1 x 1, 2 threads), no communication.
  const double g = 1e-9;
  Problem pb{300, 100, 1, 1, g, {}};
  pb.cpu.fact_s_per_flop = 10 * g;
  pb.cpu.overlap_ratio = 0.5;
  pb.cpu.look_ahead = true;
  pb.cpu.threads = 2;
  LayerParams none{"device", 0, 0, 300, 300};
  PanelSum s = per_panel_sum(pb, {none});
  auto fact = [&](double n) { return (n - 100.0 / 3) * 1e4 * 10 * g; };
  auto upd = [&](double u) { return g * (u * 1e4 + 2.0 * u * u * 100); };
  const double f0 = fact(300), f1 = fact(200), f2 = fact(100);
  const double u0 = upd(200), u1 = upd(100);
  // Iteration 0: panel 0's FACT alone. Iteration 1: panel 1's FACT beside
  // panel 0's update. Iteration 2: panel 2's FACT beside panel 1's update.
  const double e1 = std::max(0.5 * f1, f1 - u0), e2 = std::max(0.5 * f2, f2 - u1);
  ASSERT_EQ(s.iter_s.size(), 3u);
  EXPECT_NEAR(s.iter_s[0], f0, 1e-15);
  EXPECT_NEAR(s.iter_s[1], e1 + u0, 1e-15);
  EXPECT_NEAR(s.iter_s[2], e2 + u1, 1e-15);
  EXPECT_NEAR(s.total_s, f0 + e1 + e2 + u0 + u1, 1e-15);
  EXPECT_NEAR(s.fact_s, f0 + e1 + e2, 1e-15);
  // chunk_columns adds the tail of each update beside a FACT shorter than
  // it (beside a longer one the tail is hidden too).
  pb.cpu.fact_s_per_flop = 0.1 * g;
  s = per_panel_sum(pb, {none});
  pb.cpu.chunk_columns = 64;
  PanelSum t = per_panel_sum(pb, {none});
  EXPECT_NEAR(t.tail_s, chunk_tail_s(u0, 200, 64, 2) + chunk_tail_s(u1, 100, 64, 2), 1e-15);
  EXPECT_NEAR(t.total_s - s.total_s, t.tail_s, 1e-12);
}

TEST(CpuTerms, NewScheduleAndDeviceKeysAreChecked) {
  SystemSpec spec = parse_system_spec(std::string(kCalibrated) +
                                          "update_gflops_by_threads = { \"2\" = 84 }\n"
                                          "[schedule]\nlook_ahead = 1\nfact_overlap = true\n"
                                          "chunk_columns = 256\n",
                                      "cal.toml");
  EXPECT_EQ(spec.schedule.chunk_columns, 256);
  EXPECT_NEAR(spec.update_s_per_flop(1), 1.0 / 42e9, 1e-20);  // nearest count, scaled
  EXPECT_NE(error_of(std::string(kCalibrated) + "[schedule]\nchunk_columns = 0\n")
                .find("key 'schedule.chunk_columns'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kCalibrated) + "update_gflops_by_threads = { \"2\" = -1 }\n")
                .find("key 'device.update_gflops_by_threads.2': not a thread count"),
            std::string::npos);
}

TEST(CpuTerms, FactBesideAFewChunksTakesTheChunksWholeTime) {
  // Without chunks: the fluid picture, t_upd + e = max(t_fact, t_upd + t_fact (1 - r)).
  Overlap f = fact_beside_update(1.0, 3.0, 1000, 0.5, 0, 2);
  EXPECT_NEAR(f.exposed, 0.5, 1e-15);
  EXPECT_EQ(f.tail, 0.0);
  f = fact_beside_update(5.0, 1.0, 1000, 0.5, 0, 2);
  EXPECT_NEAR(f.exposed, 4.0, 1e-15);
  // One chunk (100 columns) that takes 1 s on both threads, 2 s on one: the
  // other thread runs it whole while FACT (0.5 s) runs, and the wall is
  // 2 s, not the fluid 1.25 s.
  f = fact_beside_update(0.5, 1.0, 100, 0.5, 256, 2);
  EXPECT_NEAR(1.0 + f.exposed + f.tail, 2.0, 1e-15);
  EXPECT_NEAR(f.exposed, 0.25, 1e-15);
  // FACT longer than it: FACT's time.
  f = fact_beside_update(3.0, 1.0, 100, 0.5, 256, 2);
  EXPECT_NEAR(1.0 + f.exposed + f.tail, 3.0, 1e-15);
  // Many chunks: FACT ends while chunks wait, the FACT thread joins and the
  // tail is the last chunk's imbalance.
  f = fact_beside_update(0.5, 8.0, 4096, 0.5, 256, 2);
  EXPECT_NEAR(f.exposed, 0.25, 1e-15);
  EXPECT_NEAR(f.tail, chunk_tail_s(8.0, 4096, 256, 2), 1e-15);
}

// FACT on the host of a GPU ([host], hplx lu's device schedule): the
// host's rate and the panel's two copies over the device-host link; beside
// the device's update (look-ahead + fact_overlap) only what the update does
// not cover shows, and the update keeps its whole rate (r = 1).
TEST(HostFact, ChargesTheHostRateAndTheCopiesAndHidesBehindTheDevice) {
  const std::string base = R"([system]
name = "gpu"
grid_reading = "as-given"
n_reading = "as-given"
[device]
dgemm_gflops = 50000
[host]
fact_gflops = 400
fact_column_us = 10
[host.link]
alpha_us = 5
bandwidth_gbs = 50
)";
  const long n = 60000;
  const int nb = 512;
  const SystemSpec serial = parse_system_spec(base, "gpu.toml");
  ASSERT_TRUE(serial.host.present);
  const Prediction s = predict_run(serial, n, nb, 1, 1, 1);
  // FACT's whole time, summed here independently: rate, columns, copies.
  double fact = 0;
  for (long c = 0; c < n; c += nb) {
    const double m = static_cast<double>(n - c), b = std::min<double>(nb, m);
    fact +=
        std::max(0.0, m - b / 3.0) * b * b / 400e9 + b * 10e-6 + 2.0 * (5e-6 + 8.0 / 50e9 * b * m);
  }
  EXPECT_NEAR(s.fact_total_s, fact, 1e-9 * fact);
  EXPECT_NEAR(s.fact_s, fact, 1e-9 * fact);  // no overlap: all of it shows
  // With the schedule, FACT hides behind the previous panel's update: the
  // update of a trailing order m takes 2m/NB x 400/50000 of its FACT's time,
  // more than all of it while m > 32000.
  const SystemSpec ahead =
      parse_system_spec(base + "[schedule]\nlook_ahead = 1\nfact_overlap = true\n", "gpu.toml");
  const Prediction a = predict_run(ahead, n, nb, 1, 1, 1);
  EXPECT_NEAR(a.fact_total_s, fact, 1e-9 * fact);
  EXPECT_LT(a.fact_s, 0.5 * fact);
  EXPECT_LT(a.time_s, s.time_s);
  EXPECT_NEAR(a.dgemm_s, s.dgemm_s, 1e-12 * s.dgemm_s);  // r = 1: the update keeps its rate
  // A slower link costs more copy time.
  std::string slow = base;
  slow.replace(slow.find("bandwidth_gbs = 50"), 18, "bandwidth_gbs = 5");
  EXPECT_GT(predict_run(parse_system_spec(slow, "gpu.toml"), n, nb, 1, 1, 1).fact_total_s,
            s.fact_total_s + 0.5 * 8.0 * n * static_cast<double>(n) / 5e9);
}

TEST(HostFact, BadTablesNameTheKeyAndWhatIsAllowed) {
  const std::string head = "[system]\nname = \"x\"\n[device]\nrpeak_gflops = 1000\n";
  EXPECT_NE(error_of(head + "[host]\nfact_gflops = 40\n").find("key 'host.link': missing"),
            std::string::npos)
      << error_of(head + "[host]\nfact_gflops = 40\n");
  EXPECT_NE(error_of(head + "[host]\n[host.link]\nalpha_us = 1\nbandwidth_gbs = 1\n")
                .find("key 'host.fact_gflops': missing"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[host]\nfact_gflops = -1\n[host.link]\nalpha_us = 1\n"
                            "bandwidth_gbs = 1\n")
                .find("not > 0"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[host]\nfact_gflops = 4\nspeed = 1\n[host.link]\nalpha_us = 1\n"
                            "bandwidth_gbs = 1\n")
                .find("host.speed"),
            std::string::npos);
}

// The example DGX H100 node, one GPU at the H200's measured point (N =
// 60000, NB 1024; the same SMs, DGEMM and FACT figures): FACT on the host
// beside the GPU's update is partly hidden but holds the run to a fifth of
// the DGEMM rate (the H200 measured 7.9 Tflop/s that way, 27.0 with FACT
// on the device: bench/results/2026-11-28-gpu-check-h200); FACT on the
// device, from the measured table, is more than three times as fast and
// within the DGEMM rate. Both within 10% of those runs.
TEST(HostFact, TheDgxH100ExamplePredictsBothFactPlaces) {
  SystemSpec spec = load_system_spec(kSrc + "/examples/systems/dgx-h100.toml");
  ASSERT_TRUE(spec.host.present);
  Prediction one = predict_run(spec, 60000, 1024, 1, 1, 1);
  EXPECT_TRUE(one.cpu_terms);
  EXPECT_GT(one.fact_total_s, one.fact_s);  // partly hidden
  EXPECT_LT(one.gflops, 0.2 * *spec.device.dgemm_gflops);
  EXPECT_NEAR(one.gflops, 7.9e3, 0.1 * 7.9e3);
  Prediction dev = predict_run(spec, 60000, 1024, 1, 1, 1, 0, FactOn::Device);
  EXPECT_GT(dev.fact_total_s, dev.fact_s);
  EXPECT_GT(dev.gflops, 3 * one.gflops);
  EXPECT_LT(dev.gflops, *spec.device.dgemm_gflops);
  EXPECT_NEAR(dev.gflops, 27.0e3, 0.1 * 27.0e3);
}
