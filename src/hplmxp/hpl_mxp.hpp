// One HPL-MxP run: generate A in FP32 where the factorization runs, in
// FP64 for the refinement (generated_matrix.hpp), and b;
// factor A without pivoting, solve with the factors, refine with GMRES-IR
// to the HPL-MxP check, and time it. The score counts b's conversion to
// FP32, the factorization, solves and refinement: (2/3 n^3 + 3/2 n^2) /
// that time (the generators are not timed, as in the reference, whose
// time also leaves out its conversion of A to FP32).
#pragma once

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "core/balance_point.hpp"
#include "core/context.hpp"
#include "core/grid.hpp"
#include "core/slow_ranks.hpp"
#include "core/trace.hpp"
#include "device/precision.hpp"
#include "device/queue.hpp"
#include "hplmxp/gmres_ir.hpp"
#include "hplmxp/lu_nopiv.hpp"
#include "lu/config.hpp"
#include "lu/iteration_record.hpp"
#include "lu/run/run_checkpoints.hpp"

namespace hplx::hplmxp {

struct HplMxpConfig {
  long n = 0;
  int nb = 256;
  int nprow = 0, npcol = 0;                       // 0: the squarest grid P <= Q of the ranks
  GridOrder pmap = GridOrder::RowMajor;           // ranks onto the grid (--pmap, HPL.dat line 9)
  lu::Broadcast bcast = lu::Broadcast::OneRingM;  // the panel along process rows
  int depth = 1;                                  // look-ahead: 0 or 1
  // The update's operands: FP32, or FP16/BF16 with FP32 products and sums.
  device::Precision precision = device::Precision::Fp32;
  // The panel's triangular solves (FactorOptions::panel_solve,
  // --panel-solve). The command sets it: on device backends inverse-tf32
  // beside a 16-bit update, inverse beside an FP32 one; trsm on the host.
  PanelSolve panel_solve = PanelSolve::Trsm;
  // --update-sms and --update-sms-below, as hplx lu's (FactorOptions).
  int update_sms = 0;
  long update_sms_below = 0;
  int restart = 30;
  int max_iterations = 100;
  double threshold = 16.0;
  // 1 for the benchmark; otherwise the diagonal is multiplied by it (tests
  // of a matrix that is not diagonally dominant), and the run is no result.
  double diagonal_scale = 1.0;
};

// Fills in the grid and checks the values against the ranks; a usage
// error names the value and what is allowed.
void check_config(HplMxpConfig& config, int world_size);

// Host memory one process of the grid needs: A in FP64 and FP32 (12 bytes
// per element), the panel and U buffers, the refinement's vectors; with
// `matrix_on_device` (a device backend, where A in FP64 is not stored:
// GeneratedMatrix) only the buffers' host sides and the product's and the
// check's vectors.
long long bytes_per_process(const HplMxpConfig& config, bool matrix_on_device = false);
// On a device backend, the device memory one process needs: the FP32
// matrix, the panel, U and their 16-bit copies, the refinement's vectors.
long long device_bytes_per_process(const HplMxpConfig& config);

// A usage error when bytes_per_process exceeds `available` (per process).
void check_memory(const HplMxpConfig& config, long long available, bool matrix_on_device = false);

// The default problem without --n or an HPL.dat: the largest N, a multiple
// of NB, whose FP32 factorization takes about `target_seconds` at
// kLuEfficiency (src/lu/run/problem_size.hpp) of `fp32_gflops` (the whole
// job's) and whose bytes_per_process stay within kMemoryLimitFraction of
// `bytes_per_rank`. The FP64 matrix and its FP32 copy make 12 bytes per
// element, against the LU's 8. The refinement's O(n^2) work is left out
// of the time. `config` gives NB and the grid; its n is ignored.
struct DefaultSize {
  long n = 0;
  double predicted_seconds = 0;
  bool memory_bound = false;
  long long bytes_per_process = 0;
};
DefaultSize choose_default_size(const HplMxpConfig& config, double fp32_gflops,
                                long long bytes_per_rank, double target_seconds);

struct HplMxpResult {
  bool in_grid = false;
  long n = 0;
  int nb = 0, nprow = 0, npcol = 0;
  // convert_s: b to FP32 (A is made in FP32 by the untimed generator).
  double generate_s = 0, convert_s = 0, factor_s = 0, solve_s = 0, refine_s = 0, total_s = 0;
  double gflops = 0;     // the score
  double lu_gflops = 0;  // the factorization alone: lu_flops(n) / factor_s
  bool bad_pivot = false;
  device::Precision precision = device::Precision::Fp32;
  // The factorization's per-iteration record (the LU's), each field's
  // maximum over the ranks, and its balance point: rank 0's only.
  std::vector<lu::IterationTimes> iterations;
  std::optional<BalancePoint> balance;
  // Every rank's factorization totals and host, and the slow ones (the
  // update more than kSlowRankThreshold over the others' median): rank 0's.
  std::vector<RankFigures> ranks;
  std::vector<SlowRank> slow;
  GmresIrResult refinement;
  lu::TestSegments segments;   // a resumed test's segments, the checkpoints' costs
  std::uint64_t solution = 0;  // lu::solution_checksum of x after the refinement
  bool passed() const { return refinement.converged; }
};

// Collective over ctx.world(). Ranks beyond P*Q sit out (in_grid false).
// ctx.log() (rank 0's stderr, or null) gets a line per phase and per
// refinement step. The FP32 matrix lives in the memory of ctx.device(),
// whose compute queue runs the factorization's update and the
// preconditioner's solves and whose panel queue runs FACT beside the
// update; the refinement's vectors stay on the host. ctx.trace() (may be
// null) records each phase's span (SETUP, FACT, LBCAST, UBCAST, UPDATE,
// SOLVE); ctx.activity() (may be null) is what the watchdog sees.
// --checkpoint and --resume for one test (lu/run/run_checkpoints.hpp):
// the run's options (null: none), the test's place in the run and its
// config_json, what a checkpoint is held against.
struct MxpCheckpoints {
  const lu::CheckpointOptions* options = nullptr;
  long index = -1;
  nlohmann::json test;
};
HplMxpResult run_hpl_mxp(const Context& ctx, const HplMxpConfig& config,
                         const MxpCheckpoints& checkpoints = {});

// The test's settings as the record writes them (n, nb, grid, options).
nlohmann::json config_json(const HplMxpConfig& config);

// The verdict line printed on every run.
void print_result(const HplMxpResult& result, double threshold, std::FILE* out);
nlohmann::json to_json(const HplMxpResult& result, const HplMxpConfig& config);

}  // namespace hplx::hplmxp
