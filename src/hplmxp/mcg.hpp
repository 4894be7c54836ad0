// The HPL-MxP matrix generator's random numbers: a 64-bit multiplicative
// congruential generator (MCG), state_{k+1} = a * state_k mod 2^64, state_0 = 1,
// each draw the high 32 bits of the new state mapped to [-0.5, 0.5] by
// u / (2^32 - 1) - 0.5.
//
// Checked against the reference implementation's matgen.c (github
// hpl-ai/hpl-ai, commit 033c484a2e85607e78e281b7d2055331aab65880): the same
// multiplier 14647171131086947261, initial state 1, "state >> 32" after the
// multiplication, division by UINT32_MAX, A filled column by column (element
// (i, j) of an n x n matrix is draw j * n + i + 1), then b (draws n*n + 1 ...
// n*n + n). The reference draws sequentially; here any draw is reached
// directly by raising a to the draw's number (square and multiply), so each
// process generates only its own blocks.
#pragma once

#include <cstdint>

namespace hplx::hplmxp {

inline constexpr std::uint64_t kMcgMultiplier = 14647171131086947261ULL;

// a^k mod 2^64: the state after k draws from state 1.
constexpr std::uint64_t mcg_state_after(std::uint64_t k) {
  std::uint64_t result = 1, base = kMcgMultiplier;
  while (k != 0) {
    if (k & 1) result *= base;
    base *= base;
    k >>= 1;
  }
  return result;
}

// The value of a draw from its state.
constexpr double mcg_value(std::uint64_t state) {
  return static_cast<double>(static_cast<std::uint32_t>(state >> 32)) / 4294967295.0 - 0.5;
}

// Draw number (1-based) of A(i, j), and of b(i), for order n.
constexpr std::uint64_t matrix_draw(long n, long i, long j) {
  return static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n) +
         static_cast<std::uint64_t>(i) + 1;
}
constexpr std::uint64_t rhs_draw(long n, long i) {
  return static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) +
         static_cast<std::uint64_t>(i) + 1;
}

}  // namespace hplx::hplmxp
