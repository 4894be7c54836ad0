// What the fuzz targets share: an input's bytes as text, and a check that
// turns a broken promise of a parser into a crash libFuzzer reports.
//
// Every target calls a parser the way hplx does and catches exactly the
// exception hplx maps to "bad input, exit 2" (hplx::UsageError; CLI11's
// ParseError where hplx converts it). Anything else is a finding: another
// exception (libFuzzer reports it as a crash through std::terminate), a
// sanitizer report, a leak, a timeout, or a FUZZ_CHECK that fails on a value
// the parser accepted but promised to refuse.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"

#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

inline std::string fuzz_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// An argv-like input: one argument per line (the last line may be empty).
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// Calls `parse`; a UsageError is the expected refusal.
template <class F>
void expect_value_or_usage_error(F&& parse) {
  try {
    parse();
  } catch (const hplx::UsageError&) {
  }
}
