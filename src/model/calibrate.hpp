// `hplx model calibrate`: measures this machine for the performance model
// and writes a system spec. Uses MPI and OpenBLAS, so it lives in its own
// library (hplx_model_calibrate); the models themselves need neither.
//
// gamma: DGEMM C -= A B at the trailing-update shape (M x N x K = NB) in
// 256-column chunks with each thread count a rank could run (1 .. the CPUs
// a rank may use), on rank 0 alone, once as one BLAS call on T threads per
// chunk and once with the chunks dealt over T threads (hplx lu's update); with several ranks, also
// on every rank at once with the threads each would get. alpha, beta: a ping-pong between ranks 0
// and 1 over message sizes from 8 bytes to 8 MiB, one-way time = half the round trip (median of
// repetitions), least-squares fit of time = alpha + bytes/bandwidth weighted by 1/time^2 (relative
// error).
//
// The CPU terms (docs/MODEL.md): hplx's own panel factorization
// (lu::factor_stacked_panel, one thread, copied in and out of a matrix as
// FACT does; given by the caller as LuPhaseTimings::fact) at M x NB for several M while a second
// thread runs DGEMM as the update would, fitted to t = NB lambda_f + flops / R_f; DTRSM of an NB x
// NB unit lower triangle against the columns and hplx lu's own row swap (lu::swap_rows_in_place,
// LuPhaseTimings::row_swap) of NB rows, both in 256-column chunks dealt over T threads, by threads
// on rank 0 alone and on all ranks at once like the DGEMM; and the row swap's other copies
// (gathers and scatters of pivot rows, the diagonal block's rows gathered and U stored back into
// them) by their own kernels, for hplx sim. Every timing keeps only the repetitions
// during which no other process took this rank's cpus (a shared machine), see disturbed_reps; DGEMM
// averages over >= 4 s of them, FACT and the row swap over >= 0.25 s per
// size (at --size 4000; less for smaller sizes). The dealt DGEMM's rate is
// taken from the threads' busy time, without its own last-chunk imbalance.
//
// Those seconds are split over R rounds (--rounds, default 5), interleaved
// across the terms, and a term's value is the median of its rounds
// (calibration_rounds.hpp); terms that must agree are checked, measured
// again when they do not, and warned about when they still do not. With
// several ranks, the thread count each rank of a full node gets is
// measured only on all ranks at once (rank 0 alone would be replaced).
#pragma once

#include <mpi.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/blas_kernels.hpp"
#include "device/types.hpp"

namespace hplx::model {

struct CalibrateOptions {
  int nb = 192;         // K of the DGEMM and the run's NB in the spec
  long size = 4000;     // M = N of the DGEMM
  int max_threads = 0;  // 0: the CPUs this process may use
  int repetitions = 3;  // undisturbed repetitions at least, per round
  int rounds = 5;       // rounds per term (kMinRounds .. kMaxRounds)
};

inline constexpr int kMinRounds = 3, kMaxRounds = 50;
inline constexpr int kExtraSets = 2;            // extra sets of rounds for a failing check
inline constexpr int kNoisySets = 2;            // extra sets for a term whose rounds spread
inline constexpr double kSpreadWarning = 0.10;  // a term's spread above it warns

// Throws UsageError naming `rounds` and the range unless kMinRounds..kMaxRounds.
void check_rounds(int rounds);

// One measured term as printed: its median and how its rounds spread.
struct TermLine {
  std::string key;    // as in the spec's [calibration.spread]
  std::string label;  // as on the terminal
  std::string value;  // the median with its unit
  int rounds = 0;
  int sets = 1;           // > 1: measured again after a failing check or a wide spread
  bool quietest = false;  // measured again for its spread: the quietest set kept
  double spread = 0;      // robust_spread of the kept set's rounds (a fraction)
};

struct PingPongPoint {
  double bytes = 0;
  double one_way_s = 0;
};

struct Calibration {
  std::vector<std::pair<int, double>> dgemm_gflops;  // threads, GFLOPS
  bool has_network = false;
  std::vector<PingPongPoint> pingpong;
  double alpha_s = 0;
  double bandwidth_Bps = 0;
  double fit_max_rel_error = 0;  // worst relative residual of the fit
  double swap_s_per_word = 0;    // legacy: a [memory] layer from a row swap
  // The CPU terms.
  std::vector<std::pair<int, double>> trsm_gflops;  // threads, GFLOPS
  // DGEMM in chunks dealt over the threads, 1-thread BLAS each (hplx lu's update)
  std::vector<std::pair<int, double>> update_gflops;  // threads, GFLOPS
  // The row swap's copies by kind (swap in place, gather, scatter, ...):
  // threads, ns per element moved.
  std::map<device::RowCopy, std::vector<std::pair<int, double>>> row_copy_ns;
  double dgemm_pack_ns_per_word = 0;  // per element of A, per DGEMM call (1 thread)
  double dgemm_call_cv = 0;  // one 256-column call's spread: standard deviation / mean (1 thread)
  std::vector<std::pair<long, double>> fact_points;  // M, seconds
  bool fact_beside_dgemm = false;                    // a DGEMM thread ran beside it
  double fact_gflops = 0;
  double fact_column_s = 0;
  // Timed repetitions left out because other processes took this rank's
  // cpus meanwhile (CPU time below 85% of threads x wall time).
  int disturbed_reps = 0;
  int concurrent_threads = 0;  // > 0: that count was measured on all ranks at once
  double concurrent_gflops = 0;
  int ranks = 1;
  int ranks_per_node = 1;
  std::string hostname;
  double memory_gib = 0;
  // The kernels the DGEMM ran, against the CPU's units: a prediction from
  // this spec assumes them.
  BlasKernels blas_kernels;
  // The rounds (calibration_rounds.hpp): rounds per set, each term's line
  // and spread, the checks and spreads that warn, the terms measured again.
  int rounds = 0;
  std::vector<TermLine> terms;
  std::map<std::string, double> spread;
  std::vector<std::string> warnings;
  std::vector<std::string> remeasured;
  std::vector<std::string> noisy;  // measured again: their rounds spread above kSpreadWarning
};

// A phase to time: prepare() runs untimed before each repetition, run()
// is the timed work.
struct TimedWork {
  std::function<void()> prepare, run;
};

// The LU phases the CPU terms time, run as hplx lu runs them. The caller
// supplies them (apps/hplx from src/lu/run/phase_timing.hpp): the model and its
// calibration depend on core and device only, never on the LU.
struct LuPhaseTimings {
  // FACT on one thread of the m x b panel of `src` (column-major, leading
  // dimension ld), copied out, factored and copied back; prepare()
  // restores the matrix.
  std::function<TimedWork(const std::vector<double>& src, long ld, long m, int b)> fact;
  // One of the row swap's copies (lu::RowCopyTiming) of b rows of an m x m
  // matrix over n columns, in 256-column chunks dealt over `threads`
  // threads; prepare() draws new rows.
  std::function<TimedWork(device::RowCopy kind, long m, long n, int b, int threads)> row_copy;
};

// Collective over `world`. Rank 0's result is the one to write.
Calibration calibrate(MPI_Comm world, const CalibrateOptions& opt, const LuPhaseTimings& phases);

// Weighted least-squares line through (x, y): y = a + b x, minimising
// sum w_i (a + b x_i - y_i)^2 (w empty: all 1). Throws on < 2 points.
std::pair<double, double> fit_line(const std::vector<double>& x, const std::vector<double>& y,
                                   const std::vector<double>& w = {});

// The TOML spec text for a calibration.
std::string calibration_toml(const Calibration& c, const CalibrateOptions& opt,
                             const std::string& command_line);

}  // namespace hplx::model
