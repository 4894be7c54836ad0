// The `hplx lu` run: every test an HPL.dat lists, in netlib's order, with
// netlib's output and counters, plus the JSON record.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "lu/config.hpp"

namespace hplx::model {
struct SystemSpec;
}

namespace hplx::lu {

struct RunOptions {
  std::string json_path;           // --json FILE ("" = none)
  std::string trace_path;          // --trace FILE ("" = none): Chrome trace events
  std::vector<std::string> argv;   // for the JSON record
  std::vector<std::string> notes;  // lines for the log (e.g. why N was chosen)
  bool quiet = false;              // only the netlib-format output (no stderr lines)
  // --predict: the machine spec each test is predicted with (null: none).
  std::shared_ptr<const model::SystemSpec> predict_spec;
  std::string predict_path;
};

// Checks everything that can be checked before a large allocation: grids
// against the rank count, features this build lacks, the memory each test
// needs against the memory available. Throws UsageError naming the value.
void preflight(const HplDat& dat, int world_size, long long available_bytes_per_rank);

// Runs every test. Collective over `world`. Returns the exit status for
// every rank: 0 when every checked test passed, 1 when any failed or was
// skipped because the solve reported a zero pivot.
// Runs every test on ctx's device. Collective over ctx.world().
int run_hpl(const Context& ctx, const HplDat& dat, const RunOptions& options);

}  // namespace hplx::lu
