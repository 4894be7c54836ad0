// The least-squares fit behind `hplx model calibrate`'s alpha and beta.
#include <gtest/gtest.h>

#include "model/calibrate.hpp"

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

TEST(CalibrateFit, SpecTextLoadsBackWithOneRank) {
  hplx::model::Calibration c;
  c.dgemm_gflops = {{1, 20.0}, {2, 38.0}};
  c.hostname = "h";
  c.memory_gib = 4;
  std::string text = hplx::model::calibration_toml(c, {}, "hplx model calibrate -o m.toml");
  EXPECT_NE(text.find("1 rank: no link measured"), std::string::npos);
  EXPECT_NE(text.find("\"2\" = 38.000"), std::string::npos);
}
