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

#include <optional>
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
  double flops = 0;    // LU flops of the panels whose update completed in it
  double iter = 0;     // wall time of the iteration
  double elapsed = 0;  // from the start of the factorization to its end
};

// The phase times between two snapshots of a rank's totals.
void set_phases(IterationTimes& it, const PhaseTimes& before, const PhaseTimes& after);

// LU flops charged to the panel at column j of width jb in an n x n
// factorization: F(n - j) - F(n - j - jb) with F(m) = (2/3 m + 3/2) m^2, so
// the iterations add up to netlib's 2/3 N^3 + 3/2 N^2.
double iteration_flops(long n, long j, long jb);

// Every field the maximum over the ranks of `comm` (all ranks run the same
// iterations). Collective; every rank gets the result.
std::vector<IterationTimes> max_over_ranks(const std::vector<IterationTimes>& mine, MPI_Comm comm);

// Seed 003's balance point: the first iteration b such that for every
// iteration k >= b, update(k) < fact(k) + rs_comm(k) + rs_copy(k). From
// there on the trailing update no longer hides FACT and the row swap.
struct BalancePoint {
  long iteration = 0;
  double percent_iterations = 0;  // 100 b / iterations
  double percent_flops = 0;       // flops of the panels before b, in % of all
};
std::optional<BalancePoint> find_balance_point(const std::vector<IterationTimes>& record, long n);

// The definition above, for the JSON record and the docs.
extern const char* const kBalancePointDefinition;

// [{"k", "j", "jb", "n_trailing", "local_cols", "fact_s", "bcast_s", "rs_comm_s", "rs_copy_s",
//   "update_s", "wait_s", "iter_s", "bcast_hidden_s", "rs_hidden_s", "flops", "elapsed_s",
//   "gflops"}, ...]; gflops is the running rate, cumulative flops / elapsed. With
// look-ahead a panel's flops count in the iteration that finished its update.
nlohmann::json iterations_to_json(const std::vector<IterationTimes>& record, long n);
nlohmann::json to_json(const std::optional<BalancePoint>& b);

}  // namespace hplx::lu
