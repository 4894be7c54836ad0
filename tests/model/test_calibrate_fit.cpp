// The least-squares fit behind `hplx model calibrate`'s alpha and beta.
#include <gtest/gtest.h>

#include "model/calibrate.hpp"
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
