// hplx lu --preflight: before the matrix is allocated, every rank measures
// its node for a short, fixed time as the run will use it (DGEMM at the
// run's update shape on its backend, its memory bandwidth, its links to
// its process row's and column's neighbours), and the ranks more than a
// threshold below the others' median are named in one line each
// (core/node_probes.hpp). Where the first round names a rank (and took at
// most 3 s), every rank measures a second round, the named ranks' hosts
// and the others in turns, and each figure is the better of the two, so
// that a burst on a healthy node is not named. `strict` stops the job
// there.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/context.hpp"
#include "lu/config.hpp"

namespace hplx::lu {

enum class PreflightMode { Auto, Off, On, Strict };  // Auto: On with more than one host

// "off", "on", "strict"; UsageError naming the value otherwise.
PreflightMode parse_preflight_mode(const std::string& text);

struct NodePreflight {
  PreflightMode mode = PreflightMode::Auto;
  double threshold = 0.10;  // --preflight-threshold
};

// The exit status of a job that --preflight strict stopped.
constexpr int kPreflightStopStatus = 4;

struct PreflightOutcome {
  nlohmann::json record;  // for the run's record (rank 0; null where it did not run)
  bool stop = false;      // strict, and a rank was slow: every rank stops
};

// The problem whose update shape the DGEMM probe takes: the run's largest
// N on its first grid.
struct PreflightProblem {
  long n = 0;
  int nb = 1;
  GridShape grid;
  GridOrder pmap = GridOrder::RowMajor;
};

// Measures on ctx's device at the problem's shape, gathers and judges on
// rank 0, which prints the lines (unless `quiet`, but a stop is always
// said); every rank gets the same `stop`. Collective over ctx.world().
PreflightOutcome run_node_preflight(const Context& ctx, const PreflightProblem& problem,
                                    const NodePreflight& preflight, bool quiet);
// hplx lu's: dat's largest N, its first NB and grid.
PreflightOutcome run_node_preflight(const Context& ctx, const HplDat& dat,
                                    const NodePreflight& preflight, bool quiet);

}  // namespace hplx::lu
