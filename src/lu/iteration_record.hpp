// Where the time of a factorization went: the phase totals of a rank, and
// the per-iteration record (seed 000 Fig. 7, seed 003's balance point).
//
// Every rank records each iteration of the LU loop; rank 0 keeps, for each
// iteration and each phase, the maximum over the ranks (the rank on the
// critical path for that phase). With look-ahead, the UPDATE of iteration k
// is mostly the previous panel's update of the rest of the matrix, done while
// panel k is factored and broadcast: the record shows what ran together.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>

#include "core/balance_point.hpp"

#include <optional>
#include <string>
#include <vector>

namespace hplx::lu {

// Seconds this process spent in each phase (wall time of the main thread).
// bcast and swap include the time blocked waiting for their messages
// (`wait`); swap includes its row copies (`swap_copy`). The *_hidden times
// are how long the non-blocking communications travelled while the process
// computed (in flight minus waited, see CommTiming).
struct PhaseTimes {
  double fact = 0, bcast = 0, swap = 0, update = 0, solve = 0;
  double swap_copy = 0, wait = 0, bcast_hidden = 0, swap_hidden = 0;

  PhaseTimes& operator+=(const PhaseTimes& x) {
    fact += x.fact, bcast += x.bcast, swap += x.swap, update += x.update, solve += x.solve;
    swap_copy += x.swap_copy, wait += x.wait, bcast_hidden += x.bcast_hidden;
    swap_hidden += x.swap_hidden;
    return *this;
  }
  // What was spent between an earlier snapshot `before` and this one.
  PhaseTimes since(const PhaseTimes& before) const {
    PhaseTimes d = *this;
    d.fact -= before.fact, d.bcast -= before.bcast, d.swap -= before.swap;
    d.update -= before.update, d.solve -= before.solve, d.swap_copy -= before.swap_copy;
    d.wait -= before.wait, d.bcast_hidden -= before.bcast_hidden;
    d.swap_hidden -= before.swap_hidden;
    return d;
  }
};

// One iteration of the LU loop (one panel).
struct IterationTimes {
  long k = 0;           // iteration index
  long j = 0;           // global column of the panel
  long jb = 0;          // its width
  long n_trailing = 0;  // global columns right of the panel: n - j - jb
  long local_cols = 0;  // this rank's trailing columns (max over ranks)
  double fact = 0, bcast = 0, rs_comm = 0, rs_copy = 0, update = 0, wait = 0;
  double bcast_hidden = 0, rs_hidden = 0;
  // On a device backend, the device's own clock (events, lu/device_timeline):
  // seconds the compute queue ran the update and the in-place row swaps, and
  // the transfer queue the panel's copies to the host and back, the panel
  // queue a FACT on the device (HPL-MxP's). 0 elsewhere.
  double device_update = 0, device_swap = 0, transfer = 0, device_fact = 0;
  double flops = 0;    // LU flops of the panels whose update completed in it
  double iter = 0;     // wall time of the iteration
  double elapsed = 0;  // from the start of the factorization to its end
};

// The phase times between two snapshots of a rank's totals.
void set_phases(IterationTimes& it, const PhaseTimes& before, const PhaseTimes& after);

// Every field the maximum over the ranks of `comm` (all ranks run the same
// iterations), on the rank 0 of `comm`; the other ranks get an empty record
// (only rank 0 prints and writes it: at thousands of simulated ranks in one
// process, a copy on every rank is gigabytes). Collective.
std::vector<IterationTimes> max_on_root(const std::vector<IterationTimes>& mine, MPI_Comm comm);

// Seed 003's balance point of a (reduced) record, core/balance_point.hpp's
// definition over the times the record's JSON shows (the device's where it
// has them), with each panel's LU flops (panel_flops).
std::optional<BalancePoint> find_balance_point(const std::vector<IterationTimes>& record, long n);

// [{"k", "j", "jb", "n_trailing", "local_cols", "fact_s", "bcast_s", "rs_comm_s", "rs_copy_s",
//   "update_s", "wait_s", "iter_s", "bcast_hidden_s", "rs_hidden_s", "flops", "elapsed_s",
//   "gflops"}, ...]; gflops is the running rate, cumulative flops / elapsed. With
// look-ahead a panel's flops count in the iteration that finished its update.
// A record with device times adds "device_update_s", "device_swap_s",
// "transfer_s" and "device_fact_s" to every iteration.
nlohmann::json iterations_to_json(const std::vector<IterationTimes>& record, long n);
nlohmann::json balance_point_json(const std::optional<BalancePoint>& b);

// "balance point at iteration B of COUNT (...)", or that there is none,
// for the line beside a test's output.
std::string balance_point_sentence(const std::optional<BalancePoint>& b, long count);

}  // namespace hplx::lu
