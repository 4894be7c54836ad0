// HPL.dat parsing: the example files, netlib's test order, whitespace,
// every error a user can make, and the values netlib silently remaps.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "lu/config.hpp"
#include "lu/run/hpl_dat_writer.hpp"

namespace {

using hplx::GridOrder;
using hplx::UsageError;
using namespace hplx::lu;

std::string example(const char* name) {
  return (std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "examples" / name)
      .lexically_normal()
      .string();
}

// netlib 2.3's default HPL.dat values, one line each, no comments.
std::vector<std::string> default_lines() {
  return {"title", "second line", "HPL.out", "6",     "4",     "29 30 34 35", "4",     "1 2 3 4",
          "0",     "3",           "2 1 4",   "2 4 1", "16.0",  "3",           "0 1 2", "2",
          "2 4",   "1",           "2",       "3",     "0 1 2", "1",           "0",     "1",
          "0",     "2",           "64",      "0",     "0",     "1",           "8"};
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// The default file with line `no` (1-based) replaced.
std::string with_line(int no, const std::string& content) {
  auto lines = default_lines();
  lines.at(no - 1) = content;
  return join(lines);
}

std::string error_of(const std::string& text, const std::string& source = "t.dat") {
  try {
    parse_hpl_dat_text(text, source);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError for:\n" << text;
  return "";
}

// The message is one line naming file, line and offending value.
void expect_error(const std::string& text, int line, const std::string& value,
                  std::vector<std::string> more = {}) {
  std::string msg = error_of(text);
  SCOPED_TRACE(msg);
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_EQ(msg.rfind("t.dat:" + std::to_string(line) + ": ", 0), 0u);
  EXPECT_NE(msg.find("'" + value + "'"), std::string::npos);
  EXPECT_NE(msg.find("; allowed: "), std::string::npos);
  for (const auto& m : more) EXPECT_NE(msg.find(m), std::string::npos) << "missing: " << m;
}

void expect_netlib_defaults(const HplDat& d) {
  EXPECT_EQ(d.output_file, "HPL.out");
  EXPECT_EQ(d.device_out, 6);
  EXPECT_EQ(d.ns, (std::vector<long>{29, 30, 34, 35}));
  EXPECT_EQ(d.nbs, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(d.pmap, GridOrder::RowMajor);
  ASSERT_EQ(d.grids.size(), 3u);
  EXPECT_EQ(d.grids[0].p, 2);
  EXPECT_EQ(d.grids[0].q, 2);
  EXPECT_EQ(d.grids[1].p, 1);
  EXPECT_EQ(d.grids[1].q, 4);
  EXPECT_EQ(d.grids[2].p, 4);
  EXPECT_EQ(d.grids[2].q, 1);
  EXPECT_DOUBLE_EQ(d.threshold, 16.0);
  EXPECT_EQ(d.pfacts, (std::vector<Factorization>{Factorization::Left, Factorization::Crout,
                                                  Factorization::Right}));
  EXPECT_EQ(d.nbmins, (std::vector<int>{2, 4}));
  EXPECT_EQ(d.ndivs, (std::vector<int>{2}));
  EXPECT_EQ(d.rfacts, (std::vector<Factorization>{Factorization::Left, Factorization::Crout,
                                                  Factorization::Right}));
  EXPECT_EQ(d.bcasts, (std::vector<Broadcast>{Broadcast::OneRing}));
  EXPECT_EQ(d.depths, (std::vector<int>{0}));
  EXPECT_EQ(d.swap, SwapAlgorithm::Mix);
  EXPECT_EQ(d.swap_threshold, 64);
  EXPECT_TRUE(d.l1_transposed);
  EXPECT_TRUE(d.u_transposed);
  EXPECT_TRUE(d.equilibration);
  EXPECT_EQ(d.alignment, 8);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(HplDat, NetlibDefaultExampleHasNetlibValues) {
  HplDat d = parse_hpl_dat_file(example("netlib-default.dat"));
  EXPECT_EQ(d.source, example("netlib-default.dat"));
  expect_netlib_defaults(d);
}

TEST(HplDat, ExampleHplDatIsOneTestOnTwoRanks) {
  HplDat d = parse_hpl_dat_file(example("HPL.dat"));
  EXPECT_EQ(d.output_file, "HPL.out");
  EXPECT_EQ(d.device_out, 6);
  EXPECT_EQ(d.ns, (std::vector<long>{8000}));
  EXPECT_EQ(d.nbs, (std::vector<int>{192}));
  EXPECT_EQ(d.pmap, GridOrder::RowMajor);
  ASSERT_EQ(d.grids.size(), 1u);
  EXPECT_EQ(d.grids[0].p, 1);
  EXPECT_EQ(d.grids[0].q, 2);
  EXPECT_DOUBLE_EQ(d.threshold, 16.0);
  EXPECT_EQ(d.pfacts, (std::vector<Factorization>{Factorization::Right}));
  EXPECT_EQ(d.nbmins, (std::vector<int>{4}));
  EXPECT_EQ(d.ndivs, (std::vector<int>{2}));
  EXPECT_EQ(d.rfacts, (std::vector<Factorization>{Factorization::Crout}));
  EXPECT_EQ(d.bcasts, (std::vector<Broadcast>{Broadcast::OneRing}));
  EXPECT_EQ(d.depths, (std::vector<int>{0}));
  EXPECT_EQ(d.swap, SwapAlgorithm::Mix);
  EXPECT_EQ(d.swap_threshold, 64);
  EXPECT_TRUE(d.l1_transposed);
  EXPECT_TRUE(d.u_transposed);
  EXPECT_TRUE(d.equilibration);
  EXPECT_EQ(d.alignment, 8);
  EXPECT_TRUE(d.warnings.empty());
  auto tests = expand_tests(d);
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_EQ(variant_code(tests[0]), "WR00C2R4");
}

TEST(HplDat, NetlibDefaultExpandsTo864TestsInNetlibOrder) {
  auto tests = expand_tests(parse_hpl_dat_file(example("netlib-default.dat")));
  ASSERT_EQ(tests.size(), 864u);
  // Innermost NDIV (1 value), then NBMIN, PFACT, RFACT.
  EXPECT_EQ(variant_code(tests[0]), "WR00L2L2");
  EXPECT_EQ(variant_code(tests[1]), "WR00L2L4");
  EXPECT_EQ(variant_code(tests[2]), "WR00L2C2");
  EXPECT_EQ(variant_code(tests[3]), "WR00L2C4");
  EXPECT_EQ(variant_code(tests[4]), "WR00L2R2");
  EXPECT_EQ(variant_code(tests[6]), "WR00C2L2");
  EXPECT_EQ(variant_code(tests[17]), "WR00R2R4");
  for (int i = 0; i < 18; ++i) {
    EXPECT_EQ(tests[i].n, 29);
    EXPECT_EQ(tests[i].nb, 1);
    EXPECT_EQ(tests[i].grid.p, 2);
    EXPECT_EQ(tests[i].grid.q, 2);
  }
  // Then NB, then N, then the grid outermost.
  EXPECT_EQ(tests[18].nb, 2);
  EXPECT_EQ(tests[18].n, 29);
  EXPECT_EQ(variant_code(tests[18]), "WR00L2L2");
  EXPECT_EQ(tests[72].n, 30);
  EXPECT_EQ(tests[72].nb, 1);
  EXPECT_EQ(tests[287].n, 35);
  EXPECT_EQ(tests[287].grid.p, 2);
  EXPECT_EQ(tests[288].grid.p, 1);
  EXPECT_EQ(tests[288].grid.q, 4);
  EXPECT_EQ(tests[288].n, 29);
  EXPECT_EQ(tests[576].grid.p, 4);
  EXPECT_EQ(tests[576].grid.q, 1);
  const TestCase& last = tests.back();
  EXPECT_EQ(variant_code(last), "WR00R2R4");
  EXPECT_EQ(last.n, 35);
  EXPECT_EQ(last.nb, 4);
  EXPECT_EQ(last.grid.p, 4);
  EXPECT_EQ(last.grid.q, 1);
  for (const TestCase& t : tests) {
    EXPECT_EQ(t.swap, SwapAlgorithm::Mix);
    EXPECT_EQ(t.swap_threshold, 64);
    EXPECT_TRUE(t.l1_transposed);
    EXPECT_TRUE(t.u_transposed);
    EXPECT_TRUE(t.equilibration);
    EXPECT_EQ(t.alignment, 8);
    EXPECT_EQ(t.pmap, GridOrder::RowMajor);
  }
}

TEST(HplDat, ExpandCopiesFileWideSettingsIntoEveryTest) {
  auto lines = default_lines();
  lines[8] = "1";    // column-major
  lines[25] = "0";   // binary exchange
  lines[26] = "32";  // swap threshold
  lines[27] = "1";   // L1 no-transposed
  lines[28] = "1";   // U no-transposed
  lines[29] = "0";   // no equilibration
  lines[30] = "16";  // alignment
  auto tests = expand_tests(parse_hpl_dat_text(join(lines), "t.dat"));
  ASSERT_EQ(tests.size(), 864u);
  for (const TestCase& t : tests) {
    EXPECT_EQ(t.pmap, GridOrder::ColumnMajor);
    EXPECT_EQ(t.swap, SwapAlgorithm::BinaryExchange);
    EXPECT_EQ(t.swap_threshold, 32);
    EXPECT_FALSE(t.l1_transposed);
    EXPECT_FALSE(t.u_transposed);
    EXPECT_FALSE(t.equilibration);
    EXPECT_EQ(t.alignment, 16);
  }
  EXPECT_EQ(variant_code(tests[0]), "WC00L2L2");
}

TEST(HplDat, DepthAndBcastLoopsSitBetweenNbAndRfact) {
  auto lines = default_lines();
  lines[4] = "1";
  lines[5] = "100";
  lines[6] = "1";
  lines[7] = "8";
  lines[9] = "1";
  lines[10] = "1";
  lines[11] = "1";
  lines[13] = "1";
  lines[14] = "2";  // PFACT Right
  lines[15] = "1";
  lines[16] = "4";
  lines[19] = "2";
  lines[20] = "0 1";  // RFACT Left, Crout
  lines[21] = "2";
  lines[22] = "1 3";  // BCAST 1ringM, 2ringM
  lines[23] = "2";
  lines[24] = "0 1";  // DEPTH 0, 1
  auto tests = expand_tests(parse_hpl_dat_text(join(lines), "t.dat"));
  std::vector<std::string> codes;
  for (const auto& t : tests) codes.push_back(variant_code(t));
  EXPECT_EQ(codes, (std::vector<std::string>{"WR01L2R4", "WR01C2R4", "WR03L2R4", "WR03C2R4",
                                             "WR11L2R4", "WR11C2R4", "WR13L2R4", "WR13C2R4"}));
}

TEST(HplDat, AcceptsTabsLeadingAndRepeatedSpacesAndCrlf) {
  std::vector<std::string> lines = default_lines();
  lines[2] = "  \tHPL.out \t output file";
  lines[3] = "\t6\tdevice";
  lines[4] = "   4      # of Ns";
  lines[5] = "\t29\t\t30   34\t 35  Ns";
  lines[7] = "  1  2\t3 4   NBs";
  lines[10] = "\t2 \t 1  4 Ps";
  lines[11] = " 2 4 1\t\tQs";
  lines[12] = "   16.0\tthreshold";
  lines[14] = "\t0\t1\t2\tPFACTs";
  std::string text;
  for (const auto& l : lines) text += l + "\r\n";
  HplDat d = parse_hpl_dat_text(text, "t.dat");
  expect_netlib_defaults(d);
}

TEST(HplDat, CommentAfterValuesIsIgnoredAndLastLineNeedsNoNewline) {
  auto lines = default_lines();
  lines[5] = "29 30 34 35 Ns 1 2 3";  // extra numbers after the count are comment too
  lines[12] = "16.0 threshold 99";
  std::string text = join(lines);
  text.pop_back();  // no final newline
  HplDat d = parse_hpl_dat_text(text, "t.dat");
  EXPECT_EQ(d.ns, (std::vector<long>{29, 30, 34, 35}));
  EXPECT_EQ(d.alignment, 8);
}

TEST(HplDat, MissingFileNamesThePath) {
  try {
    parse_hpl_dat_file("/nonexistent/dir/HPL.dat");
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("/nonexistent/dir/HPL.dat"), std::string::npos) << msg;
    EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(HplDat, DirectoryIsNotReadable) {
  std::string dir = std::filesystem::temp_directory_path().string();
  try {
    parse_hpl_dat_file(dir);
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + ": is a folder; allowed: an HPL.dat", 0), 0u)
        << e.what();
  }
}

TEST(HplDat, TruncatedFileNamesTheMissingLine) {
  auto lines = default_lines();
  lines.resize(13);
  std::string msg = error_of(join(lines));
  EXPECT_EQ(msg.rfind("t.dat:14: number of PFACTs", 0), 0u) << msg;
  EXPECT_NE(msg.find("ends after line 13"), std::string::npos) << msg;

  lines = default_lines();
  lines.resize(30);
  msg = error_of(join(lines));
  EXPECT_EQ(msg.rfind("t.dat:31: ALIGN", 0), 0u) << msg;

  msg = error_of("");
  EXPECT_EQ(msg.rfind("t.dat:1: ", 0), 0u) << msg;

  // A list line that is there but empty.
  lines = default_lines();
  lines.resize(6);
  lines[5] = "";
  msg = error_of(join(lines));
  EXPECT_EQ(msg.rfind("t.dat:6: Ns '' gives 0 values but line 5 says there are 4", 0), 0u) << msg;
}

TEST(HplDat, NonNumericValueIsRejected) {
  EXPECT_EQ(error_of(with_line(6, "29 abc 34 35")),
            "t.dat:6: N 'abc' is not an integer; allowed: integers >= 0");
  auto lines = default_lines();
  lines[4] = "1";
  lines[5] = "abc";
  EXPECT_EQ(error_of(join(lines), "HPL.dat"),
            "HPL.dat:6: N 'abc' is not an integer; allowed: integers >= 0");
  expect_error(with_line(8, "1 2 x3 4"), 8, "x3", {"NB", "not an integer"});
  expect_error(with_line(4, "six"), 4, "six", {"device out", "not an integer"});
  expect_error(with_line(5, "four"), 5, "four", {"number of Ns", "not an integer"});
  expect_error(with_line(15, "0 one 2"), 15, "one", {"PFACT", "not an integer"});
  expect_error(with_line(27, "sixty-four"), 27, "sixty-four", {"swapping threshold"});
  expect_error(with_line(31, "eight"), 31, "eight", {"ALIGN", "not an integer"});
}

TEST(HplDat, FractionsAreNotTruncatedLikeAtoi) {
  expect_error(with_line(6, "29 12.5 34 35"), 6, "12.5", {"N", "not an integer", "fraction"});
  expect_error(with_line(8, "1 2 3 1e2"), 8, "1e2", {"NB", "not an integer"});
  expect_error(with_line(5, "4.0"), 5, "4.0", {"number of Ns", "not an integer"});
}

TEST(HplDat, CountLinesMustBe1To20) {
  expect_error(with_line(5, "0"), 5, "0", {"number of Ns", "out of range", "1..20"});
  expect_error(with_line(7, "21"), 7, "21", {"number of NBs", "1..20"});
  expect_error(with_line(10, "-1"), 10, "-1", {"number of process grids"});
  expect_error(with_line(14, "0"), 14, "0", {"number of PFACTs"});
  expect_error(with_line(16, "0"), 16, "0", {"number of NBMINs"});
  expect_error(with_line(18, "0"), 18, "0", {"number of NDIVs"});
  expect_error(with_line(20, "0"), 20, "0", {"number of RFACTs"});
  expect_error(with_line(22, "0"), 22, "0", {"number of BCASTs"});
  expect_error(with_line(24, "99"), 24, "99", {"number of DEPTHs"});
  // 20 is the largest count netlib allows.
  auto lines = default_lines();
  lines[4] = "20";
  lines[5] = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20";
  EXPECT_EQ(parse_hpl_dat_text(join(lines), "t.dat").ns.size(), 20u);
}

TEST(HplDat, ShortListSaysHowManyWereGiven) {
  expect_error(with_line(6, "29 30"), 6, "29 30",
               {"Ns", "gives 2 values", "line 5", "there are 4"});
  expect_error(with_line(6, "29 30   Ns"), 6, "29 30   Ns", {"gives 2 values", "there are 4"});
  expect_error(with_line(8, "1 NBs"), 8, "1 NBs", {"NBs", "gives 1 value ", "line 7"});
  expect_error(with_line(12, "2 4"), 12, "2 4", {"Qs", "gives 2 values", "line 10", "there are 3"});
  expect_error(with_line(15, "0 1"), 15, "0 1", {"PFACTs", "gives 2 values", "line 14"});
  expect_error(with_line(23, ""), 23, "", {"BCASTs", "gives 0 values", "line 22"});
}

TEST(HplDat, ValuesBelowNetlibMinimaAreRejected) {
  expect_error(with_line(6, "29 -5 34 35"), 6, "-5", {"N", "negative", "integers >= 0"});
  expect_error(with_line(8, "1 0 3 4"), 8, "0", {"NB", "less than 1", "integers >= 1"});
  expect_error(with_line(11, "2 0 4"), 11, "0", {"P", "less than 1"});
  expect_error(with_line(12, "2 4 -1"), 12, "-1", {"Q", "less than 1"});
  expect_error(with_line(17, "2 0"), 17, "0", {"NBMIN", "less than 1"});
  expect_error(with_line(19, "1"), 19, "1", {"NDIV", "less than 2", "integers >= 2"});
  expect_error(with_line(25, "-1"), 25, "-1", {"DEPTH", "negative"});
  // N = 0 is legal (netlib runs it as an empty test).
  EXPECT_EQ(parse_hpl_dat_text(with_line(6, "0 30 34 35"), "t.dat").ns[0], 0);
}

TEST(HplDat, ThresholdMustBeAFiniteNumber) {
  expect_error(with_line(13, "abc"), 13, "abc", {"threshold", "not a number"});
  expect_error(with_line(13, "16.0x"), 13, "16.0x", {"threshold", "not a number"});
  expect_error(with_line(13, "nan"), 13, "nan", {"threshold", "not a finite number"});
  expect_error(with_line(13, "inf"), 13, "inf", {"threshold"});
  expect_error(with_line(13, "-Infinity"), 13, "-Infinity", {"threshold"});
  expect_error(with_line(13, "1e999"), 13, "1e999", {"threshold"});
  EXPECT_DOUBLE_EQ(parse_hpl_dat_text(with_line(13, "-1"), "t.dat").threshold, -1.0);
  EXPECT_DOUBLE_EQ(parse_hpl_dat_text(with_line(13, "1.5e1"), "t.dat").threshold, 15.0);
}

TEST(HplDat, IntegerOverflowIsRejected) {
  expect_error(with_line(6, "29 99999999999999999999 34 35"), 6, "99999999999999999999",
               {"N", "too large"});
  expect_error(with_line(8, "1 2 3 3000000000"), 8, "3000000000", {"NB", "too large"});
  expect_error(with_line(11, "2 1 2147483648"), 11, "2147483648", {"P", "too large"});
  expect_error(with_line(15, "0 1 99999999999"), 15, "99999999999", {"PFACT", "too large"});
  expect_error(with_line(5, "4294967300"), 5, "4294967300", {"number of Ns"});
  // N is a long: more than an int holds is fine.
  EXPECT_EQ(parse_hpl_dat_text(with_line(6, "29 30 34 3000000000"), "t.dat").ns[3], 3000000000L);
}

TEST(HplDat, OutputFileNameOnlyNeededForAFile) {
  HplDat d = parse_hpl_dat_text(with_line(3, ""), "t.dat");
  EXPECT_EQ(d.device_out, 6);
  auto lines = default_lines();
  lines[2] = "results.txt  output file";
  lines[3] = "8";
  d = parse_hpl_dat_text(join(lines), "t.dat");
  EXPECT_EQ(d.output_file, "results.txt");
  EXPECT_EQ(d.device_out, 8);
  lines[2] = "";
  expect_error(join(lines), 3, "", {"output file name"});
}

// A remapped value gets netlib's meaning and a note naming file, line, value
// and the result.
void expect_remap(const HplDat& d, int line, const std::string& value, const std::string& became) {
  ASSERT_EQ(d.warnings.size(), 1u);
  const std::string& w = d.warnings[0];
  EXPECT_EQ(w.rfind("t.dat:" + std::to_string(line) + ": ", 0), 0u) << w;
  EXPECT_NE(w.find("'" + value + "'"), std::string::npos) << w;
  EXPECT_NE(w.find(became), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos);
}

TEST(HplDat, UnknownValuesAreRemappedLikeNetlibWithAWarning) {
  HplDat d = parse_hpl_dat_text(with_line(15, "0 7 2"), "t.dat");
  EXPECT_EQ(d.pfacts[1], Factorization::Right);
  expect_remap(d, 15, "7", "Right");

  d = parse_hpl_dat_text(with_line(21, "-1 1 2"), "t.dat");
  EXPECT_EQ(d.rfacts[0], Factorization::Right);
  expect_remap(d, 21, "-1", "Right");

  d = parse_hpl_dat_text(with_line(23, "9"), "t.dat");
  EXPECT_EQ(d.bcasts[0], Broadcast::OneRingM);
  expect_remap(d, 23, "9", "1ringM");

  d = parse_hpl_dat_text(with_line(9, "2"), "t.dat");
  EXPECT_EQ(d.pmap, GridOrder::RowMajor);
  expect_remap(d, 9, "2", "row-major");

  d = parse_hpl_dat_text(with_line(26, "5"), "t.dat");
  EXPECT_EQ(d.swap, SwapAlgorithm::Long);
  expect_remap(d, 26, "5", "long");

  d = parse_hpl_dat_text(with_line(27, "-3"), "t.dat");
  EXPECT_EQ(d.swap_threshold, 0);
  expect_remap(d, 27, "-3", "0");

  d = parse_hpl_dat_text(with_line(28, "2"), "t.dat");
  EXPECT_TRUE(d.l1_transposed);
  expect_remap(d, 28, "2", "transposed");

  d = parse_hpl_dat_text(with_line(29, "7"), "t.dat");
  EXPECT_TRUE(d.u_transposed);
  expect_remap(d, 29, "7", "transposed");

  d = parse_hpl_dat_text(with_line(30, "3"), "t.dat");
  EXPECT_TRUE(d.equilibration);
  expect_remap(d, 30, "3", "yes");

  d = parse_hpl_dat_text(with_line(31, "0"), "t.dat");
  EXPECT_EQ(d.alignment, 4);
  expect_remap(d, 31, "0", "4");

  // Legal values are not remapped and give no warning.
  d = parse_hpl_dat_text(with_line(23, "0 1 2 3 4 5"), "t.dat");
  EXPECT_TRUE(d.warnings.empty());
  d = parse_hpl_dat_text(with_line(27, "0"), "t.dat");
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.swap_threshold, 0);
}

TEST(HplDat, ParsesEveryEnumValue) {
  auto lines = default_lines();
  lines[21] = "6";
  lines[22] = "0 1 2 3 4 5";
  HplDat d = parse_hpl_dat_text(join(lines), "t.dat");
  EXPECT_EQ(d.bcasts,
            (std::vector<Broadcast>{Broadcast::OneRing, Broadcast::OneRingM, Broadcast::TwoRing,
                                    Broadcast::TwoRingM, Broadcast::Long, Broadcast::LongM}));
  EXPECT_EQ(parse_hpl_dat_text(with_line(26, "0"), "t.dat").swap, SwapAlgorithm::BinaryExchange);
  EXPECT_EQ(parse_hpl_dat_text(with_line(26, "1"), "t.dat").swap, SwapAlgorithm::Long);
  EXPECT_EQ(parse_hpl_dat_text(with_line(9, "1"), "t.dat").pmap, GridOrder::ColumnMajor);
  EXPECT_FALSE(parse_hpl_dat_text(with_line(30, "0"), "t.dat").equilibration);
}

TEST(VariantCode, MatchesNetlibEncoding) {
  TestCase t;
  t.pmap = GridOrder::RowMajor;
  t.depth = 0;
  t.bcast = Broadcast::OneRing;
  t.rfact = Factorization::Crout;
  t.ndiv = 2;
  t.pfact = Factorization::Right;
  t.nbmin = 4;
  EXPECT_EQ(variant_code(t), "WR00C2R4");

  t.pmap = GridOrder::ColumnMajor;
  t.depth = 1;
  t.bcast = Broadcast::OneRingM;
  t.rfact = Factorization::Left;
  t.ndiv = 3;
  t.pfact = Factorization::Crout;
  t.nbmin = 8;
  EXPECT_EQ(variant_code(t), "WC11L3C8");

  // %1d is a minimum width: big values print all their digits.
  t.depth = 12;
  t.bcast = Broadcast::LongM;
  t.rfact = Factorization::Right;
  t.ndiv = 2;
  t.pfact = Factorization::Left;
  t.nbmin = 16;
  EXPECT_EQ(variant_code(t), "WC125R2L16");
  t.bcast = Broadcast::TwoRingM;
  t.depth = 0;
  EXPECT_EQ(variant_code(t), "WC03R2L16");
}

TEST(NameOf, NetlibSpellings) {
  EXPECT_STREQ(name_of(Factorization::Left), "Left");
  EXPECT_STREQ(name_of(Factorization::Crout), "Crout");
  EXPECT_STREQ(name_of(Factorization::Right), "Right");
  EXPECT_STREQ(name_of(Broadcast::OneRing), "1ring");
  EXPECT_STREQ(name_of(Broadcast::OneRingM), "1ringM");
  EXPECT_STREQ(name_of(Broadcast::TwoRing), "2ring");
  EXPECT_STREQ(name_of(Broadcast::TwoRingM), "2ringM");
  EXPECT_STREQ(name_of(Broadcast::Long), "Blong");
  EXPECT_STREQ(name_of(Broadcast::LongM), "BlongM");
  EXPECT_STREQ(name_of(SwapAlgorithm::BinaryExchange), "Binary-exchange");
  EXPECT_STREQ(name_of(SwapAlgorithm::Long), "Spread-roll (long)");
  EXPECT_STREQ(name_of(SwapAlgorithm::Mix), "Mix");
}

// What hpl_dat_text() writes reads back as the same tests, every field
// away from netlib's defaults so a value written to the wrong line shows.
TEST(HplDatWriter, WrittenFileReadsBackAsTheSameTests) {
  HplDat d;
  d.output_file = "tuned.out";
  d.device_out = 7;
  d.ns = {4000, 12345};
  d.nbs = {96, 256};
  d.pmap = GridOrder::ColumnMajor;
  d.grids = {{2, 3}, {1, 6}};
  d.threshold = 8.5;
  d.pfacts = {Factorization::Left, Factorization::Crout};
  d.nbmins = {2, 8};
  d.ndivs = {3};
  d.rfacts = {Factorization::Right};
  d.bcasts = {Broadcast::LongM, Broadcast::TwoRing};
  d.depths = {1, 0};
  d.swap = SwapAlgorithm::Long;
  d.swap_threshold = 32;
  d.l1_transposed = false;
  d.u_transposed = false;
  d.equilibration = false;
  d.alignment = 4;
  const std::string text = hpl_dat_text(d, "title\nwith a newline");
  EXPECT_EQ(text.substr(0, text.find('\n')), "title with a newline");
  const HplDat r = parse_hpl_dat_text(text, "written");
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.output_file, d.output_file);
  EXPECT_EQ(r.device_out, d.device_out);
  EXPECT_EQ(r.swap, d.swap);
  EXPECT_EQ(r.swap_threshold, d.swap_threshold);
  EXPECT_EQ(r.threshold, d.threshold);
  EXPECT_EQ(r.alignment, d.alignment);
  EXPECT_EQ(r.equilibration, d.equilibration);
  const auto want = expand_tests(d), got = expand_tests(r);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(variant_code(got[i]) + fmt::format(" {} {} {}x{} {}{}", got[i].n, got[i].nb,
                                                 got[i].grid.p, got[i].grid.q, got[i].l1_transposed,
                                                 got[i].u_transposed),
              variant_code(want[i]) + fmt::format(" {} {} {}x{} {}{}", want[i].n, want[i].nb,
                                                  want[i].grid.p, want[i].grid.q,
                                                  want[i].l1_transposed, want[i].u_transposed))
        << "test " << i;
}

// The example HPL.dat, read and written again, gives back its own lines
// but for the title.
TEST(HplDatWriter, ExampleFileRoundTripsLineForLine) {
  const HplDat d = parse_hpl_dat_file(example("HPL.dat"));
  const std::string text = hpl_dat_text(d, "title");
  std::ifstream in(example("HPL.dat"));
  std::stringstream orig;
  orig << in.rdbuf();
  auto values = [](const std::string& s) {
    std::vector<std::string> first;
    std::istringstream lines(s);
    int no = 0;
    for (std::string l; std::getline(lines, l);)
      if (++no > 2) first.push_back(l.substr(0, l.find_first_of(' ')));
    return first;
  };
  EXPECT_EQ(values(text), values(orig.str()));
}

}  // namespace
