// netlib HPL's pseudo-random matrix: entry (i, j) of the N x (N+1) matrix
// [A | b] (0-based, b is column N) is f(X(1 + i + j*N)) where
//   X(k+1) = a*X(k) + 1 mod 2^64, a = 6364136223846793005, X(0) = 100,
//   f(X) = 0.5 - ((lo / 2^31 * 0.5 + hi) / 2^31 * 0.5), lo/hi its 32-bit halves.
// The same values as HPL_pdmatgen for the same N, whatever P, Q and NB.
#pragma once

#include <cstdint>
#include <functional>

#include "core/grid.hpp"
#include "device/kernel_body.hpp"
#include "device/queue.hpp"
#include "lu/kernels/lcg.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

// The map that advances the generator by `steps` (by squaring, O(log steps)).
LcgJump lcg_jump(std::uint64_t steps);

// Entry (i, j) of [A | b] for order n, computed directly (for tests and checks).
double hpl_entry(long n, long i, long j);

// Fills the local part of the block-cyclic [A | b] (n rows, n+1 columns,
// blocks nb x nb over an nprow x npcol grid) owned by (myrow, mycol) into
// `a` with leading dimension lda. Columns beyond the local share of n+1 are
// untouched.
void generate_local(long n, int nb, int nprow, int npcol, int myrow, int mycol, double* a,
                    long lda);

// [A | b] of order a.n() into this process's local matrix, on `q`. On a
// queue that runs on the host's cores, with `slice_done`, the columns are
// made a slice of about `slice_entries` entries at a time and
// `slice_done()` is called after each: a generation of minutes at full
// memory shows its progress (the watchdog's marks). A device makes them in
// one launch.
void generate_matrix(device::Queue& q, LocalMatrix& a, const ProcessGrid& grid,
                     const std::function<void()>& slice_done = {}, long slice_entries = 1L << 24);

}  // namespace hplx::lu
