#include "lu/phases/update/apply_panel.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include <omp.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "lu/phases/timing/phase_scope.hpp"
#include "lu/phases/update/swap_update.hpp"

namespace hplx::lu {

// The update's chunks over nn columns, as boundaries b[0] = 0 < ... < nn:
// guided, each chunk about 1/(2 threads) of the columns left, between
// kMinChunk and kMaxChunk and a multiple of 64. Threads that take chunks as
// they free up (one of them after FACT) then finish within a small chunk
// of each other, while the bulk runs in chunks wide enough for DGEMM's best
// rate (fixed chunks leave the last thread to finish idle for up to one
// chunk per iteration). On the project's 2-core VM one-thread DGEMM of
// 5000 x 256 x 192 ran at 59 Gflop/s, of 5000 x 512 x 192 at 60.
constexpr long kMinChunk = 128, kMaxChunk = 512;
namespace {
std::vector<long> chunk_bounds(long nn, int threads) {
  std::vector<long> b{0};
  for (long done = 0; done < nn;) {
    const long left = nn - done;
    long w = (left / (2L * std::max(1, threads)) + 63) / 64 * 64;
    w = std::clamp(w, kMinChunk, kMaxChunk);
    if (left - w < kMinChunk) w = left;
    done += w;
    b.push_back(done);
  }
  return b;
}
}  // namespace

ApplyParams apply_params(const TestCase& t) {
  return {{t.l1_transposed, t.u_transposed},
          swap_params(t),
          t.schedule.swap_pipeline,
          t.schedule.swap_first,
          t.schedule.swap_growth,
          split_column(t.n, t.nb, t.schedule.split) > 0};
}

long split_column(long n, int nb, double fraction) {
  if (fraction <= 0) return 0;
  const long s = nb * std::lround((1.0 - fraction) * static_cast<double>(n) / nb);
  return s > nb && s < n ? s : 0;
}

PanelApplier::PanelApplier(device::Queue& q, LocalMatrix& a, const ApplyParams& params,
                           const ProcessGrid& grid, SwapWorkspace& buffers)
    : q_(q), a_(a), params_(params), grid_(grid), buffers_(buffers) {
  auto duplicate = [&] {
    MPI_Comm dup = MPI_COMM_NULL;
    HPLX_MPI_CHECK(MPI_Comm_dup(grid.col(), &dup));
    return Communicator(dup);
  };
  if (grid.nprow() > 1 && params.swap_pipeline) second_col_ = duplicate();
  if (grid.nprow() > 1 && params.sections)
    for (SectionState& s : sections_) s.second = duplicate();
}

SwapForm PanelApplier::swap_form(long nn, MPI_Comm second) const {
  return lu::swap_form(params_.swap, nn, second);
}

void PanelApplier::start_section(Section s, const Panel& p, const RowSwapPlan& plan, long g0,
                                 long g1, PhaseTimes& times) {
  SectionState& sec = sections_[s];
  sec.p = &p;
  sec.lc0 = a_.col_start(g0);
  sec.nn = std::max(0L, a_.col_start(g1) - sec.lc0);
  if (grid_.nprow() == 1 || sec.nn == 0 || p.jb == 0) return;
  PhaseScope phase(&times.swap, trace_, "RS");
  sec.swap =
      std::make_unique<RowSwapInFlight>(q_, a_, p, plan, sec.lc0, sec.nn, grid_,
                                        buffers_.sections[s], swap_form(sec.nn, sec.second.get()));
}

void PanelApplier::progress_sections() {
  for (SectionState& sec : sections_)
    if (sec.swap) sec.swap->progress();
}

long PanelApplier::begin_section(Section s, PhaseTimes& times) {
  SectionState& sec = sections_[s];
  p_ = sec.p;
  lc0_ = sec.lc0;
  nn_ = sec.nn;
  sec.p = nullptr;
  in_place_ = grid_.nprow() == 1;
  if (sec.swap) {
    {
      PhaseScope phase(&times.swap, trace_, "RS");
      sec.swap->finish();
    }
    times.swap_copy += sec.swap->copy_seconds();
    times.wait += sec.swap->timing().waited;
    times.swap_hidden += sec.swap->timing().hidden();
    sec.swap.reset();
  }
  u_ = buffers_.sections[s].u.device();
  if (nn_ == 0 || p_ == nullptr || p_->jb == 0) return 0;
  return plan_chunks();
}

void PanelApplier::update_section(Section s, PhaseTimes& times, PanelBroadcast* in_flight) {
  const long chunks = begin_section(s, times);
  for (long i = 0; i < chunks; ++i) {
    if (in_flight) in_flight->progress();
    progress_sections();
    run_chunk(i, &times);
  }
}

long PanelApplier::begin(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                         PhaseTimes* times) {
  p_ = &p;
  lc0_ = a_.col_start(g0);
  nn_ = std::max(0L, a_.col_start(g1) - lc0_);
  if (nn_ == 0 || p.jb == 0) return 0;
  // One process row: U stays in place (netlib's update for P = 1) and each
  // chunk swaps its own columns. Otherwise RS gathers U for all columns now.
  in_place_ = grid_.nprow() == 1;
  if (!in_place_) {
    PhaseScope phase(times ? &times->swap : nullptr, trace_, "RS");
    // With the split update, wider than a panel is a plain iteration after
    // the split, in the right section's buffers (reserve_workspace), where
    // no section's swap is in flight.
    const bool wide = params_.sections && nn_ > a_.nb();
    if (wide && section_started(kRight))
      throw Error("split update: a plain iteration's swap while the right section's travels");
    SwapBuffers& b = wide ? buffers_.sections[kRight] : buffers_.whole;
    const SwapCost cost = swap_rows(q_, a_, p, plan, lc0_, nn_, grid_, b, swap_form(nn_));
    u_ = b.u.device();
    if (times) {
      times->swap_copy += cost.copy;
      times->wait += cost.waited;
    }
  }
  return plan_chunks();
}

long PanelApplier::plan_chunks() {
  bounds_ = chunk_bounds(nn_, omp_get_max_threads());
  return static_cast<long>(bounds_.size()) - 1;
}

void PanelApplier::run_chunk(long i, PhaseTimes* times) {
  run_columns(bounds_[i], bounds_[i + 1] - bounds_[i], times);
}

void PanelApplier::run_columns(long c, long w, PhaseTimes* times) {
  const GatheredU u = in_place_ ? GatheredU{} : GatheredU{u_, lc0_, nn_};
  swap_and_update(q_, a_, *p_, u, params_.forms, lc0_ + c, w, grid_, times, trace_, timeline_,
                  &buffers_.in_place);
}

namespace {

// Segment widths of the row-swap pipeline over nn columns: the first about
// `first` of them, each next `growth` times wider, the last taking the rest.
std::vector<long> pipeline_widths(long nn, double first, double growth) {
  std::vector<long> w;
  double width = std::max(1.0, first * static_cast<double>(nn));
  for (long done = 0; done < nn;) {
    const long take = std::min(nn - done, std::max(1L, static_cast<long>(width)));
    w.push_back(take);
    done += take;
    width *= std::max(1.0, growth);
  }
  return w;
}

}  // namespace

void PanelApplier::apply_pipelined(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                                   PhaseTimes& times, PanelBroadcast* in_flight) {
  const long lc0 = a_.col_start(g0);
  const long nn = std::max(0L, a_.col_start(g1) - lc0);
  if (nn == 0 || p.jb == 0) return;
  const std::vector<long> widths = pipeline_widths(nn, params_.swap_first, params_.swap_growth);
  // Segment k is updated from one U while k+1's arrives in the other.
  std::unique_ptr<RowSwapInFlight> swaps[2];
  auto start = [&](std::size_t k, long c) {
    PhaseScope phase(&times.swap, trace_, "RS");
    swaps[k % 2] = std::make_unique<RowSwapInFlight>(q_, a_, p, plan, lc0 + c, widths[k], grid_,
                                                     buffers_.pipeline[k % 2],
                                                     swap_form(widths[k], second_col_.get()));
  };
  long c = 0;
  start(0, 0);
  for (std::size_t k = 0; k < widths.size(); ++k) {
    const long w = widths[k];
    if (k + 1 < widths.size()) start(k + 1, c + w);
    {
      PhaseScope phase(&times.swap, trace_, "RS");
      swaps[k % 2]->finish();
      times.swap_copy += swaps[k % 2]->copy_seconds();
      times.wait += swaps[k % 2]->timing().waited;
      times.swap_hidden += swaps[k % 2]->timing().hidden();
      swaps[k % 2].reset();
    }
    const GatheredU gathered{buffers_.pipeline[k % 2].u.device(), lc0 + c, w};
    for (long d = 0; d < w; d += kChunkColumns) {
      if (in_flight) in_flight->progress();
      if (swaps[(k + 1) % 2]) swaps[(k + 1) % 2]->progress();
      swap_and_update(q_, a_, p, gathered, params_.forms, lc0 + c + d,
                      std::min(kChunkColumns, w - d), grid_, &times, trace_, timeline_);
    }
    c += w;
  }
}

void PanelApplier::apply(const Panel& p, const RowSwapPlan& plan, long g0, long g1,
                         PhaseTimes& times, PanelBroadcast* in_flight) {
  if (grid_.nprow() > 1 && params_.swap_pipeline) {
    apply_pipelined(p, plan, g0, g1, times, in_flight);
    return;
  }
  // Chunks only while a broadcast needs moving on, then the rest in one
  // piece: on 2x1 and 1x2 (one thread per rank) that was about 5% faster than
  // chunks throughout (docs/PERFORMANCE.md, "The update in one piece").
  const long chunks = begin(p, plan, g0, g1, &times);
  bool moving = in_flight != nullptr;
  for (long i = 0; i < chunks; ++i) {
    if (moving) moving = !in_flight->progress();
    if (!moving) {
      run_columns(bounds_[i], nn_ - bounds_[i], &times);
      return;
    }
    run_chunk(i, &times);
  }
}

}  // namespace hplx::lu
