// netlib HPL 2.3's output, byte for byte where parsers look: the banner, the
// parameter summary, the T/V table lines, the residual line and the closing
// summary. All functions write to a FILE* (stdout or the HPL.dat file).
//
// Call sequence that reproduces netlib's stream exactly (rank 0 only):
//
//   print_preamble(out, dat, eps);               // ends with the '=' rule
//   bool first = true;
//   for (const TestCase& t : expand_tests(dat)) {
//     // tests skipped before solving (illegal input, no memory): no output
//     if (dat.threshold > 0 || first) print_table_header(out);
//     first = false;
//     ... solve ...
//     print_result(out, t, seconds, gflops, start, end);
//     if (dat.threshold > 0) print_residual(out, report);  // ends with '='
//   }
//   print_summary(out, counts, dat.threshold);
//
// netlib prints the 80-'=' rule as the first line of each "T/V" header and
// once more before "Finished". Here that rule is printed by whatever came
// just before: the preamble, the residual block, or (threshold <= 0, where
// there is no residual block) print_summary. With threshold > 0 a header is
// printed before every test, with threshold <= 0 only before the first.
// A test skipped after its header was printed (netlib: the solver returned
// info != 0, only possible with threshold > 0) prints no residual block, so
// call print_closing_rule() after its message to keep the rule in place.
#pragma once

#include <cstdio>
#include <ctime>

#include "lu/config.hpp"

namespace hplx::lu {

struct TestCounts {
  int passed = 0;     // completed and passed (or completed without checking)
  int failed = 0;     // completed and failed the residual check
  int skipped = 0;    // skipped because of illegal input values
  int simulated = 0;  // run by hplx sim: timed, nothing factored, nothing checked
};

// Banner, the explanation of T/V ... Gflops, "The following parameter values
// will be used:" with every list, and the residual-check preamble (eps shown
// as netlib shows it, 1.110223e-16).
void print_preamble(std::FILE* out, const HplDat& dat, double eps);

// The "T/V  N  NB  P  Q  Time  Gflops" header and the '-' rule under it
// (the '=' rule above it is printed by the preamble or by print_residual).
void print_table_header(std::FILE* out);

// One result line in netlib's format
// "W%c%1d%c%c%1d%c%1d%12d %5d %5d %5d %18.2f    %19.4e", then the
// "HPL_pdgesv() start time" / "end time" lines (ctime format, blank line after each).
// Like netlib, prints nothing at all when `seconds` is not positive.
void print_result(std::FILE* out, const TestCase& t, double seconds, double gflops,
                  std::time_t start, std::time_t end);

struct ResidualReport {
  double scaled_residual = 0;  // ||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)
  double threshold = 16.0;
  double residual = 0;  // ||Ax-b||_oo
  double a_norm_inf = 0, a_norm_1 = 0, x_norm_inf = 0, x_norm_1 = 0, b_norm_inf = 0;
};

// The rule, the "||Ax-b||_oo/(...)= %16.8e ...... PASSED|FAILED" line (and on
// FAILED the six norm lines, as netlib), then the closing '=' rule.
void print_residual(std::FILE* out, const ResidualReport& r);

// "Finished N tests with the following results:" ... "End of Tests.".
// threshold <= 0 prints netlib's "completed without checking" form, and
// first the '=' rule that closes the table when some test completed.
void print_summary(std::FILE* out, const TestCounts& counts, double threshold);

// The 80-'=' rule alone, for a test skipped after its header (see above).
void print_closing_rule(std::FILE* out);

}  // namespace hplx::lu
