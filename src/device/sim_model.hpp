// What a simulated rank's work costs (the sim backend, device/sim/): the
// kernel models `hplx sim` derives from a system spec and hands to the
// simulated ranks as a JSON file. Compiled in every build, so the app that
// writes the file and the SMPI build that reads it share one definition.
//
// Times are seconds, rates flop/s, bandwidths bytes/s. A GEMM of m x n x k
// costs overhead + 2mnk / rate(m, n, k), where the rate saturates with each
// of the product's dimensions: rate = peak * s(m) s(n) s(k), s(d) = d / (d +
// half_dim), so a thin update (or one of small K = NB) runs slower than a
// large one, as BLAS libraries do: with two dimensions large, half the peak
// where the third is half_dim (0: the peak at every shape). Each call also
// packs its A operand (m x k) again, at pack_s per element: an update made
// in narrow chunks pays it once per chunk (OpenBLAS: one call of 10000 x
// 5000 x 192 ran at 80 Gflop/s, 512-column chunks at 78, 256-column at 74.5).
// And each call's time varies around that mean by cv (a calibrated
// machine's measured spread), so the ranks of an iteration do not finish
// together.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/types.hpp"

namespace hplx::device {

struct GemmModel {
  double peak_flops = 0;  // the rate of a large square product
  double half_dim = 0;    // a dimension at which, the others large, it runs at half the peak
  double overhead_s = 0;  // per call (a GPU's launch, a BLAS call's setup)
  double pack_s = 0;      // per element of A (m x k), per call
  double cv = 0;          // a call's spread around seconds(): standard deviation / mean
  double seconds(long m, long n, long k) const;
};

// A call's time as a multiple of its mean: lognormal with mean 1 and
// standard deviation `cv` (1 when cv is 0), drawn from `state`, a rank's
// own deterministic stream, which it advances.
double spread_factor(double cv, std::uint64_t& state);

// FACT on the device as hplx_fact_probe measured it (bench/gpu/fact_probe.cpp):
// one panel's seconds with the device to itself (alone) and while the update's
// DGEMM runs on another queue (beside), at each measured panel width (jb) and
// height (rows), both ascending. Between the measured points the time is
// linear in rows and in jb; beyond them the end segments go on in rows (never
// below the nearest measured time in proportion to rows) and the time is in
// proportion to jb.
struct MeasuredFact {
  std::vector<double> jb, rows;
  std::vector<double> alone_s, beside_s;  // by jb, then rows: [i * rows.size() + r]
  bool empty() const { return jb.empty(); }
  double alone(long rows, long jb) const { return at(alone_s, rows, jb); }
  double beside(long rows, long jb) const { return at(beside_s, rows, jb); }
  // Throws UsageError naming `what` and the first field that is not a
  // table of positive times over ascending positive widths and heights.
  void check(const std::string& what) const;

 private:
  double at(const std::vector<double>& t, long rows, long jb) const;
};

struct SimModel {
  std::string source;  // what the figures come from (the spec file), for the log
  // Where a rank's queue work runs: a GPU of its own (queues run beside the
  // host, which only waits for them) or the host's core (queue work
  // occupies the rank as it runs).
  bool gpu = false;
  // The ranks stand for GPUs, whether or not their queues are simulated
  // apart (gpu): the run makes the choices it makes for a device.
  bool device_ranks = false;
  GemmModel dgemm;             // the update (and FACT's device GEMMs)
  GemmModel sgemm;             // FP32 and mixed precision (HPL-MxP)
  double trsm_flops = 0;       // DTRSM of U
  double memory_Bps = 0;       // contiguous copies within the queue's memory, GEMV
  double host_memory_Bps = 0;  // contiguous host-side copies (MPI staging) on a GPU rank
  // Seconds per matrix element that row kernels move (gathers, scatters,
  // swaps in place, U stored back: a cache miss or uncoalesced access
  // each), on the queue and in the host's own row copies. row_copy_s: the
  // time of each kind (types.hpp RowCopy), 0 where not calibrated: then
  // row_element_s.
  double row_element_s = 0;
  std::array<double, kRowCopyKinds> row_copy_s{};
  double host_row_element_s = 0;
  double row_seconds(RowCopy kind) const {
    const double s = row_copy_s[static_cast<int>(kind)];
    return s > 0 ? s : row_element_s;
  }
  double link_Bps = 0;           // host <-> device copies (PCIe, NVLink-C2C); 0 on a CPU rank
  double link_latency_s = 0;     // per host <-> device copy
  double kernel_overhead_s = 0;  // per launched kernel body
  double fact_flops = 0;         // the host's panel factorization (R_f)
  double fact_column_s = 0;      // and its time per column (lambda_f)
  // FACT on a GPU rank's device (--fact-on device): its time per column
  // beyond the leaf's launches and memory traffic (the pick's one-thread
  // kernel, the pivot's round trips), charged on the queue that runs FACT.
  double device_fact_column_s = 0;
  // The measured device FACT (empty: the launches and traffic above); a
  // GPU rank's FACT runs at its `beside` time while the rank's other queues
  // compute, at its `alone` time after.
  MeasuredFact device_fact;
  double device_memory_bytes = 0;  // per rank (0: unbounded)
  // A GPU rank's streaming multiprocessors (0: not given). A queue's BLAS
  // calls made while its SM target is set below them (Queue::set_blas_sms,
  // hplx lu --update-sms) take multiprocessors / target times as long, and
  // FACT beside them runs at its `alone` time: the SMs left are FACT's.
  int multiprocessors = 0;
  std::uint64_t seed = 1;  // the pseudo-random pivots

  // Throws UsageError naming the first field that is missing or not a
  // positive finite number where one is needed.
  void check() const;
};

// What the ranks are, for the log: "GPU", "in-order GPU" (device_ranks
// without queues of their own) or "CPU".
std::string rank_kind(const SimModel& m);

nlohmann::json to_json(const SimModel& m);
// Throws UsageError naming `what` (the file) and the field.
SimModel sim_model_from_json(const nlohmann::json& j, const std::string& what);
SimModel read_sim_model(const std::string& path);

}  // namespace hplx::device
