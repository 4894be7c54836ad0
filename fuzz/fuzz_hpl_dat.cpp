// HPL.dat: parse_hpl_dat_text as `hplx lu FILE` calls it, then the test
// expansion and the variant codes the run prints.
#include <cmath>

#include "core/error.hpp"
#include "fuzz_check.hpp"
#include "lu/config.hpp"

namespace {

// expand_tests makes the product of the list lengths (up to 20^9); the run
// would too, so only small products are expanded here.
constexpr std::size_t kMaxExpanded = 4096;

void check(const hplx::lu::HplDat& d) {
  for (std::size_t list_size :
       {d.ns.size(), d.nbs.size(), d.grids.size(), d.pfacts.size(), d.nbmins.size(), d.ndivs.size(),
        d.rfacts.size(), d.bcasts.size(), d.depths.size()})
    FUZZ_CHECK(list_size >= 1 && list_size <= 20);
  for (long n : d.ns) FUZZ_CHECK(n >= 0);
  for (int nb : d.nbs) FUZZ_CHECK(nb >= 1);
  for (const auto& g : d.grids) FUZZ_CHECK(g.p >= 1 && g.q >= 1);
  for (int v : d.nbmins) FUZZ_CHECK(v >= 1);
  for (int v : d.ndivs) FUZZ_CHECK(v >= 2);
  for (int v : d.depths) FUZZ_CHECK(v >= 0);
  FUZZ_CHECK(std::isfinite(d.threshold));
  FUZZ_CHECK(d.swap_threshold >= 0);
  FUZZ_CHECK(d.alignment >= 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz_text(data, size);
  hplx::lu::HplDat dat;
  try {
    dat = hplx::lu::parse_hpl_dat_text(text, "fuzz/HPL.dat");
  } catch (const hplx::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).rfind("fuzz/HPL.dat:", 0) == 0);
    return 0;
  }
  check(dat);
  std::size_t product = 1;
  for (std::size_t n :
       {dat.ns.size(), dat.nbs.size(), dat.grids.size(), dat.pfacts.size(), dat.nbmins.size(),
        dat.ndivs.size(), dat.rfacts.size(), dat.bcasts.size(), dat.depths.size()})
    product *= n;
  if (product <= kMaxExpanded) {
    dat.schedule.split_auto = true;
    const auto tests = hplx::lu::expand_tests(dat);
    FUZZ_CHECK(tests.size() == product);
    for (const auto& t : tests) FUZZ_CHECK(hplx::lu::variant_code(t).size() >= 8);
  }
  return 0;
}
