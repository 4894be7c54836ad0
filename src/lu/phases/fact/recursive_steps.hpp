// The recursive panel factorization's steps in netlib's order
// (HPL_pdrpanllN, HPL_pdrpancrN, HPL_pdrpanrlN), walked once for host FACT
// (panel_factor.cpp), device FACT, which issues them on a queue
// (panel_factor_device.cpp), and FACT's model, which costs the same steps
// (fact_model.cpp).
#pragma once

#include "lu/config.hpp"

namespace hplx::lu {

// netlib's recursive panel factorization cuts n columns into NDIV parts,
// each a multiple of NBMIN (HPL_pdrpan*): the width of every part but the
// last. The rule of every FACT, of FACT's model and of the sub-panel
// boundaries LBCAST pipelines on.
inline long recursion_part(long n, long nbmin, long ndiv) {
  return (((n + nbmin - 1) / nbmin + ndiv - 1) / ndiv) * nbmin;
}

// Columns [first, first + count) of the panel (or rows, for update_rows).
struct Columns {
  long first, count;
};

// Walks the recursion over columns [c0, c0 + n) of a jb-wide panel for
// `rfact`, calling on `steps`:
//   leaf(c0, n)                      the base case, n <= nbmin;
//   solve(d, k, cols)                rows [d, d + k) of cols := L^-1 them,
//                                    L the unit lower k x k block at (d, d);
//   update_below(from, cols, inner, level)
//                                    the stacked rows from `from` down, in
//                                    cols, -= their `inner` columns times
//                                    rows `inner` of cols; `level`: the
//                                    width of the recursion level it is in;
//   update_rows(rows, cols, inner)   the same for rows `rows` only (Crout);
//   subpanel_done(a, w)              after each top-level part but the last.
template <class Steps>
void walk_recursion(Factorization rfact, long nbmin, long ndiv, long jb, long c0, long n,
                    Steps& steps) {
  if (n <= nbmin) {
    steps.leaf(c0, n);
    return;
  }
  const long s = recursion_part(n, nbmin, ndiv);
  const long end = c0 + n;
  for (long a = c0; a < end; a += s) {
    const long w = s < end - a ? s : end - a;
    const Columns right{a + w, end - a - w};
    switch (rfact) {
      case Factorization::Left:
        if (a > c0) {
          steps.solve(c0, a - c0, Columns{a, w});
          steps.update_below(a, Columns{a, w}, Columns{c0, a - c0}, n);
        }
        walk_recursion(rfact, nbmin, ndiv, jb, a, w, steps);
        break;
      case Factorization::Crout:
        if (a > c0) steps.update_below(a, Columns{a, w}, Columns{c0, a - c0}, n);
        walk_recursion(rfact, nbmin, ndiv, jb, a, w, steps);
        if (right.count > 0) {
          steps.update_rows(Columns{a, w}, right, Columns{c0, a - c0});
          steps.solve(a, w, right);
        }
        break;
      case Factorization::Right:
        walk_recursion(rfact, nbmin, ndiv, jb, a, w, steps);
        if (right.count > 0) {
          steps.solve(a, w, right);
          steps.update_below(a + w, right, Columns{a, w}, n);
        }
        break;
    }
    if (c0 == 0 && n == jb && right.count > 0) steps.subpanel_done(a, w);
  }
}

}  // namespace hplx::lu
