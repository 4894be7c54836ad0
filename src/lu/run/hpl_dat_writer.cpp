#include "lu/run/hpl_dat_writer.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace hplx::lu {
namespace {

// One line: the values in a 12-character column (wider when they need it),
// then the note.
std::string line(const std::string& values, const std::string& note) {
  return fmt::format("{:<12} {}\n", values, note);
}

template <typename T, typename F>
std::string joined(const std::vector<T>& v, F&& text) {
  std::string s;
  for (const T& x : v) s += (s.empty() ? "" : " ") + text(x);
  return s;
}

template <typename T>
std::string numbers(const std::vector<T>& v) {
  return joined(v, [](const T& x) { return fmt::format("{}", x); });
}

template <typename E>
std::string codes(const std::vector<E>& v) {
  return joined(v, [](E x) { return std::to_string(static_cast<int>(x)); });
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

std::string hpl_dat_text(const HplDat& dat, const std::string& title) {
  std::string s = one_line(title) + "\n";
  s += "Lines 1-2 are free text; on every later line the values come first, then a note\n";
  s += line(dat.output_file, "name of the output file, used when the next line is neither 6 nor 7");
  s += line(std::to_string(dat.device_out),
            "output device: 6=stdout, 7=stderr, any other number=the file above");
  s += line(std::to_string(dat.ns.size()), "how many problem sizes follow");
  s += line(numbers(dat.ns), "N");
  s += line(std::to_string(dat.nbs.size()), "how many block sizes follow");
  s += line(numbers(dat.nbs), "NB");
  s += line(dat.pmap == GridOrder::ColumnMajor ? "1" : "0",
            "PMAP: 0=row-major, 1=column-major placement of ranks on the grid");
  s += line(std::to_string(dat.grids.size()), "how many process grids follow");
  s += line(joined(dat.grids, [](const GridShape& g) { return std::to_string(g.p); }),
            "P (process rows)");
  s += line(joined(dat.grids, [](const GridShape& g) { return std::to_string(g.q); }),
            "Q (process columns)");
  // netlib's files write the threshold with a decimal point ("16.0").
  const double t = dat.threshold;
  s += line(t == static_cast<long>(t) ? fmt::format("{:.1f}", t) : fmt::format("{}", t),
            "residual threshold; a test passes below it, <=0 skips the check");
  s += line(std::to_string(dat.pfacts.size()), "how many panel factorizations follow");
  s += line(codes(dat.pfacts), "PFACT: 0=Left, 1=Crout, 2=Right");
  s += line(std::to_string(dat.nbmins.size()), "how many recursion stopping widths follow");
  s += line(numbers(dat.nbmins), "NBMIN, at least 1");
  s += line(std::to_string(dat.ndivs.size()), "how many recursion splits follow");
  s += line(numbers(dat.ndivs), "NDIV, at least 2");
  s += line(std::to_string(dat.rfacts.size()), "how many recursive factorizations follow");
  s += line(codes(dat.rfacts), "RFACT: 0=Left, 1=Crout, 2=Right");
  s += line(std::to_string(dat.bcasts.size()), "how many panel broadcasts follow");
  s += line(codes(dat.bcasts), "BCAST: 0=1ring, 1=1ringM, 2=2ring, 3=2ringM, 4=Blong, 5=BlongM");
  s += line(std::to_string(dat.depths.size()), "how many look-ahead depths follow");
  s += line(numbers(dat.depths), "DEPTH, at least 0");
  s += line(std::to_string(static_cast<int>(dat.swap)),
            "SWAP: 0=binary exchange, 1=spread-roll (long), 2=mix of the two");
  s += line(std::to_string(dat.swap_threshold), "swapping threshold in columns, used when SWAP=2");
  s += line(dat.l1_transposed ? "0" : "1", "L1 storage: 0=transposed, 1=no-transposed");
  s += line(dat.u_transposed ? "0" : "1", "U storage: 0=transposed, 1=no-transposed");
  s += line(dat.equilibration ? "1" : "0", "equilibration: 0=no, 1=yes");
  s += line(std::to_string(dat.alignment), "memory alignment in doubles, at least 1");
  return s;
}

}  // namespace hplx::lu
