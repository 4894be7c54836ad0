// wall_time() of the simulated cluster's build (HPLX_SIM_RANK, built
// against SimGrid's SMPI, instead of wall_time.cpp): the simulated clock,
// which is also what SMPI's MPI_Wtime returns here (hplx sim runs with
// smpi/simulate-computation off and smpi/wtime 0), plus what the rank owes
// it (defer_work). Read directly: MPI_Wtime also reads the host thread's
// CPU clock, a system call, each time (12% of a 1024-rank simulation's
// time).
#include <simgrid/actor.h>
#include <simgrid/engine.h>

#include <deque>

#include "core/actor_slot_smpi.hpp"
#include "core/timer.hpp"

namespace hplx {
namespace {

// What a rank owes its clock (core/actor_slot_smpi.hpp); nothing outside
// an actor.
double* owed() {
  static std::deque<double> by_actor;
  return actor_slot(by_actor);
}

}  // namespace

double wall_time() {
  const double* d = owed();
  return simgrid_get_clock() + (d ? *d : 0.0);
}

void defer_work(double seconds) {
  if (double* d = owed(); d && seconds > 0) *d += seconds;
}

void pay_deferred_work() {
  double* d = owed();
  if (d == nullptr || *d <= 0) return;
  const double seconds = *d;
  *d = 0;
  sg_actor_sleep_for(seconds);
}

}  // namespace hplx
