// netlib HPL's pseudo-random matrix generator (see matgen.hpp).
//
// The generator is the affine map X -> a*X + 1 on 64-bit unsigned integers
// (wraparound is the mod 2^64). Jumping k steps ahead is the k-th power of
// that map, computed by repeated squaring.
#include "lu/matgen.hpp"

#include "lu/block_cyclic.hpp"

namespace hplx::lu {

namespace {

// (f o g)(x) = f(g(x)).
LcgJump compose(const LcgJump& f, const LcgJump& g) {
  return LcgJump{f.mul * g.mul, f.mul * g.add + f.add};
}

constexpr double kTwoPowMinus31 = 1.0 / 2147483648.0;  // exactly 2^-31

}  // namespace

LcgJump lcg_jump(std::uint64_t steps) {
  LcgJump result;  // identity
  LcgJump power{kLcgMultiplier, kLcgIncrement};
  while (steps != 0) {
    // All powers of one map commute, so the order of composition is free.
    if (steps & 1U) result = compose(power, result);
    power = compose(power, power);
    steps >>= 1;
  }
  return result;
}

double lcg_value(std::uint64_t x) {
  // Both halves are below 2^32, so the conversions are exact (and take the
  // fast signed path). netlib divides by 2^31; multiplying by 2^-31 is the
  // same operation bit for bit (a power-of-two scaling with no underflow).
  const double lo = static_cast<double>(static_cast<std::int64_t>(x & 0xFFFFFFFFULL));
  const double hi = static_cast<double>(static_cast<std::int64_t>(x >> 32));
  return 0.5 - ((lo * kTwoPowMinus31 * 0.5 + hi) * kTwoPowMinus31 * 0.5);
}

double hpl_entry(long n, long i, long j) {
  const std::uint64_t k = 1 + static_cast<std::uint64_t>(i) +
                          static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n);
  return lcg_value(lcg_jump(k).apply(kLcgSeed));
}

void generate_local(long n, int nb, int nprow, int npcol, int myrow, int mycol, double* a,
                    long lda) {
  const long mp = local_count(n, nb, myrow, nprow);
  const long nq = local_count(n + 1, nb, mycol, npcol);
  if (mp <= 0 || nq <= 0) return;

  const auto un = static_cast<std::uint64_t>(n);
  // From the first row of one local row block to the first row of the next.
  const LcgJump next_block = lcg_jump(static_cast<std::uint64_t>(nprow) * nb);
  const LcgJump step4 = lcg_jump(4);
  // Global row of local row 0.
  const auto first_row = static_cast<std::uint64_t>(myrow) * nb;

#pragma omp parallel for schedule(static)
  for (long lj = 0; lj < nq; ++lj) {
    const auto j = static_cast<std::uint64_t>(local_to_global(lj, nb, mycol, npcol));
    double* col = a + lj * lda;
    std::uint64_t block_start = lcg_jump(1 + first_row + j * un).apply(kLcgSeed);
    for (long li0 = 0; li0 < mp; li0 += nb) {
      const long li1 = li0 + nb < mp ? li0 + nb : mp;
      // Four interleaved streams (rows li, li+1, li+2, li+3, each stepping
      // by 4) break the latency chain of the sequential recurrence.
      std::uint64_t x0 = block_start;
      std::uint64_t x1 = kLcgMultiplier * x0 + kLcgIncrement;
      std::uint64_t x2 = kLcgMultiplier * x1 + kLcgIncrement;
      std::uint64_t x3 = kLcgMultiplier * x2 + kLcgIncrement;
      long li = li0;
      for (; li + 4 <= li1; li += 4) {
        col[li] = lcg_value(x0);
        col[li + 1] = lcg_value(x1);
        col[li + 2] = lcg_value(x2);
        col[li + 3] = lcg_value(x3);
        x0 = step4.apply(x0);
        x1 = step4.apply(x1);
        x2 = step4.apply(x2);
        x3 = step4.apply(x3);
      }
      // At most three rows left: x0, x1, x2 are their states.
      if (li < li1) col[li++] = lcg_value(x0);
      if (li < li1) col[li++] = lcg_value(x1);
      if (li < li1) col[li++] = lcg_value(x2);
      block_start = next_block.apply(block_start);
    }
  }
}

}  // namespace hplx::lu
