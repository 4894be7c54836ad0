// netlib HPL's pseudo-random matrix generator (see matgen.hpp).
//
// The generator is the affine map X -> a*X + 1 on 64-bit unsigned integers
// (wraparound is the mod 2^64). Jumping k steps ahead is the k-th power of
// that map, computed by repeated squaring.
#include "lu/matgen.hpp"

#include "device/launch.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/kernels/matgen_kernel.hpp"

namespace hplx::lu {

namespace {

// (f o g)(x) = f(g(x)).
LcgJump compose(const LcgJump& f, const LcgJump& g) {
  return LcgJump{f.mul * g.mul, f.mul * g.add + f.add};
}

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

double hpl_entry(long n, long i, long j) {
  const std::uint64_t k = 1 + static_cast<std::uint64_t>(i) +
                          static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n);
  return lcg_value(lcg_jump(k).apply(kLcgSeed));
}

namespace {

kernels::GenerateColumns column_generator(long n, int nb, int nprow, int npcol, int myrow,
                                          int mycol, double* a, long lda) {
  const auto first_row = static_cast<std::uint64_t>(myrow) * nb;
  return {n,
          nb,
          npcol,
          mycol,
          local_count(n, nb, myrow, nprow),
          first_row,
          lcg_jump(1 + first_row),
          lcg_jump(static_cast<std::uint64_t>(n)),
          lcg_jump(static_cast<std::uint64_t>(nprow) * nb),
          lcg_jump(4),
          a,
          lda};
}

}  // namespace

void generate_local(long n, int nb, int nprow, int npcol, int myrow, int mycol, double* a,
                    long lda) {
  const long nq = local_count(n + 1, nb, mycol, npcol);
  if (local_count(n, nb, myrow, nprow) <= 0 || nq <= 0) return;
  device::host_for(nq, column_generator(n, nb, nprow, npcol, myrow, mycol, a, lda), 1);
}

void generate_local(device::Queue& q, long n, int nb, int nprow, int npcol, int myrow, int mycol,
                    double* a, long lda) {
  const long nq = local_count(n + 1, nb, mycol, npcol);
  if (local_count(n, nb, myrow, nprow) <= 0 || nq <= 0) return;
  device::launch(q, nq, column_generator(n, nb, nprow, npcol, myrow, mycol, a, lda), 1);
}

void generate_matrix(device::Queue& q, LocalMatrix& a, const ProcessGrid& grid) {
  generate_local(q, a.n(), a.nb(), grid.nprow(), grid.npcol(), grid.myrow(), grid.mycol(), a.data(),
                 a.lda());
}

}  // namespace hplx::lu
