// netlib HPL's pseudo-random matrix generator: the known first values, the
// jump-ahead algebra, and the local generator against a naive sequence.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "lu/block_cyclic.hpp"
#include "lu/matgen.hpp"

namespace hplx::lu {
namespace {

std::uint64_t step(std::uint64_t x) {
  return kLcgMultiplier * x + kLcgIncrement;
}

// The whole [A | b] of order n, column-major with leading dimension n, by
// stepping the generator sequentially from X(0): X(1 + i + j*n) is entry (i, j).
std::vector<double> naive_matrix(long n) {
  std::vector<double> m(static_cast<std::size_t>(n * (n + 1)));
  std::uint64_t x = kLcgSeed;
  for (auto& v : m) {
    x = step(x);
    v = lcg_value(x);
  }
  return m;
}

TEST(Matgen, ConstantsMatchNetlib) {
  // hpl_matgen.h: HPL_MULT0 = 1284865837, HPL_MULT1 = 1481765933, HPL_IADD = 1.
  EXPECT_EQ(kLcgMultiplier, (std::uint64_t{1481765933} << 32) + 1284865837U);
  EXPECT_EQ(kLcgIncrement, 1U);
  EXPECT_EQ(kLcgSeed, 100U);
}

TEST(Matgen, KnownFirstValues) {
  const std::uint64_t x1 = step(kLcgSeed);
  const std::uint64_t x2 = step(x1);
  EXPECT_EQ(lcg_value(x1), -5.1599441937666413e-05);
  EXPECT_EQ(lcg_value(x2), 0.38413122531282284);
  for (long n : {2L, 3L, 7L, 1000L, 20000L}) {
    EXPECT_EQ(hpl_entry(n, 0, 0), -5.1599441937666413e-05) << "n=" << n;
    EXPECT_EQ(hpl_entry(n, 1, 0), 0.38413122531282284) << "n=" << n;
  }
}

TEST(Matgen, ValuesInHalfOpenInterval) {
  // f(X) lies in [-0.5, 0.5]; check a stretch of the sequence.
  std::uint64_t x = kLcgSeed;
  for (int k = 0; k < 100000; ++k) {
    x = step(x);
    const double v = lcg_value(x);
    ASSERT_GE(v, -0.5);
    ASSERT_LE(v, 0.5);
  }
  EXPECT_EQ(lcg_value(0), 0.5);
}

TEST(Matgen, EntryMatchesNaiveSequence) {
  for (long n : {1L, 2L, 7L, 13L}) {
    const auto m = naive_matrix(n);
    for (long j = 0; j <= n; ++j) {
      for (long i = 0; i < n; ++i) {
        ASSERT_EQ(hpl_entry(n, i, j), m[i + j * n]) << "n=" << n << " i=" << i << " j=" << j;
      }
    }
  }
}

TEST(Matgen, JumpEqualsRepeatedSteps) {
  for (std::uint64_t k : {0ULL, 1ULL, 2ULL, 3ULL, 1000ULL, 123456ULL}) {
    std::uint64_t x = kLcgSeed;
    for (std::uint64_t s = 0; s < k; ++s) x = step(x);
    EXPECT_EQ(lcg_jump(k).apply(kLcgSeed), x) << "k=" << k;
    // The map itself, not only its value at the seed.
    std::uint64_t y = 0xDEADBEEFCAFEF00DULL;
    for (std::uint64_t s = 0; s < k; ++s) y = step(y);
    EXPECT_EQ(lcg_jump(k).apply(0xDEADBEEFCAFEF00DULL), y) << "k=" << k;
  }
  EXPECT_EQ(lcg_jump(0).mul, 1U);
  EXPECT_EQ(lcg_jump(0).add, 0U);
  EXPECT_EQ(lcg_jump(1).mul, kLcgMultiplier);
  EXPECT_EQ(lcg_jump(1).add, kLcgIncrement);
}

TEST(Matgen, JumpComposes) {
  const std::uint64_t ks[] = {0,    1,      2,        3,          7,          64,
                              1000, 123456, 1u << 31, 4000000001, 1ULL << 40, ~0ULL / 3};
  for (std::uint64_t a : ks) {
    for (std::uint64_t b : ks) {
      const LcgJump ja = lcg_jump(a), jb = lcg_jump(b), jab = lcg_jump(a + b);
      // ja o jb
      EXPECT_EQ(jab.mul, ja.mul * jb.mul) << a << "+" << b;
      EXPECT_EQ(jab.add, ja.mul * jb.add + ja.add) << a << "+" << b;
      EXPECT_EQ(jab.apply(kLcgSeed), ja.apply(jb.apply(kLcgSeed))) << a << "+" << b;
    }
  }
  // The period is 2^64: jumping 2^64 steps (wrapping to 0) is the identity.
  std::uint64_t half = 1ULL << 63;
  const LcgJump full{lcg_jump(half).mul * lcg_jump(half).mul,
                     lcg_jump(half).mul * lcg_jump(half).add + lcg_jump(half).add};
  EXPECT_EQ(full.mul, 1U);
  EXPECT_EQ(full.add, 0U);
}

// The local part on a 1 x 1 grid is the whole matrix.
TEST(Matgen, GenerateSingleProcessMatchesNaive) {
  for (long n : {1L, 2L, 7L, 31L, 100L}) {
    const auto m = naive_matrix(n);
    for (int nb : {1, 3, 4, 64, 200}) {
      const long lda = n + 3;
      std::vector<double> a(static_cast<std::size_t>(lda * (n + 2)), 42.0);
      generate_local(n, nb, 1, 1, 0, 0, a.data(), lda);
      for (long j = 0; j < n + 2; ++j) {
        for (long i = 0; i < lda; ++i) {
          const double got = a[i + j * lda];
          if (i < n && j <= n) {
            ASSERT_EQ(got, m[i + j * n]) << "n=" << n << " nb=" << nb << " i=" << i << " j=" << j;
          } else {
            // Padding rows and the columns past n+1 stay untouched.
            ASSERT_EQ(got, 42.0) << "n=" << n << " nb=" << nb << " i=" << i << " j=" << j;
          }
        }
      }
    }
  }
}

// Every process of a few grids gets hpl_entry at its local entries, and
// together they cover the matrix exactly once.
TEST(Matgen, GenerateAllProcessesOfGrids) {
  struct Shape {
    int p, q;
  };
  for (long n : {1L, 5L, 17L, 50L}) {
    for (int nb : {1, 2, 5, 64}) {
      for (Shape s : {Shape{1, 2}, Shape{2, 1}, Shape{2, 3}, Shape{3, 2}, Shape{4, 4}}) {
        std::vector<int> seen(static_cast<std::size_t>(n * (n + 1)), 0);
        for (int r = 0; r < s.p; ++r) {
          for (int c = 0; c < s.q; ++c) {
            const long mp = local_count(n, nb, r, s.p);
            const long nq = local_count(n + 1, nb, c, s.q);
            const long lda = mp + 1;
            std::vector<double> a(static_cast<std::size_t>(lda * (nq + 1)), 7.0);
            generate_local(n, nb, s.p, s.q, r, c, a.data(), lda);
            for (long lj = 0; lj < nq + 1; ++lj) {
              for (long li = 0; li < lda; ++li) {
                const double got = a[li + lj * lda];
                if (li < mp && lj < nq) {
                  const long i = local_to_global(li, nb, r, s.p);
                  const long j = local_to_global(lj, nb, c, s.q);
                  ASSERT_LT(i, n);
                  ASSERT_LE(j, n);
                  ASSERT_EQ(got, hpl_entry(n, i, j))
                      << "n=" << n << " nb=" << nb << " grid " << s.p << "x" << s.q << " at (" << r
                      << "," << c << ") i=" << i << " j=" << j;
                  ++seen[i + j * n];
                } else {
                  ASSERT_EQ(got, 7.0);
                }
              }
            }
          }
        }
        for (int v : seen) ASSERT_EQ(v, 1);
      }
    }
  }
}

TEST(Matgen, GenerateLargeSpotChecks) {
  // N = 4000 on one process (and a 2 x 2 corner), checked at scattered entries.
  const long n = 4000;
  const int nb = 192;
  std::vector<double> a(static_cast<std::size_t>(n * (n + 1)));
  generate_local(n, nb, 1, 1, 0, 0, a.data(), n);
  for (long j = 0; j <= n; j += 397) {
    for (long i = 0; i < n; i += 131) ASSERT_EQ(a[i + j * n], hpl_entry(n, i, j));
    ASSERT_EQ(a[(n - 1) + j * n], hpl_entry(n, n - 1, j));
  }
  ASSERT_EQ(a[(n - 1) + n * n], hpl_entry(n, n - 1, n));

  const long mp = local_count(n, nb, 1, 2), nq = local_count(n + 1, nb, 1, 2);
  std::vector<double> b(static_cast<std::size_t>(mp * nq));
  generate_local(n, nb, 2, 2, 1, 1, b.data(), mp);
  for (long lj = 0; lj < nq; lj += 101) {
    for (long li = 0; li < mp; li += 37) {
      ASSERT_EQ(b[li + lj * mp],
                hpl_entry(n, local_to_global(li, nb, 1, 2), local_to_global(lj, nb, 1, 2)));
    }
  }
}

TEST(Matgen, EmptyShareLeavesBufferUntouched) {
  // n = 0: no rows anywhere; a process row beyond the rows gets nothing.
  double buf[4] = {1, 2, 3, 4};
  generate_local(0, 4, 1, 1, 0, 0, buf, 1);
  generate_local(3, 4, 2, 1, 1, 0, buf, 1);  // row 1 of 2 owns no row of 3 < nb
  EXPECT_EQ(buf[0], 1);
  EXPECT_EQ(buf[3], 4);
}

}  // namespace
}  // namespace hplx::lu
