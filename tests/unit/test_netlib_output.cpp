// netlib HPL 2.3 output: exact lines, as tools that parse xhpl output read
// them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "lu/config.hpp"
#include "lu/run/netlib_output.hpp"

namespace {

using namespace hplx::lu;

constexpr double kEps = 1.1102230246251565e-16;  // 2^-53

const std::string kEq(80, '=');
const std::string kDash(80, '-');

std::string capture(const std::function<void(std::FILE*)>& print) {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  EXPECT_NE(f, nullptr);
  print(f);
  std::fclose(f);
  std::string s(buf, size);
  std::free(buf);
  return s;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

class NetlibOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

HplDat netlib_default() {
  auto path = std::filesystem::path(__FILE__).parent_path() / ".." / ".." / "examples" /
              "netlib-default.dat";
  return parse_hpl_dat_file(path.lexically_normal().string());
}

TestCase wr00l2l2() {
  TestCase t;
  t.n = 29;
  t.nb = 1;
  t.grid = {2, 2};
  t.pmap = hplx::GridOrder::RowMajor;
  t.depth = 0;
  t.bcast = Broadcast::OneRing;
  t.rfact = Factorization::Left;
  t.pfact = Factorization::Left;
  t.ndiv = 2;
  t.nbmin = 2;
  return t;
}

TEST_F(NetlibOutput, ResultLineHasNetlibColumns) {
  // 86400 s after the epoch, in UTC.
  std::string out =
      capture([](std::FILE* f) { print_result(f, wr00l2l2(), 0.001, 1.0405e-02, 86400, 86401); });
  auto lines = lines_of(out);
  ASSERT_EQ(lines.size(), 5u) << out;
  // "W%c%1d%c%c%1d%c%1d%12d %5d %5d %5d %18.2f    %19.4e": 80 columns.
  EXPECT_EQ(lines[0],
            "WR00L2L2          29     1     2     2               0.00             1.0405e-02");
  EXPECT_EQ(lines[0].size(), 80u);
  // ctime() ends in '\n', and netlib adds another: a blank line after each.
  EXPECT_EQ(lines[1], "HPL_pdgesv() start time Fri Jan  2 00:00:00 1970");
  EXPECT_EQ(lines[2], "");
  EXPECT_EQ(lines[3], "HPL_pdgesv() end time   Fri Jan  2 00:00:01 1970");
  EXPECT_EQ(lines[4], "");
}

TEST_F(NetlibOutput, ResultLineWithLargeValues) {
  TestCase t = wr00l2l2();
  t.n = 116000;
  t.nb = 1024;
  t.grid = {1, 1};
  t.depth = 1;
  t.bcast = Broadcast::TwoRing;
  t.rfact = Factorization::Right;
  t.pfact = Factorization::Right;
  t.nbmin = 4;
  std::string out = capture([&](std::FILE* f) { print_result(f, t, 662.21, 1.5714e+03, 0, 0); });
  EXPECT_EQ(lines_of(out)[0],
            "WR12R2R4      116000  1024     1     1             662.21             1.5714e+03");
}

TEST_F(NetlibOutput, NoResultLineWithoutPositiveTime) {
  // netlib skips the line (and the times) when the wall time is not > 0.
  EXPECT_EQ(capture([](std::FILE* f) { print_result(f, wr00l2l2(), 0.0, 1.0, 0, 0); }), "");
}

TEST_F(NetlibOutput, TableHeader) {
  std::string out = capture([](std::FILE* f) { print_table_header(f); });
  EXPECT_EQ(out,
            "T/V                N    NB     P     Q               Time                 Gflops\n" +
                kDash + "\n");
}

TEST_F(NetlibOutput, ResidualPassesStrictlyBelowThreshold) {
  ResidualReport r;
  r.threshold = 16.0;
  r.scaled_residual = 3.80355268e-03;
  std::string out = capture([&](std::FILE* f) { print_residual(f, r); });
  EXPECT_EQ(out, kDash +
                     "\n||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   3.80355268e-03 ...... "
                     "PASSED\n" +
                     kEq + "\n");

  r.scaled_residual = 15.999999;
  EXPECT_NE(capture([&](std::FILE* f) { print_residual(f, r); }).find("...... PASSED"),
            std::string::npos);
}

TEST_F(NetlibOutput, ResidualAtThresholdFailsWithNorms) {
  ResidualReport r;
  r.threshold = 16.0;
  r.scaled_residual = 16.0;
  r.residual = 1.5e-9;
  r.a_norm_inf = 8.25;
  r.a_norm_1 = 8.5;
  r.x_norm_inf = 2.125;
  r.x_norm_1 = 30.0;
  r.b_norm_inf = 0.499;
  auto lines = lines_of(capture([&](std::FILE* f) { print_residual(f, r); }));
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[0], kDash);
  EXPECT_EQ(lines[1],
            "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   1.60000000e+01 ...... FAILED");
  EXPECT_EQ(lines[2], "||Ax-b||_oo  . . . . . . . . . . . . . . . . . =           0.000000");
  EXPECT_EQ(lines[3], "||A||_oo . . . . . . . . . . . . . . . . . . . =           8.250000");
  EXPECT_EQ(lines[4], "||A||_1  . . . . . . . . . . . . . . . . . . . =           8.500000");
  EXPECT_EQ(lines[5], "||x||_oo . . . . . . . . . . . . . . . . . . . =           2.125000");
  EXPECT_EQ(lines[6], "||x||_1  . . . . . . . . . . . . . . . . . . . =          30.000000");
  EXPECT_EQ(lines[7], "||b||_oo . . . . . . . . . . . . . . . . . . . =           0.499000");
  EXPECT_EQ(lines[8], kEq);

  r.scaled_residual = std::nan("");  // never passes
  EXPECT_NE(capture([&](std::FILE* f) { print_residual(f, r); }).find("FAILED"), std::string::npos);
}

TEST_F(NetlibOutput, SummaryWithChecking) {
  TestCounts c;
  c.passed = 860;
  c.failed = 3;
  c.skipped = 1;
  std::string out = capture([&](std::FILE* f) { print_summary(f, c, 16.0); });
  EXPECT_EQ(out,
            "\nFinished    864 tests with the following results:\n"
            "            860 tests completed and passed residual checks,\n"
            "              3 tests completed and failed residual checks,\n"
            "              1 tests skipped because of illegal input values.\n" +
                kDash + "\n\nEnd of Tests.\n" + kEq + "\n");
}

TEST_F(NetlibOutput, SummaryWithoutChecking) {
  TestCounts c;
  c.passed = 2;
  std::string out = capture([&](std::FILE* f) { print_summary(f, c, 0.0); });
  EXPECT_EQ(out, kEq +
                     "\n\nFinished      2 tests with the following results:\n"
                     "              2 tests completed without checking,\n"
                     "              0 tests skipped because of illegal input values.\n" +
                     kDash + "\n\nEnd of Tests.\n" + kEq + "\n");
}

// hplx sim's tests are neither passed nor failed: nothing was factored.
TEST_F(NetlibOutput, SummaryOfSimulatedTestsClaimsNoResidual) {
  TestCounts c;
  c.simulated = 3;
  std::string out = capture([&](std::FILE* f) { print_summary(f, c, 16.0); });
  EXPECT_EQ(out,
            "\nFinished      3 tests with the following results:\n"
            "              3 tests simulated (no matrix factored, no residual check),\n"
            "              0 tests completed and passed residual checks,\n"
            "              0 tests completed and failed residual checks,\n"
            "              0 tests skipped because of illegal input values.\n" +
                kDash + "\n\nEnd of Tests.\n" + kEq + "\n");
}

TEST_F(NetlibOutput, PreambleListsEveryParameterLikeNetlib) {
  std::string out = capture([](std::FILE* f) { print_preamble(f, netlib_default(), kEps); });
  auto lines = lines_of(out);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], kEq);
  EXPECT_EQ(lines[1],
            "hplx lu  --  High-Performance Linpack benchmark (netlib HPL 2.3 compatible)");
  EXPECT_EQ(lines[2].rfind("hplx " HPLX_VERSION " (HPL 2.3 compatible)", 0), 0u) << lines[2];
  EXPECT_EQ(lines[4], kEq);
  std::vector<std::string> rest(lines.begin() + 5, lines.end());
  std::vector<std::string> expected = {
      "",
      "An explanation of the input/output parameters follows:",
      "T/V    : Wall time / encoded variant.",
      "N      : The order of the coefficient matrix A.",
      "NB     : The partitioning blocking factor.",
      "P      : The number of process rows.",
      "Q      : The number of process columns.",
      "Time   : Time in seconds to solve the linear system.",
      "Gflops : Rate of execution for solving the linear system.",
      "",
      "The following parameter values will be used:",
      "",
      "N      :      29       30       34       35 ",
      "NB     :       1        2        3        4 ",
      "PMAP   : Row-major process mapping",
      "P      :       2        1        4 ",
      "Q      :       2        4        1 ",
      "PFACT  :    Left    Crout    Right ",
      "NBMIN  :       2        4 ",
      "NDIV   :       2 ",
      "RFACT  :    Left    Crout    Right ",
      "BCAST  :   1ring ",
      "DEPTH  :       0 ",
      "SWAP   : Mix (threshold = 64)",
      "L1     : transposed form",
      "U      : transposed form",
      "EQUIL  : yes",
      "ALIGN  : 8 double precision words",
      "",
      kDash,
      "",
      "- The matrix A is randomly generated for each test.",
      "- The following scaled residual check will be computed:",
      "      ||Ax-b||_oo / ( eps * ( || x ||_oo * || A ||_oo + || b ||_oo ) * N )",
      "- The relative machine precision (eps) is taken to be               1.110223e-16",
      "- Computational tests pass if scaled residuals are less than                16.0",
      "",
      kEq,  // netlib's first line of the first T/V header
  };
  EXPECT_EQ(rest, expected);
}

TEST_F(NetlibOutput, PreambleOtherSettingsAndLongLists) {
  HplDat d = netlib_default();
  d.ns.clear();
  for (long n = 1; n <= 20; ++n) d.ns.push_back(n * 1000);
  d.pmap = hplx::GridOrder::ColumnMajor;
  d.bcasts = {Broadcast::OneRing,  Broadcast::OneRingM, Broadcast::TwoRing,
              Broadcast::TwoRingM, Broadcast::Long,     Broadcast::LongM};
  d.swap = SwapAlgorithm::BinaryExchange;
  d.l1_transposed = false;
  d.u_transposed = false;
  d.equilibration = false;
  d.alignment = 4;
  d.threshold = 0.0;
  std::string out = capture([&](std::FILE* f) { print_preamble(f, d, kEps); });
  auto has = [&](const std::string& s) { return out.find(s) != std::string::npos; };
  EXPECT_TRUE(
      has("\nN      :    1000     2000     3000     4000     5000     6000     7000     8000 "
          "\n            9000    10000    11000    12000    13000    14000    15000    16000 "
          "\n           17000    18000    19000    20000 \nNB     :"))
      << out;
  EXPECT_TRUE(has("\nPMAP   : Column-major process mapping\n"));
  EXPECT_TRUE(has("\nBCAST  :   1ring   1ringM    2ring   2ringM    Blong   BlongM \n"));
  EXPECT_TRUE(has("\nSWAP   : Binary-exchange\n"));
  EXPECT_TRUE(has("\nL1     : no-transposed form\n"));
  EXPECT_TRUE(has("\nU      : no-transposed form\n"));
  EXPECT_TRUE(has("\nEQUIL  : no\n"));
  EXPECT_TRUE(has("\nALIGN  : 4 double precision words\n"));
  // No residual check: no check preamble, straight to the table's rule.
  EXPECT_FALSE(has("scaled residual"));
  const std::string tail = "words\n\n" + kEq + "\n";
  EXPECT_EQ(out.substr(out.size() - tail.size()), tail);

  d.swap = SwapAlgorithm::Long;
  out = capture([&](std::FILE* f) { print_preamble(f, d, kEps); });
  EXPECT_TRUE(has("\nSWAP   : Spread-roll (long)\n"));
}

// The documented call sequence gives netlib's stream: one '=' rule before
// every header and before "Finished", never two in a row.
TEST_F(NetlibOutput, SequenceWithCheckingMatchesNetlibStream) {
  HplDat d = netlib_default();
  ResidualReport r;
  r.threshold = d.threshold;
  r.scaled_residual = 1.93387398e-03;
  TestCounts c;
  std::string out = capture([&](std::FILE* f) {
    print_preamble(f, d, kEps);
    for (int i = 0; i < 2; ++i) {
      print_table_header(f);
      print_result(f, wr00l2l2(), 0.01, 2.5, 0, 0);
      print_residual(f, r);
      ++c.passed;
    }
    print_summary(f, c, d.threshold);
  });
  std::string test_block =
      "T/V                N    NB     P     Q               Time                 Gflops\n" + kDash +
      "\nWR00L2L2          29     1     2     2               0.01             2.5000e+00\n"
      "HPL_pdgesv() start time Thu Jan  1 00:00:00 1970\n\n"
      "HPL_pdgesv() end time   Thu Jan  1 00:00:00 1970\n\n" +
      kDash +
      "\n||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   1.93387398e-03 ...... PASSED\n" + kEq +
      "\n";
  std::string expected_tail = "less than                16.0\n\n" + kEq + "\n" + test_block +
                              test_block +
                              "\nFinished      2 tests with the following results:\n"
                              "              2 tests completed and passed residual checks,\n"
                              "              0 tests completed and failed residual checks,\n"
                              "              0 tests skipped because of illegal input values.\n" +
                              kDash + "\n\nEnd of Tests.\n" + kEq + "\n";
  ASSERT_GE(out.size(), expected_tail.size());
  EXPECT_EQ(out.substr(out.size() - expected_tail.size()), expected_tail);
  EXPECT_EQ(out.find(kEq + "\n" + kEq), std::string::npos);
}

TEST_F(NetlibOutput, SequenceWithoutCheckingMatchesNetlibStream) {
  HplDat d = netlib_default();
  d.threshold = -1.0;
  TestCounts c;
  std::string out = capture([&](std::FILE* f) {
    print_preamble(f, d, kEps);
    for (int i = 0; i < 2; ++i) {
      if (i == 0) print_table_header(f);
      print_result(f, wr00l2l2(), 0.01, 2.5, 0, 0);
      ++c.passed;
    }
    print_summary(f, c, d.threshold);
  });
  std::string result =
      "WR00L2L2          29     1     2     2               0.01             2.5000e+00\n"
      "HPL_pdgesv() start time Thu Jan  1 00:00:00 1970\n\n"
      "HPL_pdgesv() end time   Thu Jan  1 00:00:00 1970\n\n";
  std::string expected_tail =
      "ALIGN  : 8 double precision words\n\n" + kEq +
      "\nT/V                N    NB     P     Q               Time                 Gflops\n" +
      kDash + "\n" + result + result + kEq +
      "\n\nFinished      2 tests with the following results:\n"
      "              2 tests completed without checking,\n"
      "              0 tests skipped because of illegal input values.\n" +
      kDash + "\n\nEnd of Tests.\n" + kEq + "\n";
  ASSERT_GE(out.size(), expected_tail.size());
  EXPECT_EQ(out.substr(out.size() - expected_tail.size()), expected_tail);
}

TEST_F(NetlibOutput, NoTestsRunStillOneRuleBeforeFinished) {
  HplDat d = netlib_default();
  for (double thr : {16.0, 0.0}) {
    d.threshold = thr;
    TestCounts c;
    c.skipped = 3;
    std::string out = capture([&](std::FILE* f) {
      print_preamble(f, d, kEps);
      print_summary(f, c, thr);
    });
    EXPECT_NE(out.find("\n\n" + kEq + "\n\nFinished      3 tests"), std::string::npos) << out;
    EXPECT_EQ(out.find(kEq + "\n" + kEq), std::string::npos);
  }
}

}  // namespace
