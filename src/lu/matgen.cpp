// netlib HPL's pseudo-random matrix generator (see matgen.hpp).
//
// The generator is the affine map X -> a*X + 1 on 64-bit unsigned integers
// (wraparound is the mod 2^64). Jumping k steps ahead is the k-th power of
// that map, computed by repeated squaring.
#include "lu/matgen.hpp"

#include <algorithm>

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
          lda,
          0};
}

}  // namespace

void generate_local(long n, int nb, int nprow, int npcol, int myrow, int mycol, double* a,
                    long lda) {
  const long nq = local_count(n + 1, nb, mycol, npcol);
  if (local_count(n, nb, myrow, nprow) <= 0 || nq <= 0) return;
  device::host_for(nq, column_generator(n, nb, nprow, npcol, myrow, mycol, a, lda), 1);
}

void generate_matrix(device::Queue& q, LocalMatrix& a, const ProcessGrid& grid,
                     const std::function<void()>& slice_done, long slice_entries) {
  const long n = a.n();
  const int nb = a.nb();
  const long mp = local_count(n, nb, grid.myrow(), grid.nprow());
  const long nq = local_count(n + 1, nb, grid.mycol(), grid.npcol());
  if (mp <= 0 || nq <= 0) return;
  kernels::GenerateColumns body = column_generator(n, nb, grid.nprow(), grid.npcol(), grid.myrow(),
                                                   grid.mycol(), a.data(), a.lda());
  // A device generates the whole matrix at once (one thread per column needs
  // every column); the host's cores a slice at a time.
  const long slice =
      q.executes_on_host() && slice_done ? std::max(1L, std::min(nq, slice_entries / mp)) : nq;
  for (long first = 0; first < nq; first += slice) {
    body.first_column = first;
    device::launch(q, std::min(slice, nq - first), body, 1);
    if (slice < nq) {
      q.synchronize();
      slice_done();
    }
  }
}

}  // namespace hplx::lu
