// A test's ranks in the report: every rank's update, FACT and wait totals
// and host, from the record's "ranks" (core/slow_ranks.hpp), the slow ones
// marked.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hplx::report {

// The HTML of a test's "ranks" (a heading, a sentence and a table); empty
// where the test has none. Up to kAllRanks ranks every one is a row; above
// that the slow ones and the slowest others, with the count left out.
inline constexpr std::size_t kAllRanks = 64;
std::string ranks_section(const nlohmann::json& test);

}  // namespace hplx::report
