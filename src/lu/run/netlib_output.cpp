// netlib HPL 2.3's text output. Formats, widths and line breaks follow
// HPL_pdinfo (parameter summary), HPL_pdtest (table, residual) and
// HPL_pddriver (summary) so that tools that parse xhpl output read ours.
// Only the banner differs: its title and author lines name hplx instead.
//
// Where the 80-'=' rules go: netlib prints one before every "T/V" header
// and one before "Finished"; here the rule that precedes a header comes at
// the end of the preamble or of the previous residual block, and the rule
// before "Finished" comes from print_summary only when no residual block
// has already printed it. The resulting byte stream is netlib's; the call
// sequence is documented in netlib_output.hpp.
#include "lu/run/netlib_output.hpp"

#include <string>

namespace hplx::lu {
namespace {

void rule(std::FILE* out, char c) {
  std::string line(80, c);
  line += '\n';
  std::fputs(line.c_str(), out);
}

// netlib's list layout: up to 8 items on the labelled line, items 9-16 on
// a continuation line, and all the rest on a third line. Every item is an
// 8-wide right-aligned field followed by one space.
template <class Seq, class Fmt>
void print_list(std::FILE* out, const char* label, const Seq& items, Fmt item) {
  std::fprintf(out, "\n%s:", label);
  std::size_t i = 0;
  for (const auto& v : items) {
    if (i == 8 || i == 16) std::fputs("\n        ", out);
    std::fprintf(out, "%8s ", item(v).c_str());
    ++i;
  }
}

std::string ctime_text(std::time_t t) {
  char buf[64];
  if (ctime_r(&t, buf) == nullptr) return "?\n";
  return buf;  // ends in '\n'
}

}  // namespace

void print_closing_rule(std::FILE* out) {
  rule(out, '=');
}

void print_preamble(std::FILE* out, const HplDat& dat, double eps) {
  rule(out, '=');
  std::fputs("hplx lu  --  High-Performance Linpack benchmark (netlib HPL 2.3 compatible)\n", out);
  std::fputs("hplx " HPLX_VERSION " (HPL 2.3 compatible): an independent implementation,\n", out);
  std::fputs("not netlib HPL; input file, output format and residual check follow HPL 2.3\n", out);
  rule(out, '=');

  std::fputs("\nAn explanation of the input/output parameters follows:\n", out);
  std::fputs("T/V    : Wall time / encoded variant.\n", out);
  std::fputs("N      : The order of the coefficient matrix A.\n", out);
  std::fputs("NB     : The partitioning blocking factor.\n", out);
  std::fputs("P      : The number of process rows.\n", out);
  std::fputs("Q      : The number of process columns.\n", out);
  std::fputs("Time   : Time in seconds to solve the linear system.\n", out);
  std::fputs("Gflops : Rate of execution for solving the linear system.\n\n", out);
  std::fputs("The following parameter values will be used:\n", out);

  auto num = [](auto v) { return std::to_string(v); };
  auto fact = [](Factorization f) { return std::string(name_of(f)); };
  std::vector<int> ps, qs;
  for (const GridShape& g : dat.grids) {
    ps.push_back(g.p);
    qs.push_back(g.q);
  }

  print_list(out, "N      ", dat.ns, num);
  print_list(out, "NB     ", dat.nbs, num);
  std::fprintf(out, "\nPMAP   : %s",
               dat.pmap == GridOrder::RowMajor ? "Row-major process mapping"
                                               : "Column-major process mapping");
  print_list(out, "P      ", ps, num);
  print_list(out, "Q      ", qs, num);
  print_list(out, "PFACT  ", dat.pfacts, fact);
  print_list(out, "NBMIN  ", dat.nbmins, num);
  print_list(out, "NDIV   ", dat.ndivs, num);
  print_list(out, "RFACT  ", dat.rfacts, fact);
  print_list(out, "BCAST  ", dat.bcasts, [](Broadcast b) { return std::string(name_of(b)); });
  print_list(out, "DEPTH  ", dat.depths, num);
  if (dat.swap == SwapAlgorithm::Mix) {
    std::fprintf(out, "\nSWAP   : Mix (threshold = %d)", dat.swap_threshold);
  } else {
    std::fprintf(out, "\nSWAP   : %s", name_of(dat.swap));
  }
  std::fprintf(out, "\nL1     : %s", dat.l1_transposed ? "transposed form" : "no-transposed form");
  std::fprintf(out, "\nU      : %s", dat.u_transposed ? "transposed form" : "no-transposed form");
  std::fprintf(out, "\nEQUIL  : %s", dat.equilibration ? "yes" : "no");
  std::fprintf(out, "\nALIGN  : %d double precision words", dat.alignment);
  std::fputs("\n\n", out);

  if (dat.threshold > 0.0) {
    rule(out, '-');
    std::fputs("\n", out);
    std::fputs("- The matrix A is randomly generated for each test.\n", out);
    std::fputs("- The following scaled residual check will be computed:\n", out);
    std::fputs("      ||Ax-b||_oo / ( eps * ( || x ||_oo * || A ||_oo + || b ||_oo ) * N )\n", out);
    std::fprintf(out, "- The relative machine precision (eps) is taken to be      %21.6e\n", eps);
    std::fprintf(out,
                 "- Computational tests pass if scaled residuals are less than         %11.1f\n\n",
                 dat.threshold);
  }
  // netlib prints this rule as the first line of the first "T/V" header.
  rule(out, '=');
}

void print_table_header(std::FILE* out) {
  std::fputs("T/V                N    NB     P     Q               Time                 Gflops\n",
             out);
  rule(out, '-');
}

void print_result(std::FILE* out, const TestCase& t, double seconds, double gflops,
                  std::time_t start, std::time_t end) {
  // netlib prints nothing for a test whose wall time is not positive.
  if (!(seconds > 0.0)) return;
  std::fprintf(out, "%s%12ld %5d %5d %5d %18.2f    %19.4e\n", variant_code(t).c_str(), t.n, t.nb,
               t.grid.p, t.grid.q, seconds, gflops);
  std::fprintf(out, "HPL_pdgesv() start time %s\n", ctime_text(start).c_str());
  std::fprintf(out, "HPL_pdgesv() end time   %s\n", ctime_text(end).c_str());
}

void print_residual(std::FILE* out, const ResidualReport& r) {
  const bool passed = r.scaled_residual < r.threshold;
  rule(out, '-');
  std::fprintf(out, "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= %16.8e ...... %s\n",
               r.scaled_residual, passed ? "PASSED" : "FAILED");
  if (!passed) {
    std::fprintf(out, "||Ax-b||_oo  . . . . . . . . . . . . . . . . . = %18.6f\n", r.residual);
    std::fprintf(out, "||A||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", r.a_norm_inf);
    std::fprintf(out, "||A||_1  . . . . . . . . . . . . . . . . . . . = %18.6f\n", r.a_norm_1);
    std::fprintf(out, "||x||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", r.x_norm_inf);
    std::fprintf(out, "||x||_1  . . . . . . . . . . . . . . . . . . . = %18.6f\n", r.x_norm_1);
    std::fprintf(out, "||b||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", r.b_norm_inf);
  }
  rule(out, '=');
}

void print_summary(std::FILE* out, const TestCounts& counts, double threshold) {
  const bool checking = threshold > 0.0;
  // Without checking, the rule after the last result line is still owed
  // (the table was opened by a header only if some test completed).
  if (!checking && counts.passed > 0) rule(out, '=');
  const int total = counts.passed + counts.failed + counts.skipped + counts.simulated;
  std::fprintf(out, "\nFinished %6d tests with the following results:\n", total);
  if (counts.simulated > 0)
    std::fprintf(out, "         %6d tests simulated (no matrix factored, no residual check),\n",
                 counts.simulated);
  if (checking) {
    std::fprintf(out, "         %6d tests completed and passed residual checks,\n", counts.passed);
    std::fprintf(out, "         %6d tests completed and failed residual checks,\n", counts.failed);
  } else {
    std::fprintf(out, "         %6d tests completed without checking,\n", counts.passed);
  }
  std::fprintf(out, "         %6d tests skipped because of illegal input values.\n",
               counts.skipped);
  rule(out, '-');
  std::fputs("\nEnd of Tests.\n", out);
  rule(out, '=');
}

}  // namespace hplx::lu
