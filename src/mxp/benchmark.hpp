// hplx mxp: the HPG-MxP benchmark driver.
//
// Phases, as the benchmark defines them:
//   1. setup: geometry, the 4-level problem, the float copies;
//   2. validation (validation.hpp): n_double, n_mixed and the penalty;
//   3. benchmark: GMRES-IR solves from x = 0 of a fixed number of
//      iterations (tolerance 0), repeated until the requested time is
//      filled: one calibration solve, then ceil(time / its time) timed ones;
//   4. double reference: the same with double-precision GMRES;
//   5. the flop model (flop_model.hpp) over the timed solves gives raw
//      GFLOP/s; the rating is the benchmark phase's raw GFLOP/s times the
//      penalty (with --precision double, the double phase's, penalty 1).
// The report uses the reference's result keys; the JSON record holds the
// same data.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "mxp/coloring.hpp"
#include "mxp/flag_values.hpp"
#include "mxp/geometry.hpp"
#include "mxp/motif_stats.hpp"
#include "mxp/validation.hpp"

namespace hplx::mxp {

struct PhaseResult {
  Precision precision = Precision::Mixed;
  long calls = 0;
  long iterations = 0;       // per call
  double calibration_s = 0;  // the untimed first solve
  double seconds = 0;        // the timed solves (slowest rank)
  double final_relres = 0;   // of the last solve
  bool graphs = false;       // V-cycles replayed as graphs (Multigrid::replays; rank 0's)
  MotifStats stats;          // summed over the timed solves, this rank (bytes: all ranks)
  double gflops() const { return seconds > 0 ? stats.flops_total() / seconds / 1e9 : 0; }
};

struct LevelInfo {
  long long rows = 0, nnz = 0;
};

struct MxpResult {
  MxpConfig config;
  Geometry geom;
  int threads = 1;
  std::string backend;              // device::name_of the Context's device
  std::string backend_description;  // its describe() line
  std::vector<LevelInfo> levels;
  long long nnz_mg = 0;
  double setup_s = 0;
  ValidationResult validation;
  bool has_mixed = false;
  PhaseResult mixed, dbl;
  double rating = 0;
  bool valid = false;
};

// Collective over ctx.world(), on ctx.device() (its compute and transfer
// queues); ctx.log() (rank 0 only, may be null) gets a line per phase.
// ctx.trace() (may be null) gets a span per phase (setup, validation,
// calibration and timed solves of each precision) and, for the first timed
// solve of each phase only, a span per kernel (motif_stats.hpp).
MxpResult run_mxp(const Context& ctx, const MxpConfig& config);

// The reference's YAML-like report with its keys, then hplx's per-motif
// table; ends with the verdict line. `flat` (may be null) gets the same keys
// in the reference's report-file form, "Section::Key=value" per line.
void print_report(const MxpResult& r, std::FILE* out, std::FILE* flat = nullptr);

nlohmann::json to_json(const MxpResult& r);

}  // namespace hplx::mxp
