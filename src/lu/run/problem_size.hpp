// Sizing the problem of `hplx lu` when no HPL.dat is given, and the memory
// one rank needs for a given test.
//
// The default problem should run for about a minute and fit in memory with
// room to spare. Its time comes from a short DGEMM probe: the LU update is
// DGEMM, and on a CPU node HPL sustains roughly kLuEfficiency of the DGEMM
// rate (the panel factorisation, swaps and broadcasts make up the rest).
#pragma once

#include <string>

namespace hplx::lu {

// Fraction of the DGEMM rate that a whole HPL run achieves on a CPU node
// (measured on a 2-core node: 71.7 Gflop/s LU at N = 17280 against a
// 78.9 Gflop/s DGEMM probe, 0.91; a little lower leaves room for MPI).
inline constexpr double kLuEfficiency = 0.85;
// Most of the available memory the default problem may take; the rest is
// left to MPI buffers, the OS and whatever else runs on the node.
inline constexpr double kMemoryLimitFraction = 0.80;
// Workspace beyond the N x (N+1) matrix, as a fraction of it.
inline constexpr double kWorkspaceFraction = 0.05;

struct DefaultProblem {
  long n = 0;
  int nb = 0;
  double probe_gflops = 0.0;             // aggregate DGEMM rate the choice used
  double predicted_seconds = 0.0;        // at kLuEfficiency of probe_gflops
  long long memory_needed_bytes = 0;     // matrix + workspace, all ranks together
  long long memory_available_bytes = 0;  // what the choice was capped against
  std::string reason;                    // one sentence for the log
};

// LU flop count of netlib HPL for order n: 2/3 n^3 + 3/2 n^2.
double lu_flops(long n);

// Matrix plus workspace of the default problem over `nprocs` ranks:
// 8 n (n+1) bytes, kWorkspaceFraction more, and panel buffers per rank.
long long default_problem_bytes(long n, int nb, int nprocs);

// The largest multiple of nb (at least nb) whose predicted time stays within
// target_seconds and whose memory stays within kMemoryLimitFraction of
// `aggregate_available_bytes` (the memory of the whole job: summed over
// nodes, not over ranks, since ranks on a node share it). Throws UsageError
// for a rate, memory, rank count, target or nb that is not positive.
DefaultProblem choose_default_problem(double aggregate_gflops, long long aggregate_available_bytes,
                                      int nprocs, double target_seconds = 60.0, int nb = 192);

// Peak bytes one rank holds in an HPL test of order n with blocks of nb on a
// nprow x npcol grid: its block-cyclic piece of the n x (n+1) matrix
// (process row and column 0 own the most), the panel workspace
// (local rows + nb) * nb * 3 doubles and U: nb * local columns with one
// process row, the row swaps' buffers (SwapBuffers::reserve) with more.
// The largest N, a multiple of nb, whose test on a p x q grid needs at most
// `fraction` of `bytes_per_rank` per rank (lu_memory_bytes); 0 when not
// even N = nb fits. How a device backend sizes its default problem: by the
// memory it has (rocHPL's and NVIDIA HPL's practice), not by time.
long largest_fitting_n(long long bytes_per_rank, double fraction, int nb, int p, int q);

// Saturates at the largest long long (more than any machine has) instead
// of overflowing, for any N a long holds.
long long lu_memory_bytes(long n, int nb, int nprow, int npcol);

}  // namespace hplx::lu
