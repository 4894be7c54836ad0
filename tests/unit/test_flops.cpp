// The HPL flop formulas of core/flops.hpp: the printed Gflops keep netlib's
// evaluation order (so the digits match xhpl's), and the per-panel flops
// add up to the whole count.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/flops.hpp"

namespace hplx {
namespace {

TEST(Flops, HplFlopsIsTwoThirdsNCubedPlusThreeHalvesNSquared) {
  EXPECT_DOUBLE_EQ(hpl_flops(1000), 2.0 / 3.0 * 1e9 + 1.5e6);
  EXPECT_EQ(hpl_flops(0), 0.0);
}

TEST(Flops, GflopsIsNetlibsExpressionBitForBit) {
  for (long n : {1000L, 4999L, 123457L}) {
    for (double s : {0.137, 2.5, 1234.5}) {
      const double dn = static_cast<double>(n);
      // HPL_pdtest: ((N / 1e9) * (N / time)) * (2/3 N + 3/2).
      const double netlib = ((dn / 1.0e9) * (dn / s)) * ((2.0 / 3.0) * dn + 1.5);
      EXPECT_EQ(hpl_gflops(n, s), netlib) << n << " " << s;
      EXPECT_NEAR(hpl_gflops(n, s), hpl_flops(dn) / s / 1e9, 1e-12 * hpl_gflops(n, s));
    }
  }
}

TEST(Flops, PanelFlopsAddUpToTheWhole) {
  for (long n : {1L, 97L, 1000L, 5003L}) {
    for (long nb : {1L, 32L, 192L}) {
      double sum = 0;
      for (long j = 0; j < n; j += nb) sum += panel_flops(n, j, std::min(nb, n - j));
      EXPECT_NEAR(sum, hpl_flops(static_cast<double>(n)), 1e-9 * hpl_flops(static_cast<double>(n)))
          << n << " " << nb;
    }
  }
}

}  // namespace
}  // namespace hplx
