#include "mxp_flags.hpp"

namespace hplx::app {

void add_mxp_flags(CLI::App& sub, MxpFlags& f) {
  // The reference's names (--nx=64, --rt=60) work too: CLI11 accepts
  // --name=value, and --rt is an alias of --time.
  sub.add_option("--nx", f.config.nx,
                 "local grid points in x per rank (multiple of 8; default 64, on cuda the "
                 "largest cube in 70% of the GPU's memory)");
  sub.add_option("--ny", f.config.ny,
                 "local grid points in y per rank (multiple of 8; default 64, on cuda the "
                 "largest cube in 70% of the GPU's memory)");
  sub.add_option("--nz", f.config.nz,
                 "local grid points in z per rank (multiple of 8; default 64, on cuda the "
                 "largest cube in 70% of the GPU's memory)");
  sub.add_option("--time,--rt", f.config.time,
                 "seconds each timed phase (mixed, double) fills with solves (default 60)");
  sub.add_option("--restart", f.config.restart, "GMRES restart length (default 30)");
  sub.add_option("--iterations", f.config.bench_iters,
                 "inner iterations per benchmark solve (default 300)");
  sub.add_option("--validation", f.validation,
                 "standard: first min(8, P) ranks, tolerance 1e-9; fullscale: all ranks, the "
                 "benchmark's problem, 10000-iteration cap (default standard)");
  sub.add_option("--precision", f.precision,
                 "mixed: GMRES-IR (float inner solver) against double GMRES; double: double "
                 "GMRES only (default mixed)");
  sub.add_option("--smoother", f.smoother,
                 "multicolor: 8-color parallel Gauss-Seidel; lexicographic: the reference's "
                 "sequential sweep in natural order, for iteration counts comparable with it "
                 "(default multicolor)");
  sub.add_option("--graphs", f.graphs,
                 "on: each V-cycle's launches captured once and replayed as one graph (CUDA "
                 "Graphs) where the device can and a rank has no neighbours; off: direct "
                 "launches (default on)");
  sub.add_option("--cgs2", f.cgs2,
                 "gemv: CGS2 as two GEMVs per pass (four reads of the basis); fused: three reads "
                 "(w -= Q h and the second pass's Q^T w together); the same method (default gemv)");
  sub.add_option("--npx", f.npx, "process grid in x (with --npy, --npz; default HPCG's choice)");
  sub.add_option("--npy", f.npy, "process grid in y");
  sub.add_option("--npz", f.npz, "process grid in z");
  sub.add_flag("--nonsymmetric", f.config.nonsymmetric,
               "the reference's nonsymmetric matrix (-1.5 / -0.5 below / above in z)");
  sub.add_option(
      "--expect-bandwidth", f.expect_gbs,
      "also print what this problem should rate on a device of this memory bandwidth per rank, "
      "in GB/s (each motif's modelled bytes at that bandwidth, times this run's penalty; e.g. "
      "H100 SXM 3350, H200 4800, A100 80GB 2039): the figure a first GPU run has to meet");
}

mxp::MxpConfig mxp_config_from_flags(const MxpFlags& f, int ranks) {
  mxp::MxpConfig c = f.config;
  c.validation = mxp::parse_validation_mode(f.validation);
  c.precision = mxp::parse_precision(f.precision);
  c.smoother = mxp::parse_smoother(f.smoother);
  c.kernels.graphs = mxp::parse_graphs(f.graphs);
  c.kernels.fused_cgs2 = mxp::parse_cgs2(f.cgs2);
  c.shape = {f.npx, f.npy, f.npz};
  mxp::check_config(c, ranks);
  if (f.expect_gbs) mxp::check_bandwidth_gbs(*f.expect_gbs);
  return c;
}

}  // namespace hplx::app
