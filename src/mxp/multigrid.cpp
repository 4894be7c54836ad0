#include "mxp/multigrid.hpp"

#include <algorithm>
#include <type_traits>

#include "core/timer.hpp"
#include "mxp/gauss_seidel.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {
template <class T>
void restrict_residual_rows(const EllMatrix<T>& a, const std::vector<int>& fine_to_coarse,
                            const T* __restrict r, const T* z, T* __restrict rc, long begin,
                            long end) {
  const int* __restrict f2c = fine_to_coarse.data();
  ell_row_sums<true>(
      a, z, begin, end, [r](long i) { return r[i]; },
      [rc, f2c](long i, T acc) { rc[f2c[i]] = acc; });
}

template <class T>
void restrict_residual_gather(const EllMatrix<T>& a, const std::vector<int>& coarse_to_fine,
                              const T* __restrict r, const T* z, T* __restrict rc) {
  const T* __restrict vals = a.values.data();
  const int* __restrict cols = a.pattern->cols.data();
  const long nc = static_cast<long>(coarse_to_fine.size());
#pragma omp parallel for schedule(static)
  for (long i = 0; i < nc; ++i) {
    const long f = coarse_to_fine[i];
    const long base = EllPattern::index(f, 0);
    T acc = r[f];
    for (int s = 0; s < kSlots; ++s)
      acc -= vals[base + s * kSliceRows] * z[cols[base + s * kSliceRows]];
    rc[i] = acc;
  }
}

template <class T>
void prolongate(const std::vector<int>& coarse_to_fine, const T* __restrict zc, T* __restrict z) {
  const long nc = static_cast<long>(coarse_to_fine.size());
  const int* __restrict c2f = coarse_to_fine.data();
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < nc; ++i) z[c2f[i]] += zc[i];
}

template <class T>
Multigrid<T>::Multigrid(const Problem& problem, MPI_Comm comm) : problem_(&problem) {
  const int nl = static_cast<int>(problem.levels.size());
  if constexpr (std::is_same_v<T, double>) {
    for (int l = 0; l < nl; ++l) a_.push_back(&problem.levels[l].a);
  } else {
    owned_.reserve(nl);
    for (int l = 0; l < nl; ++l) {
      owned_.push_back(convert_matrix<T>(problem.levels[l].a));
      a_.push_back(&owned_.back());
    }
  }
  rc_.resize(nl);
  zc_.resize(nl);
  for (int l = 0; l < nl; ++l) {
    halo_.emplace_back(&problem.levels[l].halo, a_[l]->rows(), comm);
    if (l > 0) {
      rc_[l].assign(a_[l]->rows(), T(0));
      zc_[l].assign(a_[l]->columns(), T(0));
    }
  }
}

template <class T>
void Multigrid<T>::apply(const T* r, T* z, MotifStats* stats) {
  const double t0 = wall_time();
  cycle(0, r, z, stats);
  if (stats) {
    const double t1 = wall_time();
    stats->span("MG", t0, t1);
    stats->mg += t1 - t0;
    stats->mg_calls += 1;
    // The reference's model: 1 pre-, 1 post-smoothing and 1 residual per
    // level, each counted as an SpMV over that level's nonzeros.
    stats->flops_mg += 2.0 * 3.0 * static_cast<double>(problem_->nnz_mg);
  }
}

namespace {
// Span names per level (a trace copies them).
const char* const kPreSmooth[] = {"GS pre L0", "GS pre L1", "GS pre L2", "GS pre L3"};
const char* const kPostSmooth[] = {"GS post L0", "GS post L1", "GS post L2", "GS post L3"};
const char* const kCoarsest[] = {"GS L0", "GS L1", "GS L2", "GS L3"};
const char* const kRestriction[] = {"Restriction L0", "Restriction L1", "Restriction L2",
                                    "Restriction L3"};
const char* const kProlongation[] = {"Prolongation L0", "Prolongation L1", "Prolongation L2",
                                     "Prolongation L3"};
static_assert(kMgLevels <= 4, "name the spans of the extra levels");
}  // namespace

template <class T>
void Multigrid<T>::cycle(int l, const T* r, T* z, MotifStats* stats) {
  const EllMatrix<T>& a = *a_[l];
  const Level& lv = problem_->levels[l];
  const long n = a.rows();
  // z = 0 on entry (owned rows; the sweep zeroes the halo).
  fill(n, T(0), z);
  const bool coarsest = l + 1 == levels();
  gs_sweep(a, lv.order, halo_[l], r, z, /*x_is_zero=*/true, stats,
           coarsest ? kCoarsest[l] : kPreSmooth[l]);
  if (coarsest) return;

  // Fused residual + restriction at the coarse points (fine color 0).
  T* rc = rc_[l + 1].data();
  T* zc = zc_[l + 1].data();
  double t = wall_time();
  halo_[l].begin(z);
  const int cb = lv.order.coarse_block;
  if (!lv.order.sequential)
    restrict_residual_rows(a, lv.fine_to_coarse, r, z, rc, lv.order.color_begin[cb],
                           lv.order.boundary_begin[cb]);
  const double tw = wall_time();
  halo_[l].finish();
  const double tw1 = wall_time();
  if (lv.order.sequential)
    restrict_residual_gather(a, lv.coarse_to_fine, r, z, rc);
  else
    restrict_residual_rows(a, lv.fine_to_coarse, r, z, rc, lv.order.boundary_begin[cb],
                           lv.order.color_begin[cb + 1]);
  if (stats) {
    const double t1 = wall_time();
    if (!lv.order.sequential) stats->span("interior rows", t, tw);
    stats->span("halo wait", tw, tw1);
    stats->span("halo rows", tw1, t1);
    stats->span(kRestriction[l], t, t1);
    stats->span("halo exchange", t, tw1, kTraceHalo);
    stats->halo_wait += tw1 - tw;
    stats->restriction += t1 - t;
    // Coarse rows of the matrix, r read, r_c written, all of z read once.
    stats->bytes_restriction +=
        static_cast<double>(lv.coarse_to_fine.size()) * ell_row_bytes<T>(2) + n * sizeof(T);
  }

  cycle(l + 1, rc, zc, stats);

  t = wall_time();
  prolongate(lv.coarse_to_fine, zc, z);
  if (stats) {
    const double t1 = wall_time();
    stats->span(kProlongation[l], t, t1);
    stats->prolongation += t1 - t;
    // z_c and the indices read, z read and written at the coarse points.
    stats->bytes_prolongation += lv.coarse_to_fine.size() * (3.0 * sizeof(T) + sizeof(int));
  }
  gs_sweep(a, lv.order, halo_[l], r, z, /*x_is_zero=*/false, stats, kPostSmooth[l]);
}

template void restrict_residual_rows<float>(const EllMatrix<float>&, const std::vector<int>&,
                                            const float*, const float*, float*, long, long);
template void restrict_residual_rows<double>(const EllMatrix<double>&, const std::vector<int>&,
                                             const double*, const double*, double*, long, long);
template void restrict_residual_gather<float>(const EllMatrix<float>&, const std::vector<int>&,
                                              const float*, const float*, float*);
template void restrict_residual_gather<double>(const EllMatrix<double>&, const std::vector<int>&,
                                               const double*, const double*, double*);
template void prolongate<float>(const std::vector<int>&, const float*, float*);
template void prolongate<double>(const std::vector<int>&, const double*, double*);
template class Multigrid<float>;
template class Multigrid<double>;

}  // namespace hplx::mxp
