// RS + UPDATE of one factored panel over a range of trailing columns.
//
// Look-ahead applies a panel in pieces: first to the next panel's columns,
// later to the rest. Every column must receive the panels in order; the
// driver keeps that invariant, this only applies one panel to one range.
//
// The update is cut into column chunks. apply() runs them in turn (BLAS
// threaded as usual); begin() + run_chunk() let several threads share them
// while another thread factors the next panel.
#pragma once

#include <vector>

#include "core/grid.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/panel.hpp"
#include "lu/panel_broadcast.hpp"
#include "lu/pdgesv.hpp"
#include "lu/row_swap.hpp"

namespace hplx::lu {

class PanelApplier {
 public:
  // Collective over grid.col() (duplicates it for the row-swap pipeline).
  PanelApplier(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid);

  // Swaps the panel's pivot rows into the global columns [g0, g1) and
  // updates them. Collective over grid.col() (every process of a column has
  // the same columns). When `in_flight` is given, that broadcast is moved on
  // between chunks, so it proceeds while this computes.
  void apply(const Panel& p, const RowSwapPlan& plan, long g0, long g1, PhaseTimes& times,
             RowBroadcast* in_flight = nullptr);

  // The same in two steps. begin() does the communication of RS (collective
  // over grid.col(), main thread only) and returns how many chunks there are;
  // run_chunk(i) swaps locally and updates chunk i, with no MPI, and may run
  // on any thread, concurrently for different i. `times`, if given, gets the
  // chunk's swap and update time.
  long begin(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
             PhaseTimes* times = nullptr);
  void run_chunk(long i, PhaseTimes* times = nullptr);

 private:
  // apply() with the row-swap pipeline (P > 1, schedule.swap_pipeline).
  void apply_pipelined(const Panel& p, const RowSwapPlan& plan, long g0, long g1, PhaseTimes& times,
                       RowBroadcast* in_flight);

  LocalMatrix& a_;
  const TestCase& t_;
  const ProcessGrid& grid_;
  Communicator second_col_;  // the pipeline's second swap stage (see RowSwapInFlight)
  const Panel* p_ = nullptr;
  long lc0_ = 0, nn_ = 0, chunk_ = 1;
  bool in_place_ = false;
  std::vector<double> ut_;
};

}  // namespace hplx::lu
