#include "model_flags.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::app {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  return out;
}

long parse_long(const std::string& s, const std::string& what, long min) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || errno || v < min)
    throw UsageError(fmt::format("{} '{}': allowed: an integer >= {}", what, s, min));
  return v;
}

// "A:B:S" (A, A+S, ... <= B) or "a,b,c".
std::vector<long> parse_n_list(const std::string& s) {
  const std::string what = "--n";
  std::vector<long> out;
  if (s.find(':') != std::string::npos) {
    auto parts = split(s, ':');
    if (parts.size() != 3)
      throw UsageError(
          fmt::format("--n '{}': allowed: A:B:S (from A to B in steps of S) or a list a,b,c", s));
    const long a = parse_long(parts[0], what, 1), b = parse_long(parts[1], what, 1),
               st = parse_long(parts[2], what, 1);
    if (b < a) throw UsageError(fmt::format("--n '{}': B < A; allowed: A:B:S with A <= B", s));
    if ((b - a) / st > 100000)
      throw UsageError(fmt::format("--n '{}': more than 100000 points; allowed: fewer", s));
    // Counted, not `n += st` up to B: near LONG_MAX the sum would overflow.
    for (long i = 0; i <= (b - a) / st; ++i) out.push_back(a + i * st);
  } else {
    for (const auto& x : split(s, ',')) out.push_back(parse_long(x, what, 1));
  }
  if (out.empty()) throw UsageError("--n '': allowed: A:B:S or a list a,b,c");
  return out;
}

std::vector<int> parse_int_list(const std::string& s, const std::string& what) {
  std::vector<int> out;
  for (const auto& x : split(s, ',')) {
    const long v = parse_long(x, what, 1);
    if (v > std::numeric_limits<int>::max())
      throw UsageError(fmt::format("{} '{}': {} is too large; allowed: integers 1..{}", what, s, x,
                                   std::numeric_limits<int>::max()));
    out.push_back(static_cast<int>(v));
  }
  if (out.empty())
    throw UsageError(fmt::format("{} '': allowed: a list a,b,c of integers >= 1", what));
  return out;
}

}  // namespace hplx::app
