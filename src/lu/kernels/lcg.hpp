// The generator of netlib HPL's matrix (lu/matgen.hpp) as kernel bodies
// use it: the LCG's step as an affine map, its constants, and the value of
// one state.
#pragma once

#include <cstdint>

#include "device/kernel_body.hpp"

namespace hplx::lu {

// An affine map x -> mul*x + add mod 2^64; the LCG step and its powers.
struct LcgJump {
  std::uint64_t mul = 1;
  std::uint64_t add = 0;
  HPLX_HD std::uint64_t apply(std::uint64_t x) const { return mul * x + add; }
};

constexpr std::uint64_t kLcgMultiplier = 6364136223846793005ULL;
constexpr std::uint64_t kLcgIncrement = 1;
constexpr std::uint64_t kLcgSeed = 100;

// The value f(X) of one generator state. Both halves are below 2^32, so the
// conversions are exact (and take the fast signed path). netlib divides by
// 2^31; multiplying by 2^-31 is the same operation bit for bit (a
// power-of-two scaling with no underflow).
HPLX_HD inline double lcg_value(std::uint64_t x) {
  constexpr double kTwoPowMinus31 = 1.0 / 2147483648.0;  // exactly 2^-31
  const double lo = static_cast<double>(static_cast<std::int64_t>(x & 0xFFFFFFFFULL));
  const double hi = static_cast<double>(static_cast<std::int64_t>(x >> 32));
  return 0.5 - ((lo * kTwoPowMinus31 * 0.5 + hi) * kTwoPowMinus31 * 0.5);
}

}  // namespace hplx::lu
