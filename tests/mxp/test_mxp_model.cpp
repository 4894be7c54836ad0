// Pure arithmetic of hplx mxp: process-grid shapes, size checks, the
// penalty and the flop model (no MPI needed).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "mxp/benchmark.hpp"
#include "mxp/expected_rating.hpp"
#include "mxp/flop_model.hpp"
#include "mxp/geometry.hpp"
#include "mxp/validation.hpp"

namespace hplx::mxp {
namespace {

std::string usage_error_of(auto&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void expect_shape(int ranks, int x, int y, int z) {
  const ProcessShape s = optimal_process_shape(ranks);
  EXPECT_EQ(s.npx, x) << ranks;
  EXPECT_EQ(s.npy, y) << ranks;
  EXPECT_EQ(s.npz, z) << ranks;
}

TEST(MxpProcessShape, MatchesHpcgChoiceForSmallCounts) {
  expect_shape(1, 1, 1, 1);
  expect_shape(2, 2, 1, 1);
  expect_shape(3, 3, 1, 1);
  expect_shape(4, 2, 2, 1);
  expect_shape(6, 2, 3, 1);
  expect_shape(8, 2, 2, 2);
  expect_shape(9, 3, 3, 1);
  expect_shape(12, 2, 3, 2);
  expect_shape(30, 2, 3, 5);
  expect_shape(64, 4, 4, 4);
}

TEST(MxpProcessShape, GeneralCaseHasLeastSurfaceAndRightProduct) {
  for (int p : {16, 24, 36, 48, 72, 96, 100, 360}) {
    const ProcessShape s = optimal_process_shape(p);
    EXPECT_EQ(s.npx * s.npy * s.npz, p);
    const double area = double(s.npx) * s.npy + double(s.npy) * s.npz + double(s.npx) * s.npz;
    for (int x = 1; x <= p; ++x)
      for (int y = 1; x * y <= p; ++y)
        if (p % (x * y) == 0) {
          const int z = p / x / y;
          EXPECT_LE(area, double(x) * y + double(y) * z + double(x) * z) << p;
        }
  }
}

TEST(MxpSizes, NonMultipleOfEightIsRefusedNamingTheValue) {
  EXPECT_EQ(usage_error_of([] { check_local_dims(64, 64, 64); }), "");
  const std::string e = usage_error_of([] { check_local_dims(64, 60, 64); });
  EXPECT_NE(e.find("--ny 60"), std::string::npos) << e;
  EXPECT_NE(e.find("multiple of 8"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
  EXPECT_NE(usage_error_of([] { check_local_dims(0, 8, 8); }).find("--nx 0"), std::string::npos);
  EXPECT_NE(usage_error_of([] { check_local_dims(8, 8, -8); }).find("--nz -8"), std::string::npos);
  EXPECT_NE(usage_error_of([] { check_local_dims(4, 8, 8); }).find("--nx 4"), std::string::npos);
}

TEST(MxpSizes, ProcessGridMustUseEveryRank) {
  EXPECT_EQ(usage_error_of([] { check_process_shape({2, 2, 1}, 4); }), "");
  const std::string e = usage_error_of([] { check_process_shape({2, 2, 2}, 4); });
  EXPECT_NE(e.find("2 x 2 x 2"), std::string::npos) << e;
  EXPECT_NE(e.find("4"), std::string::npos) << e;
  EXPECT_NE(usage_error_of([] { optimal_process_shape(0); }).find("0 MPI ranks"),
            std::string::npos);
}

TEST(MxpSizes, ConfigChecksRestartAndTime) {
  MxpConfig c;
  c.restart = 0;
  EXPECT_NE(usage_error_of([&] { check_config(c, 1); }).find("--restart 0"), std::string::npos);
  c.restart = 30;
  c.time = -1;
  EXPECT_NE(usage_error_of([&] { check_config(c, 1); }).find("--time -1"), std::string::npos);
  c.time = 1;
  c.shape = {3, 1, 1};
  EXPECT_NE(usage_error_of([&] { check_config(c, 2); }).find("3 x 1 x 1"), std::string::npos);
}

TEST(MxpValidation, PenaltyIsTheIterationRatioCappedAtOne) {
  EXPECT_DOUBLE_EQ(penalty_factor(135, 135), 1.0);
  EXPECT_DOUBLE_EQ(penalty_factor(100, 125), 0.8);
  EXPECT_DOUBLE_EQ(penalty_factor(140, 135), 1.0);  // fewer mixed iterations earn nothing
  EXPECT_DOUBLE_EQ(penalty_factor(10, 0), 0.0);
}

TEST(MxpValidation, StandardUsesAtMostEightRanks) {
  EXPECT_EQ(validation_ranks(ValidationMode::Standard, 1), 1);
  EXPECT_EQ(validation_ranks(ValidationMode::Standard, 2), 2);
  EXPECT_EQ(validation_ranks(ValidationMode::Standard, 8), 8);
  EXPECT_EQ(validation_ranks(ValidationMode::Standard, 64), 8);
  EXPECT_EQ(validation_ranks(ValidationMode::Fullscale, 64), 64);
}

TEST(MxpValidation, ModeAndPrecisionNamesParse) {
  EXPECT_EQ(parse_validation_mode("fullscale"), ValidationMode::Fullscale);
  EXPECT_EQ(parse_precision("double"), Precision::Double);
  EXPECT_NE(usage_error_of([] { parse_validation_mode("full"); }).find("standard, fullscale"),
            std::string::npos);
  EXPECT_NE(usage_error_of([] { parse_precision("half"); }).find("mixed, double"),
            std::string::npos);
}

TEST(MxpFlopModel, CycleMatchesTheReferenceFormula) {
  const ProblemCounts c{262144.0 * 2, 7'000'000.0, 8'000'000.0};
  for (int m : {1, 30, 40}) {
    const double formula = 2 * c.nnz * (m + 1) + 6 * c.nnz_mg * (m + 1) +
                           c.rows * (5 + 5.0 * m + 2 + 4.0 * m * (m + 1));
    EXPECT_DOUBLE_EQ(cycle_flops(c, m), formula);
  }
  // 300 iterations at restart 30: ten full cycles and the closing residual.
  EXPECT_DOUBLE_EQ(solve_flops(c, 300, 30), 10 * cycle_flops(c, 30) + 2 * c.nnz + 4 * c.rows);
  EXPECT_DOUBLE_EQ(solve_flops(c, 45, 30),
                   cycle_flops(c, 30) + cycle_flops(c, 15) + final_residual_flops(c));
}

// A run on 2 ranks whose motifs moved known bytes: at 100 GB/s per rank each
// motif takes its bytes / 2 / 1e11 seconds, and the rating is the mixed
// phase's flops over their sum, times the penalty.
MxpResult run_with_bytes() {
  MxpResult r;
  r.geom.size = 2;
  r.has_mixed = true;
  r.validation.penalty = 0.5;
  r.rating = 1;
  auto fill = [](PhaseResult& ph, Precision p, double scale) {
    ph.precision = p;
    ph.seconds = 1;
    MotifStats& s = ph.stats;
    s.bytes_spmv = 4e11 * scale;
    s.bytes_gs = 8e11 * scale;
    s.bytes_restriction = 1e11 * scale;
    s.bytes_prolongation = 1e11 * scale;
    s.bytes_ortho = 4e11 * scale;
    s.bytes_vector = 2e11 * scale;
    s.flops_spmv = 1e12;
    s.flops_mg = 3e12;
    s.flops_ortho = 1e12;
    s.flops_vector = 1e12;
  };
  fill(r.mixed, Precision::Mixed, 0.5);
  fill(r.dbl, Precision::Double, 1.0);
  return r;
}

TEST(MxpExpectedRating, EachMotifMovesItsBytesAtTheBandwidth) {
  const MxpResult r = run_with_bytes();
  const ExpectedRating e = expect_rating(r, 100);
  ASSERT_EQ(e.dbl.motifs.size(), 6u);
  EXPECT_STREQ(e.dbl.motifs[0].motif, "SpMV");
  EXPECT_DOUBLE_EQ(e.dbl.motifs[0].seconds, 2.0);  // 4e11 B / 2 ranks / 1e11 B/s
  EXPECT_DOUBLE_EQ(e.dbl.motifs[1].seconds, 4.0);  // GS
  EXPECT_DOUBLE_EQ(e.dbl.seconds, 10.0);
  EXPECT_DOUBLE_EQ(e.mixed.seconds, 5.0);
  EXPECT_DOUBLE_EQ(e.dbl.gflops, 600.0);     // 6e12 flops / 10 s
  EXPECT_DOUBLE_EQ(e.mixed.gflops, 1200.0);  // half the bytes, the same flops
  EXPECT_DOUBLE_EQ(e.rating, 600.0);         // times the penalty 0.5
  EXPECT_DOUBLE_EQ(e.mixed_over_double, 1.0);
  const auto j = to_json(e);
  EXPECT_DOUBLE_EQ(j["rating_gflops"].get<double>(), 600.0);
  EXPECT_DOUBLE_EQ(j["mixed"]["motifs"]["SpMV"]["bytes_per_rank"].get<double>(), 1e11);
}

TEST(MxpDefaultSize, FillsSeventyPercentOfTheDeviceWithTheLargestCube) {
  MxpConfig c;
  c.nx = c.ny = c.nz = 256;
  const double at_256 = bytes_per_rank(c);
  // Exactly 70% of the memory at 256^3: 256; a byte less: 248.
  const auto memory = static_cast<long long>(std::ceil(at_256 / kDeviceMemoryFraction));
  EXPECT_EQ(largest_fitting_cube(c, memory), 256);
  c.nx = c.ny = c.nz = 248;
  EXPECT_LT(bytes_per_rank(c), 0.7 * static_cast<double>(memory - 1));
  EXPECT_EQ(largest_fitting_cube(c, static_cast<long long>(at_256 / kDeviceMemoryFraction) - 1),
            248);
  // An H200's 140 GB free: 464^3 with the default restart (about 93 of the
  // 98 GB allowed; 472^3 would take 98.1), where the H200 run had 256^3.
  EXPECT_EQ(largest_fitting_cube(MxpConfig{}, 140LL * 1000 * 1000 * 1000), 464);
  EXPECT_EQ(largest_fitting_cube(MxpConfig{}, 1000), 0);
  EXPECT_EQ(largest_fitting_cube(MxpConfig{}, 1LL << 50), 1024);
}

TEST(MxpExpectedRating, DoublePrecisionRunHasNoPenalty) {
  MxpResult r = run_with_bytes();
  r.has_mixed = false;
  const ExpectedRating e = expect_rating(r, 100);
  EXPECT_DOUBLE_EQ(e.rating, 600.0);
  EXPECT_EQ(e.mixed_over_double, 0.0);
  EXPECT_FALSE(to_json(e).contains("mixed"));
}

TEST(MxpExpectedRating, RejectsABandwidthThatIsNotAPositiveNumber) {
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL, 2e6})
    EXPECT_NE(usage_error_of([&] { check_bandwidth_gbs(bad); }).find("--expect-bandwidth"),
              std::string::npos)
        << bad;
  EXPECT_EQ(usage_error_of([] { check_bandwidth_gbs(3350); }), "");
}

}  // namespace
}  // namespace hplx::mxp
