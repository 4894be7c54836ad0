// HPL.dat parsing (netlib HPL 2.3 layout, 31 lines) and test expansion.
//
// The reader is line oriented like netlib's: every line from 3 on has a
// fixed meaning, its values come first and whatever follows them is a
// comment. Unlike netlib, tokens are split on any whitespace, every number
// must be a whole number token (netlib's atoi would read "12.5" as 12 and
// "abc" as 0), and every problem is reported as one UsageError line:
//   FILE:LINE: <what> '<value>' <problem>; allowed: <what is allowed>
#include "lu/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/input_file.hpp"

namespace hplx::lu {
namespace {

constexpr int kMaxParam = 20;  // netlib's HPL_MAX_PARAM
constexpr int kDatLines = 31;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    std::size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A value quoted in a message: printable, on one line, not too long.
std::string quoted(std::string_view v) {
  constexpr std::size_t kMax = 60;
  std::string out;
  for (char c : v.substr(0, kMax)) {
    unsigned char u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? (c == '\t' ? ' ' : '?') : c;
  }
  if (v.size() > kMax) out += "...";
  return out;
}

enum class IntStatus { Ok, Malformed, Fraction, TooLarge, TooSmall };

// Whole-token decimal integer with an optional sign.
IntStatus parse_integer(std::string_view tok, long long& out) {
  std::string_view digits = tok;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty() || digits.front() == '+') return IntStatus::Malformed;
  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec == std::errc::result_out_of_range) {
    return digits.front() == '-' ? IntStatus::TooSmall : IntStatus::TooLarge;
  }
  if (ec == std::errc() && ptr == last) return IntStatus::Ok;
  // Something a C library would read as a number, but not a whole one.
  std::string copy(tok);
  char* end = nullptr;
  errno = 0;
  (void)std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() && *end == '\0') return IntStatus::Fraction;
  return IntStatus::Malformed;
}

// Could this token be meant as a number (rather than comment text)?
bool looks_numeric(std::string_view tok) {
  if (tok.empty()) return false;
  char c = tok.front();
  return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

class DatReader {
 public:
  DatReader(const std::string& text, std::string source, std::vector<std::string>& warnings)
      : source_(std::move(source)), warnings_(warnings) {
    std::string_view rest(text);
    while (!rest.empty()) {
      std::size_t nl = rest.find('\n');
      if (nl == std::string_view::npos) {
        lines_.push_back(rest);
        break;
      }
      lines_.push_back(rest.substr(0, nl));
      rest.remove_prefix(nl + 1);
    }
  }

  [[noreturn]] void fail(int line, std::string_view what, std::string_view value,
                         std::string_view problem, std::string_view allowed) const {
    throw UsageError(fmt::format("{}:{}: {} '{}' {}; allowed: {}", source_, line, what,
                                 quoted(value), problem, allowed));
  }

  void warn(int line, std::string_view what, std::string_view value, std::string_view problem,
            std::string_view became) {
    warnings_.push_back(fmt::format("{}:{}: {} '{}' {}; using {}, as netlib does", source_, line,
                                    what, quoted(value), problem, became));
  }

  // The tokens of line `no` (1-based); a missing line is an error that says
  // what the line should hold.
  std::vector<std::string_view> tokens(int no, std::string_view what, std::string_view allowed) {
    if (no > static_cast<int>(lines_.size())) {
      fail(no, what, "",
           fmt::format("is missing: the file ends after line {} (an HPL.dat has {} lines)",
                       lines_.size(), kDatLines),
           allowed);
    }
    return split_tokens(lines_[no - 1]);
  }

  std::string_view line_text(int no) const { return trim(lines_[no - 1]); }

  // The first token of a single-value line.
  std::string_view single(int no, std::string_view what, std::string_view allowed) {
    auto toks = tokens(no, what, allowed);
    if (toks.empty()) fail(no, what, "", "is missing (the line is empty)", allowed);
    return toks.front();
  }

  // An integer in [lo, hi]; below `lo` is reported with `low_problem`.
  long long integer(int no, std::string_view tok, std::string_view what, long long lo, long long hi,
                    std::string_view allowed) {
    long long v = 0;
    switch (parse_integer(tok, v)) {
      case IntStatus::Ok:
        break;
      case IntStatus::Malformed:
        fail(no, what, tok, "is not an integer", allowed);
      case IntStatus::Fraction:
        fail(no, what, tok,
             "is not an integer (no fractions or exponents; netlib would silently truncate it)",
             allowed);
      case IntStatus::TooLarge:
        fail(no, what, tok, fmt::format("is too large (the largest allowed is {})", hi), allowed);
      case IntStatus::TooSmall:
        fail(no, what, tok, fmt::format("is too small (the smallest allowed is {})", lo), allowed);
    }
    if (v > hi) {
      fail(no, what, tok, fmt::format("is too large (the largest allowed is {})", hi), allowed);
    }
    if (v < lo) {
      if (lo == 0) fail(no, what, tok, "is negative", allowed);
      if (lo > std::numeric_limits<int>::min()) {
        fail(no, what, tok, fmt::format("is less than {}", lo), allowed);
      }
      fail(no, what, tok, fmt::format("is too small (the smallest allowed is {})", lo), allowed);
    }
    return v;
  }

  // Any int (for values netlib remaps).
  int any_int(int no, std::string_view tok, std::string_view what, std::string_view allowed) {
    return static_cast<int>(integer(no, tok, what, std::numeric_limits<int>::min(),
                                    std::numeric_limits<int>::max(), allowed));
  }

  // A count line: 1..20.
  int count(int no, std::string_view what) {
    const std::string allowed = fmt::format("an integer 1..{} (netlib's HPL_MAX_PARAM)", kMaxParam);
    std::string_view tok = single(no, what, allowed);
    long long v = 0;
    IntStatus st = parse_integer(tok, v);
    if (st == IntStatus::Malformed || st == IntStatus::Fraction) {
      integer(no, tok, what, 1, kMaxParam, allowed);  // reports the token
    }
    if (st != IntStatus::Ok || v < 1 || v > kMaxParam) {
      fail(no, what, tok, "is out of range", allowed);
    }
    return static_cast<int>(v);
  }

  // The `n` value tokens of list line `no`, whose count is on `count_line`.
  // Tokens after the n values are the comment. A short list is reported as
  // such, also when comment text follows the values it does have.
  std::vector<std::string_view> list(int no, int n, int count_line, std::string_view what,
                                     std::string_view plural, std::string_view allowed_each) {
    const std::string allowed = fmt::format("{} value{} ({})", n, n == 1 ? "" : "s", allowed_each);
    auto toks = tokens(no, plural, allowed);
    const std::size_t want = static_cast<std::size_t>(n);
    if (toks.empty()) short_list(no, n, count_line, 0, plural, allowed);
    if (!looks_numeric(toks.front())) {
      fail(no, what, toks.front(), "is not an integer", allowed_each);
    }
    std::size_t given = std::min(toks.size(), want);
    for (std::size_t i = 1; i < given; ++i) {
      if (looks_numeric(toks[i])) continue;
      // Comment text, unless integers follow it: then it is a typo in the
      // list, which the value check reports.
      bool integers_follow = false;
      for (std::size_t k = i + 1; k < toks.size() && k < want; ++k) {
        long long ignored = 0;
        if (parse_integer(toks[k], ignored) == IntStatus::Ok) integers_follow = true;
      }
      if (!integers_follow) {
        given = i;
        break;
      }
    }
    if (given < want) short_list(no, n, count_line, given, plural, allowed);
    toks.resize(want);
    return toks;
  }

 private:
  [[noreturn]] void short_list(int no, int n, int count_line, std::size_t given,
                               std::string_view plural, std::string_view allowed) const {
    fail(no, plural, line_text(no),
         fmt::format("gives {} value{} but line {} says there are {}", given, given == 1 ? "" : "s",
                     count_line, n),
         allowed);
  }

  std::string source_;
  std::vector<std::string>& warnings_;
  std::vector<std::string_view> lines_;
};

Factorization to_factorization(DatReader& r, int no, std::string_view tok, std::string_view what) {
  constexpr std::string_view allowed = "0=Left, 1=Crout, 2=Right";
  int v = r.any_int(no, tok, what, allowed);
  switch (v) {
    case 0:
      return Factorization::Left;
    case 1:
      return Factorization::Crout;
    case 2:
      return Factorization::Right;
    default:
      r.warn(no, what, tok, "is not 0, 1 or 2", "2 (Right)");
      return Factorization::Right;
  }
}

Broadcast to_broadcast(DatReader& r, int no, std::string_view tok) {
  constexpr std::string_view allowed = "0=1ring, 1=1ringM, 2=2ring, 3=2ringM, 4=Blong, 5=BlongM";
  int v = r.any_int(no, tok, "BCAST", allowed);
  if (v >= 0 && v <= 5) return static_cast<Broadcast>(v);
  r.warn(no, "BCAST", tok, "is not 0..5", "1 (1ringM)");
  return Broadcast::OneRingM;
}

// Lines 3-4: where the output goes.
void read_output(DatReader& r, HplDat& d) {
  const long long int_max = std::numeric_limits<int>::max();
  // The name only matters for a file.
  const std::string dev_allowed =
      "an integer: 6=stdout, 7=stderr, anything else=the file on line 3";
  auto file_toks = r.tokens(3, "output file name", "a file name (line 3 of 31)");
  d.device_out = static_cast<int>(r.integer(4, r.single(4, "device out", dev_allowed), "device out",
                                            std::numeric_limits<int>::min(), int_max, dev_allowed));
  if (!file_toks.empty()) {
    d.output_file = std::string(file_toks.front());
  } else if (d.device_out != 6 && d.device_out != 7) {
    r.fail(3, "output file name", "", "is missing (device out on line 4 names a file)",
           "a file name, or 6/7 on line 4 for stdout/stderr");
  }
}

// Lines 5-13: the problems (Ns, NBs, the grids and their order) and the residual threshold.
void read_problems(DatReader& r, HplDat& d) {
  const long long int_max = std::numeric_limits<int>::max();
  const long long long_max = std::numeric_limits<long>::max();
  // Lines 5-6: Ns.
  int count = r.count(5, "number of Ns");
  d.ns.clear();
  for (auto t : r.list(6, count, 5, "N", "Ns", "integers >= 0")) {
    d.ns.push_back(static_cast<long>(r.integer(6, t, "N", 0, long_max, "integers >= 0")));
  }

  // Lines 7-8: NBs.
  count = r.count(7, "number of NBs");
  d.nbs.clear();
  for (auto t : r.list(8, count, 7, "NB", "NBs", "integers >= 1")) {
    d.nbs.push_back(static_cast<int>(r.integer(8, t, "NB", 1, int_max, "integers >= 1")));
  }

  // Line 9: PMAP. netlib: 1 is column-major, everything else row-major.
  {
    constexpr std::string_view allowed = "0=row-major, 1=column-major";
    std::string_view tok = r.single(9, "PMAP", allowed);
    int v = r.any_int(9, tok, "PMAP", allowed);
    if (v == 1) {
      d.pmap = GridOrder::ColumnMajor;
    } else {
      d.pmap = GridOrder::RowMajor;
      if (v != 0) r.warn(9, "PMAP", tok, "is not 0 or 1", "0 (row-major)");
    }
  }

  // Lines 10-12: grids.
  count = r.count(10, "number of process grids");
  auto ps = r.list(11, count, 10, "P", "Ps", "integers >= 1");
  auto qs = r.list(12, count, 10, "Q", "Qs", "integers >= 1");
  d.grids.clear();
  for (int i = 0; i < count; ++i) {
    GridShape g;
    g.p = static_cast<int>(r.integer(11, ps[i], "P", 1, int_max, "integers >= 1"));
    g.q = static_cast<int>(r.integer(12, qs[i], "Q", 1, int_max, "integers >= 1"));
    d.grids.push_back(g);
  }

  // Line 13: threshold, a finite double (<= 0 disables the check).
  {
    constexpr std::string_view allowed = "a finite number (<= 0 turns the residual check off)";
    std::string_view tok = r.single(13, "threshold", allowed);
    std::string copy(tok);
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str() || *end != '\0')
      r.fail(13, "threshold", tok, "is not a number", allowed);
    if (!std::isfinite(v)) r.fail(13, "threshold", tok, "is not a finite number", allowed);
    d.threshold = v;
  }
}

// Lines 14-25: how the panels are factored and broadcast, and the look-ahead depths.
void read_factorizations(DatReader& r, HplDat& d) {
  const long long int_max = std::numeric_limits<int>::max();
  // Lines 14-15: PFACTs.
  int count = r.count(14, "number of PFACTs");
  d.pfacts.clear();
  for (auto t : r.list(15, count, 14, "PFACT", "PFACTs", "values 0=Left, 1=Crout, 2=Right")) {
    d.pfacts.push_back(to_factorization(r, 15, t, "PFACT"));
  }

  // Lines 16-17: NBMINs.
  count = r.count(16, "number of NBMINs");
  d.nbmins.clear();
  for (auto t : r.list(17, count, 16, "NBMIN", "NBMINs", "integers >= 1")) {
    d.nbmins.push_back(static_cast<int>(r.integer(17, t, "NBMIN", 1, int_max, "integers >= 1")));
  }

  // Lines 18-19: NDIVs.
  count = r.count(18, "number of NDIVs");
  d.ndivs.clear();
  for (auto t : r.list(19, count, 18, "NDIV", "NDIVs", "integers >= 2")) {
    d.ndivs.push_back(static_cast<int>(r.integer(19, t, "NDIV", 2, int_max, "integers >= 2")));
  }

  // Lines 20-21: RFACTs.
  count = r.count(20, "number of RFACTs");
  d.rfacts.clear();
  for (auto t : r.list(21, count, 20, "RFACT", "RFACTs", "values 0=Left, 1=Crout, 2=Right")) {
    d.rfacts.push_back(to_factorization(r, 21, t, "RFACT"));
  }

  // Lines 22-23: BCASTs.
  count = r.count(22, "number of BCASTs");
  d.bcasts.clear();
  for (auto t : r.list(23, count, 22, "BCAST", "BCASTs",
                       "values 0=1ring, 1=1ringM, 2=2ring, 3=2ringM, 4=Blong, 5=BlongM")) {
    d.bcasts.push_back(to_broadcast(r, 23, t));
  }

  // Lines 24-25: DEPTHs.
  count = r.count(24, "number of DEPTHs");
  d.depths.clear();
  for (auto t : r.list(25, count, 24, "DEPTH", "DEPTHs", "integers >= 0")) {
    d.depths.push_back(static_cast<int>(r.integer(25, t, "DEPTH", 0, int_max, "integers >= 0")));
  }
}

// Lines 26-31: the row swap, the forms of L1 and U, equilibration and alignment.
void read_swap_and_forms(DatReader& r, HplDat& d) {
  // Line 26: SWAP. netlib: anything but 0, 1, 2 is the long (spread-roll) swap.
  {
    constexpr std::string_view allowed = "0=binary-exchange, 1=long, 2=mix";
    std::string_view tok = r.single(26, "SWAP", allowed);
    int v = r.any_int(26, tok, "SWAP", allowed);
    if (v >= 0 && v <= 2) {
      d.swap = static_cast<SwapAlgorithm>(v);
    } else {
      d.swap = SwapAlgorithm::Long;
      r.warn(26, "SWAP", tok, "is not 0, 1 or 2", "1 (long)");
    }
  }

  // Line 27: swapping threshold; netlib clamps negatives to 0.
  {
    constexpr std::string_view allowed = "integers >= 0";
    std::string_view tok = r.single(27, "swapping threshold", allowed);
    int v = r.any_int(27, tok, "swapping threshold", allowed);
    if (v < 0) {
      r.warn(27, "swapping threshold", tok, "is negative", "0");
      v = 0;
    }
    d.swap_threshold = v;
  }

  // Lines 28-29: L1 and U forms; netlib reads anything but 0/1 as 0.
  auto form = [&](int no, std::string_view what) {
    constexpr std::string_view allowed = "0=transposed, 1=no-transposed";
    std::string_view tok = r.single(no, what, allowed);
    int v = r.any_int(no, tok, what, allowed);
    if (v != 0 && v != 1) {
      r.warn(no, what, tok, "is not 0 or 1", "0 (transposed)");
      v = 0;
    }
    return v == 0;  // transposed
  };
  d.l1_transposed = form(28, "L1 form");
  d.u_transposed = form(29, "U form");

  // Line 30: equilibration; netlib reads anything but 0/1 as 1.
  {
    constexpr std::string_view allowed = "0=no, 1=yes";
    std::string_view tok = r.single(30, "EQUIL", allowed);
    int v = r.any_int(30, tok, "EQUIL", allowed);
    if (v != 0 && v != 1) {
      r.warn(30, "EQUIL", tok, "is not 0 or 1", "1 (yes)");
      v = 1;
    }
    d.equilibration = v == 1;
  }

  // Line 31: alignment in doubles; netlib uses 4 for values <= 0.
  {
    constexpr std::string_view allowed = "integers >= 1 (doubles)";
    std::string_view tok = r.single(31, "ALIGN", allowed);
    int v = r.any_int(31, tok, "ALIGN", allowed);
    if (v <= 0) {
      r.warn(31, "ALIGN", tok, "is not positive", "4");
      v = 4;
    }
    d.alignment = v;
  }
}

}  // namespace

HplDat parse_hpl_dat_text(const std::string& text, const std::string& source) {
  HplDat d;
  d.source = source;
  DatReader r(text, source, d.warnings);
  // Lines 1-2: free text. Still required, so a truncated file is caught.
  r.tokens(1, "title line", "any text (line 1 of 31)");
  r.tokens(2, "title line", "any text (line 2 of 31)");
  read_output(r, d);
  read_problems(r, d);
  read_factorizations(r, d);
  read_swap_and_forms(r, d);
  return d;
}

HplDat parse_hpl_dat_file(const std::string& path) {
  return parse_hpl_dat_text(
      read_input_file(path, "an HPL.dat in netlib's 31-line format, e.g. examples/HPL.dat"), path);
}

std::string choose_for_grid(TestCase& t) {
  Schedule& s = t.schedule;
  if (!s.split_auto || !s.update_on_device || s.kind != ScheduleKind::Bsp || t.grid.p <= 1 ||
      t.depth <= 0)
    return "";
  s.split = kAutoSplit;
  return fmt::format(
      "grid {}x{}, DEPTH {}: split update on (--split {}), hplx's choice for P > 1 with "
      "look-ahead and the update on a device (docs/PERFORMANCE.md); --split 0 turns it off",
      t.grid.p, t.grid.q, t.depth, kAutoSplit);
}

std::vector<TestCase> expand_tests(const HplDat& d) {
  std::vector<TestCase> out;
  out.reserve(d.grids.size() * d.ns.size() * d.nbs.size() * d.depths.size() * d.bcasts.size() *
              d.rfacts.size() * d.pfacts.size() * d.nbmins.size() * d.ndivs.size());
  TestCase t;
  t.pmap = d.pmap;
  t.swap = d.swap;
  t.swap_threshold = d.swap_threshold;
  t.l1_transposed = d.l1_transposed;
  t.u_transposed = d.u_transposed;
  t.equilibration = d.equilibration;
  t.alignment = d.alignment;
  t.schedule = d.schedule;
  for (const GridShape& g : d.grids) {
    t.grid = g;
    for (long n : d.ns) {
      t.n = n;
      for (int nb : d.nbs) {
        t.nb = nb;
        for (int depth : d.depths) {
          t.depth = depth;
          for (Broadcast b : d.bcasts) {
            t.bcast = b;
            for (Factorization rf : d.rfacts) {
              t.rfact = rf;
              for (Factorization pf : d.pfacts) {
                t.pfact = pf;
                for (int nbmin : d.nbmins) {
                  t.nbmin = nbmin;
                  for (int ndiv : d.ndivs) {
                    t.ndiv = ndiv;
                    out.push_back(t);
                    choose_for_grid(out.back());
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

namespace {
char letter_of(Factorization f) {
  switch (f) {
    case Factorization::Left:
      return 'L';
    case Factorization::Crout:
      return 'C';
    case Factorization::Right:
      break;
  }
  return 'R';
}
}  // namespace

std::string variant_code(const TestCase& t) {
  // netlib: "W%c%1d%c%c%1d%c%1d" - %1d is a minimum width, so values of 10
  // and more print all their digits.
  return fmt::format("W{}{}{}{}{}{}{}", t.pmap == GridOrder::RowMajor ? 'R' : 'C', t.depth,
                     static_cast<int>(t.bcast), letter_of(t.rfact), t.ndiv, letter_of(t.pfact),
                     t.nbmin);
}

const char* name_of(Factorization f) {
  switch (f) {
    case Factorization::Left:
      return "Left";
    case Factorization::Crout:
      return "Crout";
    case Factorization::Right:
      return "Right";
  }
  return "Right";
}

const char* name_of(Broadcast b) {
  switch (b) {
    case Broadcast::OneRing:
      return "1ring";
    case Broadcast::OneRingM:
      return "1ringM";
    case Broadcast::TwoRing:
      return "2ring";
    case Broadcast::TwoRingM:
      return "2ringM";
    case Broadcast::Long:
      return "Blong";
    case Broadcast::LongM:
      return "BlongM";
  }
  return "1ringM";
}

const char* name_of(SwapAlgorithm s) {
  switch (s) {
    case SwapAlgorithm::BinaryExchange:
      return "Binary-exchange";
    case SwapAlgorithm::Long:
      return "Spread-roll (long)";
    case SwapAlgorithm::Mix:
      return "Mix";
  }
  return "Spread-roll (long)";
}

const char* name_of(FactOn f) {
  return f == FactOn::Device ? "device" : "host";
}

const char* name_of(FactLeaf f) {
  return f == FactLeaf::Kernels ? "kernels" : f == FactLeaf::Fused3 ? "fused3" : "fused";
}

const char* name_of(ScheduleKind s) {
  return s == ScheduleKind::Dag ? "dag" : "bsp";
}

}  // namespace hplx::lu
