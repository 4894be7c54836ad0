// RS + UPDATE of one factored panel over a range of trailing columns.
//
// Look-ahead applies a panel in pieces: first to the next panel's columns,
// later to the rest. Every column must receive the panels in order; the
// driver keeps that invariant, this only applies one panel to one range.
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
  PanelApplier(LocalMatrix& a, const TestCase& t, const ProcessGrid& grid, PhaseTimes& times)
      : a_(a), t_(t), grid_(grid), times_(times) {}

  // Swaps the panel's pivot rows into the global columns [g0, g1) and
  // updates them. Collective over grid.col() (every process of a column has
  // the same columns). When `in_flight` is given, that broadcast is moved on
  // between column chunks of the update, so it proceeds while this computes.
  void apply(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
             RowBroadcast* in_flight = nullptr);

 private:
  LocalMatrix& a_;
  const TestCase& t_;
  const ProcessGrid& grid_;
  PhaseTimes& times_;
  std::vector<double> ut_;
};

}  // namespace hplx::lu
