// This rank's DGEMM rate on the host's BLAS: what the default problem
// sizes of hplx lu and hplx hpl-mxp are chosen from.
#pragma once

namespace hplx::device {

// Gflop/s of a square DGEMM (C -= A B, n = 1024, or 2048 above 4 threads)
// on this rank: one warm-up call, then as many calls as take about 0.4 s.
// `threads` > 0 runs the probe with that many BLAS threads and restores the
// previous setting; 0 uses the current one.
double probe_dgemm_gflops(int threads);

}  // namespace hplx::device
