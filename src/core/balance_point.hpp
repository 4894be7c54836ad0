// The balance point of an LU run (seed 003): the iteration from which on the
// trailing update no longer hides the panel work, i.e. the rest of the run
// is bound by panel factorization and row swapping rather than by DGEMM.
// One definition for hplx lu's record and for hplx report, which recomputes
// it for records that lack it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/flops.hpp"  // panel_flops, the split the samples' flops use

namespace hplx {

// What the balance point needs of one iteration (times are the max over ranks).
struct BalanceSample {
  double fact_s = 0, rs_comm_s = 0, rs_copy_s = 0, update_s = 0;
  double flops = 0;  // the panel's LU flops (panel_flops)
};

struct BalancePoint {
  long iteration = 0;             // b, an index into the iterations
  double percent_iterations = 0;  // 100 * b / n_iterations
  double percent_flops = 0;       // 100 * flops of iterations < b / all flops
  std::string definition;
};

// The text stored in records and shown in reports.
inline constexpr const char* kBalancePointDefinition =
    "the first iteration b such that every iteration k >= b has "
    "update_s(k) < fact_s(k) + rs_comm_s(k) + rs_copy_s(k); "
    "percent_iterations = 100*b/n_iterations, "
    "percent_flops = 100*(LU flops of the panels k < b)/(all flops)";

// The balance point of `iterations`, or nullopt when there is none (no
// iterations, or the last iteration's update is not below its FACT + RS).
std::optional<BalancePoint> compute_balance_point(const std::vector<BalanceSample>& iterations);

}  // namespace hplx
