// Random test data, the same on every rank for the same seed.
#pragma once

#include <random>
#include <vector>

namespace hplx::test {

inline std::vector<double> random_values(long n, unsigned seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(gen);
  return v;
}

}  // namespace hplx::test
