// FACT on the device: see panel_factor_device.hpp. The recursion mirrors
// panel_factor.cpp's single-threaded one call for call; the leaf's row
// work is in kernels/fact_kernels.hpp.
#include "lu/phases/fact/panel_factor_device.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "device/launch.hpp"
#include "lu/kernels/fact_kernels.hpp"
#include "lu/phases/fact/fact_model.hpp"
#include "lu/phases/fact/pivot_candidate.hpp"
#include "lu/phases/fact/recursive_steps.hpp"
#include "lu/phases/timing/device_timeline.hpp"

namespace hplx::lu {
namespace kern = kernels;
using device::Diag;
using device::Side;
using device::Trans;
using device::Uplo;

void DeviceFactWorkspace::fit(device::Backend& backend, long rows, int nb) {
  if (backend_ == &backend && rows <= rows_ && nb <= nb_) return;
  if (backend_ != &backend) {
    rows_ = 0;
    nb_ = 0;
  }
  backend_ = &backend;
  rows_ = std::max(rows_, rows);
  nb_ = std::max(nb_, nb);
  stage_at_ = kern::PivotSearch::of(rows_).doubles();
  best_at_ = stage_at_ + nb_ + 2;
  block_at_ = best_at_ + nb_ + 2;
  scratch_.bind(backend);
  scratch_.resize(scratch_doubles(rows_, nb_));
  info_.bind(backend);
  info_.resize(1);
}

long DeviceFactWorkspace::scratch_doubles(long rows, int nb) {
  // The pivot search's candidates, the staged and the best candidate rows,
  // A1's block.
  return kern::PivotSearch::of(rows).doubles() + 2 * (nb + 2L) + static_cast<long>(nb) * nb;
}

void DeviceFactWorkspace::reserve(device::Backend& backend, long rows, int nb) {
  fit(backend, rows, nb);
}

void DeviceFactWorkspace::start_solve(device::Queue& q) {
  fit(q.backend(), 1, 1);
  started_ = true;
  // The host side too: a simulated copy back moves no data (none is there).
  info_[0] = 0.0;
  device::launch(q, 1, kern::FillDoubles{info_.device(), 0.0});
}

long DeviceFactWorkspace::solve_info(device::Queue& q) {
  info_.to_host(q, 0, 1);
  q.synchronize();
  return static_cast<long>(info_[0]);
}

namespace {

class DeviceFact {
 public:
  DeviceFact(device::Queue& q, Panel& p, const PanelRows& rows, const FactParams& f, MPI_Comm col,
             DeviceFactWorkspace& ws, const SubpanelDone& done)
      : q_(q),
        p_(p),
        rfact_(f.rfact),
        pfact_(f.pfact),
        nbmin_(std::max(1, f.nbmin)),
        ndiv_(std::max(2, f.ndiv)),
        leaf_(f.leaf),
        leaf_blocks_(f.leaf_blocks),
        ws_(ws),
        done_(done),
        exchange_(col, p.jb),
        jb_(p.jb),
        ld_(p.ld()),
        m2_(p.m2),
        w_(p.w.device()),
        tail_(p.w.device() + p.ld() * p.jb),
        rows_{p.k, p.jb, rows.nb, rows.nprow, rows.myrow, rows.a2_first} {}

  void run() {
    device::launch(q_, jb_ + 1, kern::FillDoubles{tail_, 0.0});
    walk_recursion(rfact_, nbmin_, ndiv_, jb_, 0, jb_, *this);
  }

  // The recursion's steps (recursive_steps.hpp), issued on the queue.
  void solve(long d, long k, Columns cols) { trsm(k, cols.count, at(d, d), at(d, cols.first)); }
  void update_below(long from, Columns cols, Columns inner, long /*level*/) {
    below(from, [&](long r, long m) {
      gemm(m, cols.count, inner.count, at(r, inner.first), at(inner.first, cols.first),
           at(r, cols.first));
    });
  }
  void update_rows(Columns rows, Columns cols, Columns inner) {
    gemm(rows.count, cols.count, inner.count, at(rows.first, inner.first),
         at(inner.first, cols.first), at(rows.first, cols.first));
  }
  void subpanel_done(long a, long w) {
    if (!done_) return;
    // The sub-panel leaves from W's host side (broadcast pipelining).
    p_.w.to_host(q_, a * ld_, w * ld_);
    q_.synchronize();
    done_(a, a + w);
  }
  void leaf(long c0, long n) {
    const long end = c0 + n;
    if (pfact_ == Factorization::Right && leaf_ != FactLeaf::Kernels && !exchange_.several()) {
      const kern::FusedRightLeaf fused{w_, ld_, c0, end, ws_.d_candidates(), rows_, tail_};
      if (leaf_ == FactLeaf::Fused3)
        device::launch_phased(q_, kern::MergedRightLeaf{fused}, leaf_blocks_);
      else
        device::launch_phased(q_, fused, leaf_blocks_);
      return;
    }
    for (long c = c0; c < end; ++c) {
      if (c > c0 && pfact_ != Factorization::Right) {
        if (pfact_ == Factorization::Left) trsm(c - c0, 1, at(c0, c0), at(c0, c));
        below(c, [&](long r, long m) {
          q_.gemv(Trans::No, m, c - c0, -1.0, at(r, c0), ld_, at(c0, c), 1, 1.0, at(r, c), 1);
        });
      }
      pivot(c);
      device::launch(q_, ld_ - c - 1, kern::ScaleByPivot{w_, ld_, c, c + 1});
      if (c + 1 < end) {
        if (pfact_ == Factorization::Right) {
          const long m = ld_ - c - 1;
          device::launch(q_, m * (end - c - 1), kern::RankOneUpdate{w_, ld_, c, c + 1, m});
        } else if (pfact_ == Factorization::Crout && c > c0) {
          q_.gemv(Trans::Yes, c - c0, end - c - 1, -1.0, at(c0, c + 1), ld_, at(c, c0), ld_, 1.0,
                  at(c, c + 1), ld_);
        }
      }
    }
  }

 private:
  double* at(long r, long c) const { return w_ + r + c * ld_; }

  // A1's rows [r, jb) and A2's rows, as separate calls (host FACT's below()).
  template <class F>
  void below(long r, F&& f) {
    if (r < jb_) f(r, jb_ - r);
    if (m2_ > 0) f(jb_, m2_);
  }

  void gemm(long m, long n, long k, const double* a, const double* b, double* c) {
    if (m > 0 && n > 0 && k > 0)
      q_.gemm(Trans::No, Trans::No, m, n, k, -1.0, a, ld_, b, ld_, 1.0, c, ld_);
  }
  // B := L^-1 B, L unit lower m x m at `l`, B m x n.
  void trsm(long m, long n, const double* l, double* b) {
    if (m > 0 && n > 0)
      q_.trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, m, n, 1.0, l, ld_, b, ld_);
  }

  // The pivot of column c: the chunks' candidates, the groups', then the
  // best, brought to row c in W (one process) or exchanged over the column
  // first.
  void pivot(long c) {
    const kern::PivotSearch search = kern::PivotSearch::of(ld_ - c);
    double* const chunked = ws_.d_candidates();
    double* const grouped = chunked + 2 * search.chunks;
    device::launch(q_, search.chunks,
                   kern::ColumnCandidates{w_, ld_, c, c, ld_, chunked, search.chunks}, 16);
    device::launch(q_, search.groups,
                   kern::GroupCandidates{chunked, search.chunks, grouped, search.groups}, 16);
    if (!exchange_.several()) {
      device::launch(q_, 1,
                     kern::PickPivot{w_, ld_, c, grouped, search.groups, rows_, tail_, nullptr});
      return;
    }
    device::launch(
        q_, 1, kern::PickPivot{w_, ld_, c, grouped, search.groups, rows_, tail_, ws_.d_stage()});
    ws_.scratch().to_host(q_, ws_.stage_at(), jb_ + 2);
    q_.synchronize();  // MPI needs this process's candidate
    exchange_.reduce(ws_.h_stage(), ws_.h_best());
    const double* best = ws_.h_best();
    p_.ipiv[c] = static_cast<long>(best[1]);
    if (best[2 + c] == 0.0 && p_.info == 0) p_.info = p_.k + c + 1;
    ws_.scratch().to_device(q_, ws_.best_at(), jb_ + 2);
    device::launch(q_, 1, kern::ApplyExchangedPivot{w_, ld_, c, ws_.d_best(), rows_, tail_});
  }

  device::Queue& q_;
  Panel& p_;
  const Factorization rfact_, pfact_;
  const long nbmin_, ndiv_;
  const FactLeaf leaf_;
  const int leaf_blocks_;
  DeviceFactWorkspace& ws_;
  const SubpanelDone& done_;
  CandidateExchange exchange_;
  const long jb_, ld_, m2_;
  double* const w_;
  double* const tail_;
  const kern::StackedRows rows_;
};

}  // namespace

void factor_stacked_panel_device(device::Queue& q, Panel& panel, const PanelRows& rows,
                                 const FactParams& f, MPI_Comm col, DeviceFactWorkspace& ws,
                                 const SubpanelDone& done) {
  if (panel.jb == 0) return;
  int colsize = 1;
  MPI_Comm_size(col, &colsize);
  if (colsize > 1) {
    panel.ipiv.assign(panel.jb, 0);
    panel.info = 0;
  }
  ws.fit(q.backend(), panel.ld(), panel.jb);
  DeviceFact(q, panel, rows, f, col, ws, done).run();
}

void factor_panel_device(device::Queue& q, LocalMatrix& a, Panel& p, const FactParams& f,
                         const ProcessGrid& grid, DeviceFactWorkspace& ws, bool to_host,
                         const SubpanelDone& done, DeviceTimeline* timeline, FactEngine engine) {
  const long jb = p.jb, ld = p.ld();
  const long lc0 = a.col_start(p.k);
  const long lr0 = a.row_start(p.k);
  const bool top = grid.myrow() == p.owner_row;
  ws.fit(a.backend(), ld, static_cast<int>(jb));
  double* w = p.w.device();
  // A reused W: the updates that read its earlier panel finish first.
  for (const device::EventPtr& e : p.reuse_after) q.wait(e);
  p.reuse_after.clear();
  std::optional<DeviceTimeline::Span> down(std::in_place, timeline, q, DeviceTimeline::kTransfer);
  if (grid.nprow() > 1) {
    // A1 is replicated down the column: the owner's block goes to the
    // others through pinned memory.
    if (top) {
      device::copy_matrix(q, jb, jb, a.at(lr0, lc0), a.lda(), ws.h_block(), jb);
      q.synchronize();
    }
    HPLX_MPI_CHECK(
        MPI_Bcast(ws.h_block(), static_cast<int>(jb * jb), MPI_DOUBLE, p.owner_row, grid.col()));
    device::copy_matrix(q, jb, jb, static_cast<const double*>(ws.h_block()), jb, w, ld);
  } else if (top) {
    device::copy_matrix(q, jb, jb, static_cast<const double*>(a.at(lr0, lc0)), a.lda(), w, ld);
  }
  device::copy_matrix(q, p.m2, jb, static_cast<const double*>(a.at(p.a2_first, lc0)), a.lda(),
                      w + jb, ld);
  down.reset();

  const PanelRows rows{a.nb(), grid.nprow(), grid.myrow(), p.a2_first};
  {
    // The record's device_fact_s and the trace's FACT span on the panel
    // track: the queue's time from the first of FACT's calls to the last.
    DeviceTimeline::Span on_device(timeline, q, DeviceTimeline::kFact);
    // FACT's model charges its work to q where the buffers hold no data.
    if (engine == FactEngine::ModelledDevice)
      model_stacked_panel_device(q, p, f.rfact, f.pfact, f.nbmin, f.ndiv, grid.col(), a.n(), done);
    else
      factor_stacked_panel_device(q, p, rows, f, grid.col(), ws, done);
  }

  {
    DeviceTimeline::Span up(timeline, q, DeviceTimeline::kTransfer);
    if (top)
      device::copy_matrix(q, jb, jb, static_cast<const double*>(w), ld, a.at(lr0, lc0), a.lda());
    device::copy_matrix(q, p.m2, jb, static_cast<const double*>(w + jb), ld, a.at(p.a2_first, lc0),
                        a.lda());
  }
  if (f.l1_transposed && jb > 1)
    device::launch(q, jb * jb, kern::TransposeBlock{w, ld, static_cast<int>(jb)});
  p.on_device = true;
  if (to_host) {
    p.w.to_host(q);
    q.synchronize();  // LBCAST sends W's host side
    p.ipiv.resize(jb);
    unpack_panel_tail(p);
    p.pivots_on_host = true;
  } else if (grid.nprow() > 1) {
    p.pivots_on_host = true;  // the exchanges brought them
  } else {
    p.pivots_on_host = false;
    if (ws.solve_started())
      device::launch(q, 1, kern::KeepFirstInfo{w + ld * jb + jb, ws.d_solve_info()});
  }
  if (!q.runs_inline()) p.factored = q.record();
}

void panel_received_on_device(device::Queue& q, Panel& p, const ProcessGrid& grid,
                              DeviceFactWorkspace& ws) {
  p.on_device = true;
  if (grid.nprow() > 1) {
    pivots_to_host(q, p);
    p.pivots_on_host = true;
    return;
  }
  p.pivots_on_host = false;
  if (ws.solve_started())
    device::launch(q, 1,
                   kern::KeepFirstInfo{p.w.device() + p.ld() * p.jb + p.jb, ws.d_solve_info()});
}

void pivots_to_host(device::Queue& q, Panel& p) {
  p.w.to_host(q, p.ld() * p.jb, p.jb + 1);
  q.synchronize();
  p.ipiv.resize(p.jb);
  unpack_panel_tail(p);
}

}  // namespace hplx::lu
