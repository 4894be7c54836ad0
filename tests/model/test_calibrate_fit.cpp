// The least-squares fit behind `hplx model calibrate`'s alpha and beta.
#include <gtest/gtest.h>

#include "model/calibrate.hpp"
#include "model/prediction.hpp"
#include "model/system_spec.hpp"

TEST(CalibrateFit, RecoversLatencyAndBandwidthOfALine) {
  std::vector<double> x, y;
  for (double bytes = 8; bytes < 1e7; bytes *= 4) {
    x.push_back(bytes);
    y.push_back(0.5e-6 + bytes / 8e9);
  }
  auto [a, b] = hplx::model::fit_line(x, y);
  EXPECT_NEAR(a, 0.5e-6, 1e-12);
  EXPECT_NEAR(1.0 / b, 8e9, 1e3);
}

TEST(CalibrateFit, RelativeWeightsKeepTheLatencyOfSmallMessages) {
  // A large message slowed by 20%: unweighted, it drags the latency far off;
  // weighted by 1/t^2 the latency stays near the small messages' 1 us.
  std::vector<double> x, y, w;
  for (double bytes = 8; bytes < 1e7; bytes *= 4) {
    x.push_back(bytes);
    y.push_back((1e-6 + bytes / 5e9) * (bytes > 4e6 ? 1.2 : 1.0));
    w.push_back(1.0 / (y.back() * y.back()));
  }
  auto [a, b] = hplx::model::fit_line(x, y, w);
  EXPECT_NEAR(a, 1e-6, 0.1e-6);
  auto [a0, b0] = hplx::model::fit_line(x, y);
  EXPECT_GT(std::abs(a0 - 1e-6), 5e-6);
}

TEST(CalibrateFit, SpecTextLoadsBackWithOneRank) {
  hplx::model::Calibration c;
  c.dgemm_gflops = {{1, 20.0}, {2, 38.0}};
  c.hostname = "h";
  c.memory_gib = 4;
  std::string text = hplx::model::calibration_toml(c, {}, "hplx model calibrate -o m.toml");
  EXPECT_NE(text.find("1 rank: no link measured"), std::string::npos);
  EXPECT_NE(text.find("\"2\" = 38.000"), std::string::npos);
  c.swap_s_per_word = 3e-9;
  text = hplx::model::calibration_toml(c, {}, "hplx model calibrate -o m.toml");
  hplx::model::SystemSpec spec = hplx::model::parse_system_spec(text, "m.toml");
  EXPECT_EQ(spec.node.devices, 1);
  EXPECT_NEAR(spec.memory.beta_s, 1e-9, 1e-13);  // a third of the swap's time per word
  EXPECT_DOUBLE_EQ(spec.gamma_s(2), 1.0 / 38e9);
  EXPECT_EQ(spec.n_reading, hplx::model::NReading::AsGiven);
}

// A prediction from a calibrated spec says which kernels its DGEMM rates
// came from: the spec records them, and they load back word for word.
TEST(CalibrateFit, TheBlasKernelsMeasuredWithAreWrittenAndLoadBack) {
  hplx::model::Calibration c;
  c.dgemm_gflops = {{1, 45.0}, {2, 90.0}};
  c.hostname = "zen5";
  c.memory_gib = 4;
  c.blas_kernels = hplx::assess_blas_kernels(
      "OpenBLAS 0.3.21 DYNAMIC_ARCH Haswell", "Haswell",
      hplx::vector_units({"avx2", "fma", "avx512f"}, "AuthenticAMD", 0x1a), "Haswell");
  const std::string text = hplx::model::calibration_toml(c, {}, "hplx model calibrate -o m.toml");
  const hplx::model::SystemSpec spec = hplx::model::parse_system_spec(text, "m.toml");
  ASSERT_TRUE(spec.device.blas_kernels);
  EXPECT_EQ(*spec.device.blas_kernels,
            "OpenBLAS runs its Haswell kernels (AVX2, 16 flops/cycle) on a CPU with AVX-512 (32): "
            "OPENBLAS_CORETYPE=Haswell is set; DGEMM can reach at most half of Rpeak");
}

TEST(CalibrateFit, CpuTermsAreWrittenAndLoadBack) {
  hplx::model::Calibration c;
  c.dgemm_gflops = {{1, 40.0}, {2, 78.0}};
  c.trsm_gflops = {{1, 20.0}, {2, 35.5}};
  using hplx::device::RowCopy;
  c.row_copy_ns[RowCopy::Swap] = {{1, 14.25}, {2, 8.5}};
  c.row_copy_ns[RowCopy::Gather] = {{1, 6.5}, {2, 3.25}};
  c.row_copy_ns[RowCopy::Scatter] = {{1, 15.0}};
  c.row_copy_ns[RowCopy::BlockGather] = {{1, 3.5}};
  c.row_copy_ns[RowCopy::BlockStore] = {{1, 2.75}};
  c.dgemm_pack_ns_per_word = 0.375;
  c.dgemm_call_cv = 0.0625;
  c.fact_points = {{1000, 0.002}, {2000, 0.004}};
  c.fact_gflops = 17.5;
  c.fact_column_s = 3e-6;
  c.fact_beside_dgemm = true;
  c.hostname = "h";
  c.memory_gib = 4;
  const std::string text = hplx::model::calibration_toml(c, {}, "hplx model calibrate -o m.toml");
  EXPECT_NE(text.find("beside a 1-thread DGEMM"), std::string::npos);
  EXPECT_EQ(text.find("[memory]"), std::string::npos);  // the copy term replaces it
  hplx::model::SystemSpec spec = hplx::model::parse_system_spec(text, "m.toml");
  EXPECT_DOUBLE_EQ(*spec.device.fact_gflops, 17.5);
  EXPECT_DOUBLE_EQ(*spec.device.fact_column_us, 3.0);
  EXPECT_DOUBLE_EQ(spec.trsm_s_per_flop(2), 1.0 / 35.5e9);
  EXPECT_DOUBLE_EQ(spec.swap_s_per_word(1), 14.25e-9);
  // The swap's other copies and DGEMM's packing, for hplx sim.
  EXPECT_DOUBLE_EQ(spec.device.gather_ns_per_word_by_threads.at(2), 3.25);
  EXPECT_DOUBLE_EQ(spec.device.scatter_ns_per_word_by_threads.at(1), 15.0);
  EXPECT_DOUBLE_EQ(spec.device.block_gather_ns_per_word_by_threads.at(1), 3.5);
  EXPECT_DOUBLE_EQ(spec.device.block_store_ns_per_word_by_threads.at(1), 2.75);
  EXPECT_DOUBLE_EQ(*spec.device.dgemm_pack_ns_per_word, 0.375);
  EXPECT_DOUBLE_EQ(*spec.device.dgemm_cv, 0.0625);
  EXPECT_EQ(spec.schedule.look_ahead, 1);
  EXPECT_TRUE(spec.schedule.fact_overlap);
  EXPECT_FALSE(spec.memory.present);
  // And the written spec is what predict_run applies.
  EXPECT_TRUE(hplx::model::predict_run(spec, 5000, 192, 1, 1, 2).cpu_terms);
}
