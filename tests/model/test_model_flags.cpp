// `hplx model`'s list flags (apps/hplx/model_flags.hpp): --n A:B:S or
// a,b,c and --nb / --nodes a,b,c.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model_flags.hpp"

namespace hplx::app {
namespace {

std::string error_of(void (*f)(const std::string&), const std::string& s) {
  try {
    f(s);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ModelFlags, RangesAndListsGiveTheirPoints) {
  EXPECT_EQ(parse_n_list("1000:5000:2000"), (std::vector<long>{1000, 3000, 5000}));
  EXPECT_EQ(parse_n_list("1000:4999:2000"), (std::vector<long>{1000, 3000}));
  EXPECT_EQ(parse_n_list("7,8"), (std::vector<long>{7, 8}));
  EXPECT_EQ(parse_int_list("128,256", "--nb"), (std::vector<int>{128, 256}));
}

// Seen while writing fuzz/fuzz_flags: stepping past B near LONG_MAX overflowed a long
// (undefined; in practice an endless loop filling memory).
TEST(ModelFlags, RangeEndingNearLongMaxStopsAtB) {
  const std::string max = std::to_string(LONG_MAX);
  EXPECT_EQ(parse_n_list("1:" + max + ":" + max), (std::vector<long>{1}));
  EXPECT_EQ(parse_n_list(max + ":" + max + ":1"), (std::vector<long>{LONG_MAX}));
}

// Found by fuzz/fuzz_flags (its check that every value is >= 1): a value beyond an int was cut to
// its low bits
// (--nb 4294967297 became 1, 9223372036854775807 became -1).
TEST(ModelFlags, IntListRefusesValuesBeyondAnInt) {
  auto nb = [](const std::string& s) { (void)parse_int_list(s, "--nb"); };
  EXPECT_EQ(error_of(nb, "128,4294967297"),
            "--nb '128,4294967297': 4294967297 is too large; allowed: integers 1..2147483647");
  EXPECT_EQ(parse_int_list("2147483647", "--nb"), (std::vector<int>{INT_MAX}));
}

}  // namespace
}  // namespace hplx::app
