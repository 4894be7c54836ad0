// Values of `hplx model` flags that list several points (--n 1000:5000:1000,
// --nb 128,256, --nodes 1,2,4): pure functions, so tests and the fuzz
// targets (fuzz/) reach them without running the command. Each throws a
// UsageError naming the flag, the value and what is allowed.
#pragma once

#include <string>
#include <vector>

namespace hplx::app {

// `s` cut at every `sep` ("a,b" -> {"a", "b"}; a trailing separator adds nothing).
std::vector<std::string> split(const std::string& s, char sep);

// A whole decimal integer >= `min`; `what` names the flag in the message.
long parse_long(const std::string& s, const std::string& what, long min);

// --n: "A:B:S" (A, A+S, ... <= B) or "a,b,c".
std::vector<long> parse_n_list(const std::string& s);

// --nb, --nodes: "a,b,c" of integers >= 1.
std::vector<int> parse_int_list(const std::string& s, const std::string& what);

}  // namespace hplx::app
