#include "mxp/multigrid.hpp"

#include <type_traits>

#include "core/timer.hpp"
#include "mxp/gauss_seidel.hpp"
#include "mxp/host/ell_simd.hpp"
#include "mxp/kernels/ell_kernels.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

// The one dispatch point of the fused residual + restriction.
template <class T>
void restrict_residual_rows(device::Queue& q, const EllMatrix<T>& a, const int* f2c, const T* r,
                            const T* z, T* rc, long begin, long end, KernelPath path) {
  if (begin >= end) return;
  const T* vals = a.values.data();
  const int* cols = a.pattern->cols.data();
  if (use_host_fast_path(q, path)) {
    const long rows = a.rows();
    q.execute([=] {
      const T* __restrict rr = r;
      T* __restrict out = rc;
      const int* __restrict map = f2c;
      host::ell_row_sums<true>(
          vals, cols, rows, z, begin, end, [rr](long i) { return rr[i]; },
          [out, map](long i, T acc) { out[map[i]] = acc; });
    });
  } else {
    device::launch(q, end - begin, kernels::RestrictBody<T>{vals, cols, r, z, rc, f2c, begin});
  }
}

template <class T>
void restrict_residual_gather(device::Queue& q, const EllMatrix<T>& a, const int* c2f, long nc,
                              const T* r, const T* z, T* rc) {
  run_elementwise(
      q, nc,
      kernels::RestrictGatherBody<T>{a.values.data(), a.pattern->cols.data(), r, z, rc, c2f});
}

template <class T>
void prolongate(device::Queue& q, const int* c2f, long nc, const T* zc, T* z) {
  run_elementwise(q, nc, kernels::ProlongBody<T>{c2f, zc, z});
}

template <class T>
Multigrid<T>::Multigrid(device::Device& dev, const Problem& problem, MPI_Comm comm)
    : dev_(&dev), problem_(&problem) {
  const int nl = static_cast<int>(problem.levels.size());
  if constexpr (std::is_same_v<T, double>) {
    for (int l = 0; l < nl; ++l) a_.push_back(&problem.levels[l].a);
  } else {
    owned_.reserve(nl);
    for (int l = 0; l < nl; ++l) {
      owned_.push_back(convert_matrix<T>(dev, problem.levels[l].a));
      a_.push_back(&owned_.back());
    }
  }
  rc_.resize(nl);
  zc_.resize(nl);
  device::Queue& q = dev.compute();
  for (int l = 0; l < nl; ++l) {
    halo_.emplace_back(dev, &problem.levels[l].halo, a_[l]->rows(), comm);
    if (l > 0) {
      rc_[l] = dev.alloc<T>(a_[l]->rows());
      zc_[l] = dev.alloc<T>(a_[l]->columns());
      fill(q, rc_[l].size(), T(0), rc_[l].data());
      fill(q, zc_[l].size(), T(0), zc_[l].data());
    }
  }
}

template <class T>
bool Multigrid<T>::replays(const MotifStats* stats) const {
  if (!use_graphs_ || !queue().can_capture() || (stats && stats->trace)) return false;
  for (const HaloExchange<T>& h : halo_)
    if (!h.empty()) return false;
  return true;
}

template <class T>
void Multigrid<T>::apply(const T* r, T* z, MotifStats* stats) {
  if (!replays(stats)) return run_cycle(r, z, stats);
  const auto [it, fresh] = graphs_.try_emplace({r, z});
  CapturedCycle& c = it->second;
  if (fresh) {
    queue().begin_capture();
    try {
      run_cycle(r, z, &c.stats);
      c.graph = queue().end_capture();
    } catch (...) {
      graphs_.erase(it);
      try {
        queue().end_capture();
      } catch (...) {  // the capture had ended: nothing to discard
      }
      throw;
    }
    c.stats.halo_wait = 0;  // no halo: what the capture's clock read there is not a wait
  }
  const std::vector<device::EventPtr> events = queue().replay(*c.graph);
  if (stats) *stats += c.stats.replayed(events);
}

template <class T>
void Multigrid<T>::run_cycle(const T* r, T* z, MotifStats* stats) {
  MotifClock clock(queue(), stats);
  cycle(0, r, z, stats);
  if (stats) {
    clock.end(&MotifStats::mg, "MG");
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
  device::Queue& q = dev_->compute();
  const EllMatrix<T>& a = *a_[l];
  const Level& lv = problem_->levels[l];
  const long n = a.rows();
  // z = 0 on entry (owned rows; the sweep zeroes the halo).
  fill(q, n, T(0), z);
  const bool coarsest = l + 1 == levels();
  gs_sweep(q, a, lv.order, halo_[l], r, z, /*x_is_zero=*/true, stats,
           coarsest ? kCoarsest[l] : kPreSmooth[l]);
  if (coarsest) return;

  // Fused residual + restriction at the coarse points (fine color 0).
  T* rc = rc_[l + 1].data();
  T* zc = zc_[l + 1].data();
  const long nc = lv.coarse_to_fine.size();
  MotifClock restriction(q, stats);
  const double t = restriction.t0();
  halo_[l].begin(q, z);
  const int cb = lv.order.coarse_block;
  if (!lv.order.sequential)
    restrict_residual_rows(q, a, lv.fine_to_coarse.data(), r, z, rc, lv.order.color_begin[cb],
                           lv.order.boundary_begin[cb]);
  const double tw = wall_time();
  halo_[l].finish(q, z);
  const double tw1 = wall_time();
  if (lv.order.sequential)
    restrict_residual_gather(q, a, lv.coarse_to_fine.data(), nc, r, z, rc);
  else
    restrict_residual_rows(q, a, lv.fine_to_coarse.data(), r, z, rc, lv.order.boundary_begin[cb],
                           lv.order.color_begin[cb + 1]);
  if (stats) {
    const double t1 = restriction.end(&MotifStats::restriction, kRestriction[l]);
    if (!lv.order.sequential) stats->span("interior rows", t, tw);
    stats->span("halo wait", tw, tw1);
    stats->span("halo rows", tw1, t1);
    stats->span("halo exchange", t, tw1, kTraceHalo);
    stats->halo_wait += tw1 - tw;
    // Coarse rows of the matrix, r read, r_c written, all of z read once.
    stats->bytes_restriction += static_cast<double>(nc) * ell_row_bytes<T>(2) + n * sizeof(T);
  }

  cycle(l + 1, rc, zc, stats);

  if (fuse_prolongation_ && !lv.order.sequential && lv.order.coarse_block == 0) {
    // z += P z_c inside the sweep's colour-0 kernels (they alone write the
    // coarse points before the later colours read them).
    const FusedProlongation<T> p{lv.fine_to_coarse.data(), zc, lv.order.coarse_end()};
    gs_sweep(q, a, lv.order, halo_[l], r, z, /*x_is_zero=*/false, stats, kPostSmooth[l],
             KernelPath::Best, &p);
    return;
  }
  MotifClock prolongation(q, stats);
  prolongate(q, lv.coarse_to_fine.data(), nc, zc, z);
  if (stats) {
    prolongation.end(&MotifStats::prolongation, kProlongation[l]);
    // z_c and the indices read, z read and written at the coarse points.
    stats->bytes_prolongation += nc * (3.0 * sizeof(T) + sizeof(int));
  }
  gs_sweep(q, a, lv.order, halo_[l], r, z, /*x_is_zero=*/false, stats, kPostSmooth[l]);
}

template void restrict_residual_rows<float>(device::Queue&, const EllMatrix<float>&, const int*,
                                            const float*, const float*, float*, long, long,
                                            KernelPath);
template void restrict_residual_rows<double>(device::Queue&, const EllMatrix<double>&, const int*,
                                             const double*, const double*, double*, long, long,
                                             KernelPath);
template void restrict_residual_gather<float>(device::Queue&, const EllMatrix<float>&, const int*,
                                              long, const float*, const float*, float*);
template void restrict_residual_gather<double>(device::Queue&, const EllMatrix<double>&, const int*,
                                               long, const double*, const double*, double*);
template void prolongate<float>(device::Queue&, const int*, long, const float*, float*);
template void prolongate<double>(device::Queue&, const int*, long, const double*, double*);
template class Multigrid<float>;
template class Multigrid<double>;

}  // namespace hplx::mxp
