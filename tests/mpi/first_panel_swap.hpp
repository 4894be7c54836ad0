// The row swap of the first panel on a P x 1 grid of all the job's ranks:
// the generated matrix, the panel with pivots chosen by the test, the plan
// and the trailing columns, and the check of the U a swap leaves.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/grid.hpp"
#include "device/device.hpp"
#include "lu/local_matrix.hpp"
#include "lu/matgen.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::test {

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

struct FirstPanelSwap {
  // `pivot(c)`: the global row swapped with row c (>= c; the same on every rank).
  template <class Pivot>
  FirstPanelSwap(device::Device& dev, long n, int nb, Pivot pivot)
      : grid(MPI_COMM_WORLD, world_size(), 1, GridOrder::RowMajor), a(dev, n, nb, grid) {
    lu::generate_matrix(dev.compute(), a, grid);
    p = lu::make_panel(a, 0, grid);
    for (int c = 0; c < p.jb; ++c) p.ipiv[c] = pivot(c);
    plan = lu::plan_row_swaps(0, p.jb, p.ipiv);
    lc0 = a.col_start(p.jb);
    nn = a.nq() - lc0;
  }

  // Whether `u` (transposed: row r of U at r * nn) holds the pivot rows over
  // the trailing columns, on every rank (all ranks agree on the answer).
  bool u_is_right(device::Device& dev, const device::Mirror<double>& u) const {
    std::vector<double> got(static_cast<std::size_t>(nn) * p.jb);
    device::copy(dev.compute(), got.data(), u.device(), nn * p.jb);
    dev.compute().synchronize();
    int right = 1;
    for (int r = 0; r < p.jb && right; ++r)
      for (long c = 0; c < nn; ++c)
        if (got[r * nn + c] != lu::hpl_entry(a.n(), plan.u_source[r], a.global_col(lc0 + c))) {
          right = 0;
          break;
        }
    MPI_Allreduce(MPI_IN_PLACE, &right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return right == 1;
  }

  ProcessGrid grid;
  lu::LocalMatrix a;
  lu::Panel p;
  lu::RowSwapPlan plan;
  long lc0 = 0, nn = 0;
};

}  // namespace hplx::test
