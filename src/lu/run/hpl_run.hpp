// The `hplx lu` run: every test an HPL.dat lists, in netlib's order, with
// netlib's output and counters, plus the JSON record.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/context.hpp"
#include "core/top500.hpp"
#include "lu/config.hpp"
#include "lu/run/run_checkpoints.hpp"

namespace hplx::lu {

// What one test measured, for observers.
struct TestResult {
  double seconds = 0;  // wall time of the solve, maximum over the grid's ranks (0: not timed)
  double gflops = 0;   // netlib's Gflops (core/flops.hpp)
  long info = 0;       // nonzero: the solve hit a zero pivot
};

// Hooks around each test, for what the LU itself does not know about (the
// app's --predict: a model prediction printed before and compared after,
// and stored in the test's JSON object). Called on every rank of the
// test's grid, in the run's order; the root rank of the world is the one
// that prints and whose record is written.
class TestObserver {
 public:
  virtual ~TestObserver() = default;
  // Before the test is generated and solved, after its binding is applied.
  virtual void before(const TestCase& t) { (void)t; }
  // After the test's netlib lines are printed; `record` is the test's JSON
  // object in the record (fields may be added). Off the root it is an empty
  // object: only the root's is written.
  virtual void after(const TestCase& t, const TestResult& r, nlohmann::json& record) {
    (void)t, (void)r, (void)record;
  }
};

struct RunOptions {
  std::string json_path;             // --json FILE ("" = none)
  std::string trace_path;            // --trace FILE ("" = none): Chrome trace events
  std::vector<std::string> argv;     // for the JSON record
  std::vector<std::string> notes;    // lines for the log (e.g. why N was chosen)
  bool quiet = false;                // only the netlib-format output (no stderr lines)
  TestObserver* observer = nullptr;  // null: none
  // The watchdog's limit (core/watchdog.hpp): unset = automatic, 0 = off.
  std::optional<double> watchdog_s;
  // The job's Rpeak for the TOP500 figures (core/top500.hpp), or why it is
  // not known.
  std::optional<Rpeak> rpeak;
  std::string rpeak_why_not;
  // The CPU BLAS's kernels against the CPU's units, beside Rpeak in the
  // figures; empty where the CPU's BLAS does not do the work.
  std::optional<BlasKernels> blas_kernels;
  // What --preflight measured before the run (run_node_preflight), for the
  // record; null where it did not run.
  nlohmann::json preflight;
  // --checkpoint, --checkpoint-every, --resume (lu/run/run_checkpoints.hpp).
  CheckpointOptions checkpoints;
};

// Every test the HPL.dat lists, in the run's order, as the record writes
// it: what a checkpoint's test is held against.
std::vector<nlohmann::json> test_records(const HplDat& dat);

// Checks everything that can be checked before a large allocation: grids
// against the rank count, features this build lacks, the memory each test
// needs against the memory available. Throws UsageError naming the value.
void preflight(const HplDat& dat, int world_size, long long available_bytes_per_rank);

// Runs every test on ctx's device. Collective over ctx.world(). Each test's
// record carries the energy its solve used where the machine exposes it
// (core/energy.hpp: the packages of each node of the grid, read by one rank
// per node, plus each rank's device counter), or why not; the record's
// "top500" object holds the figures of the passed tests so far, and after a
// sweep of two or more passed tests rank 0 prints them on stderr. Returns the
// exit status for every rank: 0 when every checked test passed, 1 when any
// failed or was skipped because the solve reported a zero pivot.
int run_hpl(const Context& ctx, const HplDat& dat, const RunOptions& options);

// One test on `grid` as run_hpl runs it (netlib's HPL_pdtest: the matrix
// made, the solve timed, the residual checked against `threshold`), with
// nothing printed or recorded: what HPL-MxP's --compare-hpl times.
// Collective over the grid; `residual` is the scaled residual (0 when the
// solve hit a zero pivot, which fails).
struct CheckedTest : TestResult {
  double residual = 0;
  bool passed = false;
};
CheckedTest run_one_test(const Context& ctx, const TestCase& t, const ProcessGrid& grid,
                         double threshold);

}  // namespace hplx::lu
