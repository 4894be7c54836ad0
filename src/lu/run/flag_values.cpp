#include "lu/run/flag_values.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::lu {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool parse_positive(const std::string& s, int& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && out >= 1;
}

}  // namespace

GridShape parse_grid_flag(const std::string& text) {
  const std::string t = lower(text);
  const auto x = t.find('x');
  GridShape g;
  if (x == std::string::npos || !parse_positive(t.substr(0, x), g.p) ||
      !parse_positive(t.substr(x + 1), g.q)) {
    throw UsageError(
        fmt::format("--grid '{}' is not a process grid; allowed: PxQ with P, Q >= 1, "
                    "e.g. 2x4",
                    text));
  }
  return g;
}

GridOrder parse_pmap_flag(const std::string& text) {
  const std::string t = lower(text);
  if (t == "0" || t == "row" || t == "r" || t == "row-major") return GridOrder::RowMajor;
  if (t == "1" || t == "column" || t == "col" || t == "c" || t == "column-major")
    return GridOrder::ColumnMajor;
  throw UsageError(
      fmt::format("--pmap '{}' is not a process mapping; allowed: row (0), column (1)", text));
}

Factorization parse_factorization_flag(const std::string& flag, const std::string& text) {
  const std::string t = lower(text);
  if (t == "0" || t == "left" || t == "l") return Factorization::Left;
  if (t == "1" || t == "crout" || t == "c") return Factorization::Crout;
  if (t == "2" || t == "right" || t == "r") return Factorization::Right;
  throw UsageError(fmt::format(
      "{} '{}' is not a factorization; allowed: left (0), crout (1), right (2)", flag, text));
}

Broadcast parse_bcast_flag(const std::string& text) {
  const std::string t = lower(text);
  static const char* names[] = {"1ring", "1ringm", "2ring", "2ringm", "long", "longm"};
  for (int i = 0; i < 6; ++i) {
    if (t == std::to_string(i) || t == names[i] || (i >= 4 && t == std::string("b") + names[i]))
      return static_cast<Broadcast>(i);
  }
  throw UsageError(fmt::format(
      "--bcast '{}' is not a broadcast; allowed: 1ring (0), 1ringM (1), 2ring (2), 2ringM (3), "
      "long (4), longM (5)",
      text));
}

SwapAlgorithm parse_swap_flag(const std::string& text) {
  const std::string t = lower(text);
  if (t == "0" || t == "bin-exch" || t == "binary-exchange") return SwapAlgorithm::BinaryExchange;
  if (t == "1" || t == "long" || t == "spread-roll") return SwapAlgorithm::Long;
  if (t == "2" || t == "mix") return SwapAlgorithm::Mix;
  throw UsageError(fmt::format(
      "--swap '{}' is not a swap algorithm; allowed: bin-exch (0), long (1), mix (2)", text));
}

GridShape default_grid(int ranks) {
  GridShape g{1, std::max(1, ranks)};
  for (int p = 1; p * p <= ranks; ++p) {
    if (ranks % p == 0) g = {p, ranks / p};
  }
  return g;
}

}  // namespace hplx::lu
