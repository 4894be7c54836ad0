// The balance point of an LU run (seed 003): the iteration from which on the
// trailing update no longer hides the panel work, i.e. the rest of the run
// is bound by panel factorization and row swapping rather than by DGEMM.
// One definition for hplx lu's and hplx hpl-mxp's records and closing lines
// and for hplx report, which recomputes it for records that lack it: all of
// them compute it from the record's own "iterations" (the times a reader
// sees), and the rule below picks, phase by phase, the clock that ran it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/flops.hpp"  // panel_flops, the split the samples' flops use

namespace hplx {

// One iteration as a record's "iterations" hold it (the fields of the same
// names; times are the max over ranks): the host's phase times and, where
// the queues run behind the host (a GPU, the emulated or a simulated one),
// the device's own clock, 0 where the device timed nothing.
struct BalanceSample {
  double fact_s = 0, rs_comm_s = 0, rs_copy_s = 0, update_s = 0, iter_s = 0;
  double device_update_s = 0, device_swap_s = 0, device_fact_s = 0;
  double flops = 0;  // the panel's LU flops (panel_flops)
};

// What the balance point compares in one iteration.
struct BalanceTimes {
  double update_s = 0, fact_s = 0, rs_s = 0;
};

// Each phase on the clock that ran it. Where the device ran the work, the
// host's times are only how long it took to queue it (or how long the host
// was held back by a full queue), so the device's times are taken:
// update = device_update_s, rs = rs_comm_s + device_swap_s (rs_copy_s where
// the device timed no swap: the copies of rows exchanged over MPI, which the
// host waits for), fact = device_fact_s. Where the device timed no FACT (FACT
// on the host, or a record from before device FACT was timed): fact_s or, if
// larger, FACT's overrun by difference, iter_s - device_update_s -
// device_swap_s (the part of the iteration the update and swaps leave).
// An iteration without device times: update_s, fact_s, rs_comm_s + rs_copy_s.
BalanceTimes balance_times(const BalanceSample& it);

struct BalancePoint {
  long iteration = 0;             // b, an index into the iterations
  double percent_iterations = 0;  // 100 * b / n_iterations
  double percent_flops = 0;       // 100 * flops of iterations < b / all flops
  std::string definition;
};

// The text stored in records and shown in reports.
inline constexpr const char* kBalancePointDefinition =
    "the first iteration b such that every iteration k >= b has "
    "update(k) < fact(k) + rs(k), each phase on the clock that ran it: in an iteration with "
    "the device's times, update = device_update_s, rs = rs_comm_s + device_swap_s (rs_copy_s "
    "where the device timed no swap), fact = device_fact_s (where the device timed no FACT: "
    "fact_s or, if larger, iter_s - device_update_s - device_swap_s); otherwise update = "
    "update_s, fact = fact_s, rs = rs_comm_s + rs_copy_s; "
    "percent_iterations = 100*b/n_iterations, "
    "percent_flops = 100*(LU flops of the panels k < b)/(all flops)";

// The balance point of `iterations`, or nullopt when there is none (no
// iterations, or the last iteration's update is not below its FACT + RS).
std::optional<BalancePoint> compute_balance_point(const std::vector<BalanceSample>& iterations);

// The same over a record's "iterations" (docs/REPORT.md) for a matrix of
// order n, each row's flops the LU flops of its panel ("j", "jb"; the row's
// "flops" where it has no "jb"). Missing times count as 0.
std::optional<BalancePoint> balance_point_of_iterations(const nlohmann::json& iterations, long n);

}  // namespace hplx
