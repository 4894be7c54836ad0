// hplx mxp's values: the input is an argv, one argument per line.
//  - As `hplx mxp`'s problem flags (--nx ... --smoother, --npx/--npy/--npz,
//    --expect-bandwidth): CLI11 parses them with hplx's option definitions
//    (add_mxp_flags), then mxp_config_from_flags checks the configuration
//    for a job of 1 to 64 ranks, as `hplx mxp` does before allocating;
//    the memory estimate of an accepted configuration is checked too.
//  - Every argument through each single-value parser: --validation,
//    --precision, --smoother, and --expect-bandwidth's check of the number
//    it reads as.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "fuzz_check.hpp"
#include "mxp/flag_values.hpp"
#include "mxp/geometry.hpp"
#include "mxp_flags.hpp"

namespace {

using hplx::UsageError;

void mxp_command_line(const std::vector<std::string>& args, int ranks) {
  CLI::App app{"fuzz", "hplx-mxp"};
  hplx::app::MxpFlags flags;
  hplx::app::add_mxp_flags(app, flags);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11's order
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {  // hplx turns these into a UsageError
    return;
  }
  hplx::mxp::MxpConfig c;
  try {
    c = hplx::app::mxp_config_from_flags(flags, ranks);
  } catch (const UsageError&) {
    return;
  }
  // What check_config promises the solver.
  for (int n : {c.nx, c.ny, c.nz}) FUZZ_CHECK(n >= hplx::mxp::kSizeMultiple && n % 8 == 0);
  FUZZ_CHECK(c.restart >= 1 && c.restart <= 1000);
  FUZZ_CHECK(c.bench_iters >= 1);
  FUZZ_CHECK(std::isfinite(c.time) && c.time >= 0);
  if (flags.expect_gbs) FUZZ_CHECK(std::isfinite(*flags.expect_gbs) && *flags.expect_gbs > 0);
  // The process grid the run would use covers the ranks exactly.
  const hplx::mxp::ProcessShape shape = c.shape.npx == 0 && c.shape.npy == 0 && c.shape.npz == 0
                                            ? hplx::mxp::optimal_process_shape(ranks)
                                            : c.shape;
  FUZZ_CHECK(shape.npx >= 1 && shape.npy >= 1 && shape.npz >= 1);
  FUZZ_CHECK(static_cast<long>(shape.npx) * shape.npy * shape.npz == ranks);
  const hplx::mxp::Geometry g =
      hplx::mxp::make_geometry(ranks - 1, ranks, c.nx, c.ny, c.nz, c.shape);
  FUZZ_CHECK(g.global_rows() > 0);
  // The memory estimate is a number, and a check against any amount either
  // passes or refuses.
  const double bytes = hplx::mxp::bytes_per_rank(c);
  FUZZ_CHECK(std::isfinite(bytes) && bytes > 0);
  for (long long available : {0LL, 1LL << 20, 1LL << 40})
    expect_value_or_usage_error([&] { hplx::mxp::check_memory(c, available); });
}

void single_values(const std::string& s) {
  namespace mxp = hplx::mxp;
  expect_value_or_usage_error(
      [&] { FUZZ_CHECK(std::string(mxp::to_string(mxp::parse_validation_mode(s))) == s); });
  expect_value_or_usage_error(
      [&] { FUZZ_CHECK(std::string(mxp::to_string(mxp::parse_precision(s))) == s); });
  expect_value_or_usage_error(
      [&] { FUZZ_CHECK(std::string(mxp::to_string(mxp::parse_smoother(s))) == s); });
  expect_value_or_usage_error([&] {
    const double v = std::strtod(s.c_str(), nullptr);
    mxp::check_bandwidth_gbs(v);
    FUZZ_CHECK(std::isfinite(v) && v > 0);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = lines_of(fuzz_text(data, size));
  const int ranks = 1 + static_cast<int>(size % 64);
  mxp_command_line(args, ranks);
  for (const auto& a : args) single_values(a);
  return 0;
}
