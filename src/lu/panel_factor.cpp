// Recursive panel factorization (netlib's RFACT / PFACT / NBMIN / NDIV) on
// the stacked panel [A1; A2] described in panel.hpp.
//
// Every BLAS call that touches A1 is issued separately from the one that
// touches A2, with sizes that are the same on every process of the column:
// A1 is replicated and must stay bitwise identical everywhere, or processes
// would disagree about pivots.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/blas.hpp"
#include "core/error.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/panel.hpp"

namespace hplx::lu {
namespace {

using blas::Diag;
using blas::Side;
using blas::Trans;
using blas::Uplo;

// A pivot candidate travels as [|value|, global row, row data (jb values)].
void pick_pivot(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const long width = bytes / static_cast<long>(sizeof(double));
  auto* a = static_cast<double*>(in);
  auto* b = static_cast<double*>(inout);
  for (int e = 0; e < *len; ++e, a += width, b += width) {
    // Larger magnitude wins; ties go to the smaller global row, so the choice
    // does not depend on the reduction order.
    if (a[0] > b[0] || (a[0] == b[0] && a[1] < b[1])) std::memcpy(b, a, width * sizeof(double));
  }
}

double magnitude(double v) {
  // NaN compares false with everything; rank it above every number so the
  // choice stays deterministic (the run then fails its residual check).
  return std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fabs(v);
}

class PanelFactorizer {
 public:
  PanelFactorizer(Panel& p, const PanelRows& rows, Factorization rfact, Factorization pfact,
                  int nbmin, int ndiv, MPI_Comm col)
      : p_(p),
        rows_(rows),
        rfact_(rfact),
        pfact_(pfact),
        nbmin_(std::max(1, nbmin)),
        ndiv_(std::max(2, ndiv)),
        col_(col),
        ld_(p.ld()),
        jb_(p.jb) {
    MPI_Comm_size(col, &colsize_);
    if (colsize_ > 1) {
      HPLX_MPI_CHECK(MPI_Type_contiguous(jb_ + 2, MPI_DOUBLE, &candidate_type_));
      HPLX_MPI_CHECK(MPI_Type_commit(&candidate_type_));
      HPLX_MPI_CHECK(MPI_Op_create(pick_pivot, 1, &pick_op_));
      mine_.resize(jb_ + 2);
      best_.resize(jb_ + 2);
    }
  }
  ~PanelFactorizer() {
    if (colsize_ > 1) {
      MPI_Op_free(&pick_op_);
      MPI_Type_free(&candidate_type_);
    }
  }
  PanelFactorizer(const PanelFactorizer&) = delete;
  PanelFactorizer& operator=(const PanelFactorizer&) = delete;

  void run() { recursive(0, jb_); }

 private:
  double* at(long r, long c) { return p_.w.data() + r + c * ld_; }

  // Calls f(first stacked row, row count) for the A1 rows [r, jb) and for A2.
  template <class F>
  void below(long r, F&& f) {
    if (r < jb_) f(r, jb_ - r);
    if (p_.m2 > 0) f(static_cast<long>(jb_), p_.m2);
  }

  void recursive(long c0, long n) {
    if (n <= nbmin_) {
      base(c0, n);
      return;
    }
    // netlib's split: NDIV parts, each a multiple of NBMIN, so 1 <= s < n.
    const long s = (((n + nbmin_ - 1) / nbmin_ + ndiv_ - 1) / ndiv_) * nbmin_;
    const long end = c0 + n;
    for (long a = c0; a < end; a += s) {
      const long w = std::min(s, end - a);
      switch (rfact_) {
        case Factorization::Left:
          if (a > c0) {
            blas::trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, a - c0, w, 1.0, at(c0, c0),
                       ld_, at(c0, a), ld_);
            below(a, [&](long r, long m) {
              blas::gemm(Trans::No, Trans::No, m, w, a - c0, -1.0, at(r, c0), ld_, at(c0, a), ld_,
                         1.0, at(r, a), ld_);
            });
          }
          recursive(a, w);
          break;
        case Factorization::Crout:
          if (a > c0) {
            below(a, [&](long r, long m) {
              blas::gemm(Trans::No, Trans::No, m, w, a - c0, -1.0, at(r, c0), ld_, at(c0, a), ld_,
                         1.0, at(r, a), ld_);
            });
          }
          recursive(a, w);
          if (a + w < end) {
            blas::gemm(Trans::No, Trans::No, w, end - a - w, a - c0, -1.0, at(a, c0), ld_,
                       at(c0, a + w), ld_, 1.0, at(a, a + w), ld_);
            blas::trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, w, end - a - w, 1.0,
                       at(a, a), ld_, at(a, a + w), ld_);
          }
          break;
        case Factorization::Right:
          recursive(a, w);
          if (a + w < end) {
            blas::trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, w, end - a - w, 1.0,
                       at(a, a), ld_, at(a, a + w), ld_);
            below(a + w, [&](long r, long m) {
              blas::gemm(Trans::No, Trans::No, m, end - a - w, w, -1.0, at(r, a), ld_, at(a, a + w),
                         ld_, 1.0, at(r, a + w), ld_);
            });
          }
          break;
      }
    }
  }

  // Unblocked factorization of columns [c0, c0 + n).
  void base(long c0, long n) {
    const long end = c0 + n;
    for (long c = c0; c < end; ++c) {
      if (c > c0 && pfact_ != Factorization::Right) {
        if (pfact_ == Factorization::Left) {
          // U part of column c from the columns already factored.
          blas::trsv(Uplo::Lower, Trans::No, Diag::Unit, c - c0, at(c0, c0), ld_, at(c0, c), 1);
        }
        below(c, [&](long r, long m) {
          blas::gemv(Trans::No, m, c - c0, -1.0, at(r, c0), ld_, at(c0, c), 1, 1.0, at(r, c), 1);
        });
      }
      pivot_and_swap(c);
      scale_column(c);
      if (c + 1 < end) {
        if (pfact_ == Factorization::Right) {
          below(c + 1, [&](long r, long m) {
            blas::ger(m, end - c - 1, -1.0, at(r, c), 1, at(c, c + 1), ld_, at(r, c + 1), ld_);
          });
        } else if (pfact_ == Factorization::Crout && c > c0) {
          // Row c of U right of the diagonal.
          blas::gemv(Trans::Yes, c - c0, end - c - 1, -1.0, at(c0, c + 1), ld_, at(c, c0), ld_, 1.0,
                     at(c, c + 1), ld_);
        }
      }
    }
  }

  void scale_column(long c) {
    const double pivot = *at(c, c);
    if (pivot == 0.0) return;  // singular: recorded in info, left as is
    const double inv = 1.0 / pivot;
    below(c + 1, [&](long r, long m) { blas::scal(m, inv, at(r, c), 1); });
  }

  long global_row_of_a2(long i) const {
    return local_to_global(rows_.a2_first + i, rows_.nb, rows_.myrow, rows_.nprow);
  }

  void swap_rows(double* x, double* y) {
    for (long j = 0; j < jb_; ++j) std::swap(x[j * ld_], y[j * ld_]);
  }

  void pivot_and_swap(long c) {
    // Best candidate here: A1 rows c.. (the same everywhere) and my A2 rows.
    long best_row = c;  // stacked index
    double best_mag = -1.0;
    for (long r = c; r < jb_; ++r) {
      const double m = magnitude(*at(r, c));
      if (m > best_mag) best_mag = m, best_row = r;
    }
    for (long i = 0; i < p_.m2; ++i) {
      const double m = magnitude(*at(jb_ + i, c));
      if (m > best_mag) best_mag = m, best_row = jb_ + i;
    }
    const long k = p_.k;
    long best_global = best_row < jb_ ? k + best_row : global_row_of_a2(best_row - jb_);

    if (colsize_ > 1) {
      mine_[0] = best_mag;
      mine_[1] = static_cast<double>(best_global);
      for (long j = 0; j < jb_; ++j) mine_[2 + j] = *at(best_row, j);
      HPLX_MPI_CHECK(MPI_Allreduce(mine_.data(), best_.data(), 1, candidate_type_, pick_op_, col_));
      best_global = static_cast<long>(best_.at(1));
      if (best_global < k + jb_) {
        if (best_global != k + c) swap_rows(at(c, 0), at(best_global - k, 0));
      } else {
        if (owner_of(best_global, rows_.nb, rows_.nprow) == rows_.myrow) {
          const long i = global_to_local(best_global, rows_.nb, rows_.nprow) - rows_.a2_first;
          for (long j = 0; j < jb_; ++j) *at(jb_ + i, j) = *at(c, j);
        }
        for (long j = 0; j < jb_; ++j) *at(c, j) = best_[2 + j];
      }
    } else if (best_row != c) {
      swap_rows(at(c, 0), at(best_row, 0));
    }
    p_.ipiv[c] = best_global;
    if (*at(c, c) == 0.0 && p_.info == 0) p_.info = k + c + 1;
  }

  Panel& p_;
  const PanelRows& rows_;
  Factorization rfact_, pfact_;
  long nbmin_, ndiv_;
  MPI_Comm col_;
  long ld_, jb_;
  int colsize_ = 1;
  MPI_Datatype candidate_type_ = MPI_DATATYPE_NULL;
  MPI_Op pick_op_ = MPI_OP_NULL;
  std::vector<double> mine_, best_;
};

}  // namespace

void factor_stacked_panel(Panel& panel, const PanelRows& rows, Factorization rfact,
                          Factorization pfact, int nbmin, int ndiv, MPI_Comm col) {
  panel.ipiv.assign(panel.jb, 0);
  panel.info = 0;
  if (panel.jb == 0) return;
  PanelFactorizer(panel, rows, rfact, pfact, nbmin, ndiv, col).run();
}

}  // namespace hplx::lu
