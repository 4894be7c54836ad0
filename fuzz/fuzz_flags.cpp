// Command-line values: the input is an argv, one argument per line.
//  - As `hplx lu`'s test flags (--n, --nb, --grid, ...): CLI11 parses them
//    with hplx's option definitions (add_test_flags), then
//    dat_from_test_flags makes the HPL.dat they describe, as
//    `hplx lu --n ... --grid ...` does before running.
//  - Every argument through each single-value parser: lu's --grid, --pmap,
//    --pfact/--rfact, --bcast, --swap; model's --n (A:B:S or a,b,c),
//    --nb/--nodes lists and --grid.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "fuzz_check.hpp"
#include "lu/run/flag_values.hpp"
#include "lu_flags.hpp"
#include "model/system_spec.hpp"
#include "model_flags.hpp"

namespace {

using hplx::UsageError;

void lu_command_line(const std::vector<std::string>& args, int ranks) {
  CLI::App app{"fuzz", "hplx-lu"};
  hplx::app::LuTestFlags flags;
  hplx::app::add_test_flags(app, flags);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11's order
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError&) {  // hplx turns these into a UsageError
    return;
  }
  hplx::lu::HplDat dat;
  try {
    dat = hplx::app::dat_from_test_flags(flags, ranks);
  } catch (const UsageError&) {
    return;
  }
  FUZZ_CHECK(dat.ns.size() == (flags.n ? 1u : 0u));
  for (long n : dat.ns) FUZZ_CHECK(n >= 0);
  for (int nb : dat.nbs) FUZZ_CHECK(nb >= 1);
  for (int v : dat.nbmins) FUZZ_CHECK(v >= 1);
  for (int v : dat.ndivs) FUZZ_CHECK(v >= 2);
  for (int v : dat.depths) FUZZ_CHECK(v >= 0);
  FUZZ_CHECK(dat.grids.size() == 1 && dat.grids[0].p >= 1 && dat.grids[0].q >= 1);
  FUZZ_CHECK(dat.swap_threshold >= 0);
  FUZZ_CHECK(std::isfinite(dat.threshold));
  if (!dat.ns.empty()) {
    const auto tests = hplx::lu::expand_tests(dat);
    FUZZ_CHECK(tests.size() == 1);
    (void)hplx::lu::variant_code(tests[0]);
  }
}

void single_values(const std::string& s) {
  namespace lu = hplx::lu;
  namespace app = hplx::app;
  expect_value_or_usage_error([&] {
    const auto g = lu::parse_grid_flag(s);
    FUZZ_CHECK(g.p >= 1 && g.q >= 1);
  });
  expect_value_or_usage_error([&] { (void)lu::parse_pmap_flag(s); });
  expect_value_or_usage_error([&] { (void)lu::parse_factorization_flag("--pfact", s); });
  expect_value_or_usage_error([&] { (void)lu::parse_bcast_flag(s); });
  expect_value_or_usage_error([&] { (void)lu::parse_swap_flag(s); });
  expect_value_or_usage_error([&] {
    const auto [p, q] = hplx::model::parse_grid(s, "--grid");
    FUZZ_CHECK(p >= 1 && q >= 1);
  });
  expect_value_or_usage_error([&] {
    const auto ns = app::parse_n_list(s);
    FUZZ_CHECK(!ns.empty() && ns.size() <= 100001);
    for (long n : ns) FUZZ_CHECK(n >= 1);
    if (s.find(':') != std::string::npos) FUZZ_CHECK(std::is_sorted(ns.begin(), ns.end()));
  });
  expect_value_or_usage_error([&] {
    const auto v = app::parse_int_list(s, "--nb");
    FUZZ_CHECK(!v.empty());
    for (int x : v) FUZZ_CHECK(x >= 1);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = lines_of(fuzz_text(data, size));
  const int ranks = 1 + static_cast<int>(size % 64);
  lu_command_line(args, ranks);
  const auto g = hplx::lu::default_grid(ranks);
  FUZZ_CHECK(g.p * g.q == ranks && g.p <= g.q);
  for (const auto& a : args) single_values(a);
  return 0;
}
