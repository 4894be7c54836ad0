// Recursive panel factorization (netlib's RFACT / PFACT / NBMIN / NDIV) on
// the stacked panel [A1; A2] described in panel.hpp.
//
// Every BLAS call that touches A1 is issued separately from the one that
// touches A2, with sizes that are the same on every process of the column:
// A1 is replicated and must stay bitwise identical everywhere, or processes
// would disagree about pivots.
//
// With more than one thread (rocHPL's CPU panel factorization) one OpenMP
// team runs the whole recursion, every thread the same steps. The stacked
// panel is cut into row tiles of jb rows, A1 being tile 0, dealt round-robin:
// each thread issues the row-wise BLAS calls (the updates below the current
// column, the scaling) on its own tiles only, so its rows stay in its cache
// across the panel's columns. The few calls that touch only A1's top rows
// (U's triangular solves, Crout's U rows) run on thread 0, the owner of A1,
// and the others wait for them at a barrier. The pivot search is a reduction
// over the threads, then over the process column by thread 0 alone, since
// MPI is initialised MPI_THREAD_FUNNELED. A1 is only ever written by
// thread 0, so it stays identical across the processes of the column.
#include "lu/phases/fact/panel_factor.hpp"

#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/host_blas.hpp"
#include "device/host_pass.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/phases/fact/fact_model.hpp"
#include "lu/phases/fact/pivot_candidate.hpp"
#include "lu/phases/fact/recursive_steps.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/timing/device_timeline.hpp"

namespace hplx::lu {
namespace host_blas = device::host_blas;

namespace {

using host_blas::Diag;
using host_blas::Side;
using host_blas::Trans;
using host_blas::Uplo;

double magnitude(double v) {
  // NaN compares false with everything; rank it above every number so the
  // choice stays deterministic (the run then fails its residual check).
  return std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fabs(v);
}

// The best pivot row one thread (or the whole process) has seen so far.
struct Candidate {
  double mag = -1.0;  // magnitude() of the entry; below every real one while no row is seen
  long row = -1;      // stacked row index
};

// The rule of pick_pivot within one process: stacked order is global row
// order, so the smaller stacked row wins a tie, whichever thread saw it.
bool beats(const Candidate& a, const Candidate& b) {
  return a.mag > b.mag || (a.mag == b.mag && a.row < b.row);
}

struct FactorParams {
  Factorization rfact, pfact;
  long nbmin, ndiv;
};

// A range of stacked rows one BLAS call covers.
struct RowRange {
  long first, count;
};

// Threads that share a cache line to publish their candidates would slow
// each other down at every column.
struct alignas(64) CandidateSlot {
  Candidate candidate;
};

// What the threads of the team share: the panel, the per-thread pivot
// candidates, and the pivot exchange over the process column (thread 0's).
class SharedPanel {
 public:
  SharedPanel(Panel& p, const PanelRows& rows, MPI_Comm col, int threads)
      : p_(p), rows_(rows), exchange_(col, p.jb), ld_(p.ld()), jb_(p.jb), slots_(threads) {
    if (exchange_.several()) {
      mine_.resize(jb_ + 2);
      best_.resize(jb_ + 2);
    }
  }
  SharedPanel(const SharedPanel&) = delete;
  SharedPanel& operator=(const SharedPanel&) = delete;

  double* at(long r, long c) { return p_.w.data() + r + c * ld_; }
  // The same element in W's device side (FactDeviceGemm).
  double* on_device(long r, long c) { return p_.w.device() + r + c * ld_; }
  void set_device_gemm(const FactDeviceGemm& g) { device_gemm_ = g; }
  const FactDeviceGemm& device_gemm() const { return device_gemm_; }
  long ld() const { return ld_; }
  long jb() const { return jb_; }
  long m2() const { return p_.m2; }

  Candidate& slot(int thread) { return slots_[thread].candidate; }

  // The best of the first `team` slots.
  Candidate best_of(int team) const {
    Candidate best = slots_[0].candidate;
    for (int t = 1; t < team; ++t) {
      if (beats(slots_[t].candidate, best)) best = slots_[t].candidate;
    }
    return best;
  }

  // Thread 0 only: agrees on the pivot of column c with the rest of the
  // process column, given this process's best candidate, and brings that
  // row to row c. Sets ipiv[c] and info.
  void exchange(long c, const Candidate& best) {
    const long k = p_.k;
    long best_global = best.row < jb_ ? k + best.row : global_row_of_a2(best.row - jb_);

    if (exchange_.several()) {
      mine_[0] = best.mag;
      mine_[1] = static_cast<double>(best_global);
      for (long j = 0; j < jb_; ++j) mine_[2 + j] = *at(best.row, j);
      if (!reduce_over_column()) best_ = mine_;
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
    } else if (best.row != c) {
      swap_rows(at(c, 0), at(best.row, 0));
    }
    p_.ipiv[c] = best_global;
    if (*at(c, c) == 0.0 && p_.info == 0) p_.info = k + c + 1;
  }

  // Thread 0 only, the whole team past a barrier: the top-level sub-panel
  // [first, end) is factored (broadcast pipelining may send it now).
  void subpanel_done(long first, long end) {
    if (!done_ || !*done_ || failure_) return;
    try {
      (*done_)(first, end);
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  void set_subpanel_done(const SubpanelDone* done) { done_ = done; }

  // Call after the team has ended: an MPI error cannot leave an OpenMP
  // region as an exception, so it waits here.
  void rethrow_failure() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  long global_row_of_a2(long i) const {
    return local_to_global(rows_.a2_first + i, rows_.nb, rows_.myrow, rows_.nprow);
  }

  void swap_rows(double* x, double* y) {
    for (long j = 0; j < jb_; ++j) std::swap(x[j * ld_], y[j * ld_]);
  }

  // False after an MPI error: the factorization then goes on with this
  // process's own candidates, so that no thread waits forever at a barrier,
  // and the error is rethrown once the team has ended.
  bool reduce_over_column() {
    if (failure_) return false;
    try {
      exchange_.reduce(mine_.data(), best_.data());
      return true;
    } catch (...) {
      failure_ = std::current_exception();
      return false;
    }
  }

  Panel& p_;
  const PanelRows& rows_;
  const SubpanelDone* done_ = nullptr;
  CandidateExchange exchange_;
  long ld_, jb_;
  std::vector<double> mine_, best_;
  std::vector<CandidateSlot> slots_;
  std::exception_ptr failure_;
  FactDeviceGemm device_gemm_;
};

// One thread's part of the factorization. With a team of one it is the
// whole factorization, issuing the same BLAS calls as an unthreaded code.
class PanelThread {
 public:
  PanelThread(SharedPanel& s, const FactorParams& prm, int thread, int team)
      : s_(s), prm_(prm), me_(thread), team_(team), jb_(s.jb()), ld_(s.ld()) {
    deal_tiles();
  }

  void run() { walk_recursion(prm_.rfact, prm_.nbmin, prm_.ndiv, jb_, 0, jb_, *this); }

 private:
  double* at(long r, long c) { return s_.at(r, c); }
  bool owns_a1() const { return me_ == 0; }

  // Alone, the thread takes A2 whole, in one call per operation. In a team,
  // stacked tile t (rows [t jb, (t + 1) jb)) goes to thread t mod team; tile
  // 0 is A1, which `below` handles apart because its calls start at a column.
  void deal_tiles() {
    const long m2 = s_.m2();
    if (team_ == 1) {
      if (m2 > 0) tiles_.push_back({jb_, m2});
      return;
    }
    const long rows = jb_ + m2;
    for (long t = me_ == 0 ? team_ : me_; t * jb_ < rows; t += team_) {
      tiles_.push_back({t * jb_, std::min(jb_, rows - t * jb_)});
    }
  }

  // Waits for the whole team; every thread must reach the same barriers.
  void sync() const {
    if (team_ > 1) {
#pragma omp barrier
    }
  }

  // Runs f, which touches only rows of A1 (thread 0's), on thread 0; the
  // others wait for its result.
  template <class F>
  void on_main(F&& f) {
    if (owns_a1()) f();
    sync();
  }

  // Calls f(first stacked row, row count) for this thread's rows at or
  // below stacked row r: A1 rows [r, jb) on thread 0, then its A2 tiles.
  template <class F>
  void below(long r, F&& f) {
    if (owns_a1() && r < jb_) f(r, jb_ - r);
    for (const RowRange& t : tiles_) f(t.first, t.count);
  }

  // The recursion's steps, walked in netlib's order by walk_recursion
  // (recursive_steps.hpp): the solves and Crout's row updates touch only
  // A1's rows, so thread 0 runs them while the others wait.
 public:
  void leaf(long c0, long n) {
    base(c0, n);
  }
  void solve(long d, long k, Columns cols) {
    on_main([&] {
      host_blas::trsm(Side::Left, Uplo::Lower, Trans::No, Diag::Unit, k, cols.count, 1.0, at(d, d),
                      ld_, at(d, cols.first), ld_);
    });
  }
  // Crout's row update is always followed by the solve of the same rows
  // (walk_recursion), whose barrier the team waits at: no barrier of its own.
  void update_rows(Columns rows, Columns cols, Columns inner) {
    if (!owns_a1()) return;
    host_blas::gemm(Trans::No, Trans::No, rows.count, cols.count, inner.count, -1.0,
                    at(rows.first, inner.first), ld_, at(inner.first, cols.first), ld_, 1.0,
                    at(rows.first, cols.first), ld_);
  }
  void update_below(long from, Columns cols, Columns inner, long level) {
    update_below(from, cols, inner, s_.device_gemm().applies(level));
  }
  // A top-level sub-panel other than the last is final now, up to the row
  // interchanges of the pivots still to come.
  void subpanel_done(long a, long w) {
    sync();
    if (owns_a1()) s_.subpanel_done(a, a + w);
  }

 private:
  // The recursion's update: rows from stacked row `from` down, columns
  // `cols`, minus the factored columns `inner` times their U rows (the
  // inner columns' rows, above `from`): C -= A B with A = rows x inner, B =
  // inner rows x cols. On the host each thread updates its own rows. On the
  // device (seed 003 5.1.2) thread 0 copies A, B and C into W's device side,
  // runs the GEMM there (A1's rows and A2's rows as separate calls, so A1
  // rounds alike on every process of the column) and copies C back; the
  // others wait.
  void update_below(long from, Columns cols, Columns inner, bool on_device) {
    if (!on_device) {
      below(from, [&](long r, long m) {
        host_blas::gemm(Trans::No, Trans::No, m, cols.count, inner.count, -1.0, at(r, inner.first),
                        ld_, at(inner.first, cols.first), ld_, 1.0, at(r, cols.first), ld_);
      });
      return;
    }
    on_main([&] {
      const FactDeviceGemm& g = s_.device_gemm();
      device::Queue& q = *g.queue;
      const long rows = jb_ + s_.m2() - from;
      const std::size_t pitch = ld_ * sizeof(double);
      auto to_device = [&](long r, long m, Columns c) {
        q.copy_columns(s_.on_device(r, c.first), pitch, at(r, c.first), pitch, m * sizeof(double),
                       c.count);
      };
      to_device(from, rows, inner);
      to_device(inner.first, inner.count, cols);
      to_device(from, rows, cols);
      auto gemm = [&](long r, long m) {
        q.gemm(device::Trans::No, device::Trans::No, m, cols.count, inner.count, -1.0,
               s_.on_device(r, inner.first), ld_, s_.on_device(inner.first, cols.first), ld_, 1.0,
               s_.on_device(r, cols.first), ld_);
        if (g.calls) ++*g.calls;
      };
      if (from < jb_) gemm(from, jb_ - from);
      if (s_.m2() > 0) gemm(std::max(from, jb_), jb_ + s_.m2() - std::max(from, jb_));
      q.copy_columns(at(from, cols.first), pitch, s_.on_device(from, cols.first), pitch,
                     rows * sizeof(double), cols.count);
      q.synchronize();
    });
  }

  // Unblocked factorization of columns [c0, c0 + n).
  void base(long c0, long n) {
    const long end = c0 + n;
    for (long c = c0; c < end; ++c) {
      if (c > c0 && prm_.pfact != Factorization::Right) {
        if (prm_.pfact == Factorization::Left) {
          // U part of column c from the columns already factored.
          on_main([&] {
            host_blas::trsv(Uplo::Lower, Trans::No, Diag::Unit, c - c0, at(c0, c0), ld_, at(c0, c),
                            1);
          });
        }
        below(c, [&](long r, long m) {
          host_blas::gemv(Trans::No, m, c - c0, -1.0, at(r, c0), ld_, at(c0, c), 1, 1.0, at(r, c),
                          1);
        });
      }
      pivot_and_swap(c);
      scale_column(c);
      if (c + 1 < end) {
        if (prm_.pfact == Factorization::Right) {
          below(c + 1, [&](long r, long m) {
            host_blas::ger(m, end - c - 1, -1.0, at(r, c), 1, at(c, c + 1), ld_, at(r, c + 1), ld_);
          });
        } else if (prm_.pfact == Factorization::Crout && c > c0) {
          // Row c of U right of the diagonal.
          on_main([&] {
            host_blas::gemv(Trans::Yes, c - c0, end - c - 1, -1.0, at(c0, c + 1), ld_, at(c, c0),
                            ld_, 1.0, at(c, c + 1), ld_);
          });
        }
      }
    }
  }

  void scale_column(long c) {
    const double pivot = *at(c, c);
    if (pivot == 0.0) return;  // singular: recorded in info, left as is
    const double inv = 1.0 / pivot;
    below(c + 1, [&](long r, long m) { host_blas::scal(m, inv, at(r, c), 1); });
  }

  // Best candidate among this thread's rows of column c, the first one of
  // the largest magnitude.
  Candidate local_best(long c) {
    Candidate best;
    below(c, [&](long r, long m) {
      for (long i = r; i < r + m; ++i) {
        const double v = magnitude(*at(i, c));
        if (v > best.mag) best = {v, i};
      }
    });
    return best;
  }

  // Once every thread has published its candidate, thread 0 picks the
  // process's best and exchanges the rows (possibly one in another thread's
  // tile); everyone waits for row c before scaling by its pivot.
  void pivot_and_swap(long c) {
    const Candidate mine = local_best(c);
    if (team_ == 1) {
      s_.exchange(c, mine);
      return;
    }
    s_.slot(me_) = mine;
    sync();
    if (owns_a1()) s_.exchange(c, s_.best_of(team_));
    sync();
  }

  SharedPanel& s_;
  const FactorParams& prm_;
  int me_, team_;
  long jb_, ld_;
  std::vector<RowRange> tiles_;
};

}  // namespace

void factor_stacked_panel(Panel& panel, const PanelRows& rows, Factorization rfact,
                          Factorization pfact, int nbmin, int ndiv, MPI_Comm col, int threads,
                          const SubpanelDone& done, const FactDeviceGemm& device_gemm) {
  panel.ipiv.assign(panel.jb, 0);
  panel.info = 0;
  if (panel.jb == 0) return;
  const FactorParams prm{rfact, pfact, std::max(1, nbmin), std::max(2, ndiv)};
  SharedPanel shared(panel, rows, col, std::max(1, threads));
  shared.set_subpanel_done(&done);
  if (device_gemm.queue && !panel.w.aliased()) shared.set_device_gemm(device_gemm);
  if (threads <= 1) {
    // No OpenMP region: BLAS keeps all of its own threads, as before threading.
    PanelThread(shared, prm, 0, 1).run();
  } else {
    // A thread without a tile would only wait at the barriers. But a team
    // of two even for A1 alone: BLAS called from a team runs on one
    // thread, and A1's calls must round the same on every process of the
    // column, whatever its share of A2.
    const long tiles = 1 + (panel.m2 + panel.jb - 1) / panel.jb;
    const int team = static_cast<int>(std::min<long>(std::max(2L, tiles), threads));
#pragma omp parallel num_threads(team)
    {
      // The runtime may give fewer threads than asked (nested regions):
      // the tiles are dealt over the team there is.
      PanelThread(shared, prm, omp_get_thread_num(), omp_get_num_threads()).run();
    }
  }
  shared.rethrow_failure();
}

FactParams fact_params(const TestCase& t) {
  return {t.rfact,
          t.pfact,
          t.nbmin,
          t.ndiv,
          t.l1_transposed,
          t.schedule.fact_device_gemm,
          t.schedule.fact_on == FactOn::Device,
          t.schedule.fact_leaf,
          t.schedule.fact_blocks};
}

void factor_panel(device::Queue& q, LocalMatrix& a, Panel& p, const FactParams& algo,
                  const ProcessGrid& grid, int threads, const SubpanelDone& done,
                  DeviceTimeline* timeline, FactEngine engine) {
  const long jb = p.jb, ld = p.ld();
  const long lc0 = a.col_start(p.k);
  const long lr0 = a.row_start(p.k);
  const bool top = grid.myrow() == p.owner_row;
  {
    DeviceTimeline::Span down(timeline, q, DeviceTimeline::kTransfer);
    if (top) device::copy_matrix(q, jb, jb, a.at(lr0, lc0), a.lda(), p.a1(), ld);
    device::copy_matrix(q, p.m2, jb, a.at(p.a2_first, lc0), a.lda(), p.a2(), ld);
  }
  q.synchronize();
  // The host's passes over A1 (done, or charged where the backend's
  // buffers hold no data).
  const device::HostPass a1_pass = device::HostPass::strided(static_cast<double>(jb) * jb);
  auto host_pass = [&](auto&& pass) { device::on_host(a.backend(), a1_pass, pass); };
  if (grid.nprow() > 1) {
    // A1 is replicated down the column; send it as a jb x jb block.
    // Host memory of a's backend (the sim backend shares it between ranks).
    device::Buffer<double> block(a.backend(), jb * jb, device::MemorySpace::Host);
    if (top)
      host_pass([&] {
        for (long j = 0; j < jb; ++j) std::copy_n(p.a1() + j * ld, jb, block.data() + j * jb);
      });
    HPLX_MPI_CHECK(
        MPI_Bcast(block.data(), static_cast<int>(jb * jb), MPI_DOUBLE, p.owner_row, grid.col()));
    if (!top)
      host_pass([&] {
        for (long j = 0; j < jb; ++j) std::copy_n(block.data() + j * jb, jb, p.a1() + j * ld);
      });
  }

  const PanelRows rows{a.nb(), grid.nprow(), grid.myrow(), p.a2_first};
  if (engine == FactEngine::ModelledHost)  // FACT's arithmetic charged, its pivots modelled
    model_stacked_panel(q.backend(), p, algo.nbmin, algo.ndiv, grid.col(), a.n(), done);
  else
    factor_stacked_panel(p, rows, algo.rfact, algo.pfact, algo.nbmin, algo.ndiv, grid.col(),
                         threads, done, FactDeviceGemm{&q, algo.device_gemm_cols});

  {
    DeviceTimeline::Span up(timeline, q, DeviceTimeline::kTransfer);
    if (top) device::copy_matrix(q, jb, jb, p.a1(), ld, a.at(lr0, lc0), a.lda());
    device::copy_matrix(q, p.m2, jb, p.a2(), ld, a.at(p.a2_first, lc0), a.lda());
  }
  q.synchronize();  // the panel's buffer changes next (L1 transposed, then LBCAST)
  if (algo.l1_transposed) host_pass([&] { transpose_l1(p); });
}

std::vector<long> subpanel_starts(int jb, int nbmin, int ndiv) {
  nbmin = std::max(1, nbmin);
  ndiv = std::max(2, ndiv);
  if (jb <= nbmin) return {0};
  // The recursion's split (panel_factor.cpp): NDIV parts, each a multiple of NBMIN.
  const long s = recursion_part(jb, nbmin, ndiv);
  std::vector<long> starts;
  for (long a = 0; a < jb; a += s) starts.push_back(a);
  return starts;
}

}  // namespace hplx::lu
