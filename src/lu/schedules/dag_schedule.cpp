#include "lu/schedules/dag_schedule.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/activity.hpp"
#include "core/balance_point.hpp"
#include "core/error.hpp"
#include "core/threads.hpp"
#include "core/timer.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/phases/comm/panel_broadcast.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/panel.hpp"
#include "lu/phases/timing/phase_scope.hpp"
#include "lu/phases/update/swap_update.hpp"
#include "lu/schedules/factor_and_send.hpp"
#include "lu/schedules/iteration_log.hpp"
#include "lu/schedules/pivoting_phases.hpp"

namespace hplx::lu {
namespace {

// One row swap of a panel over local columns [lc0, lc0 + nn) (P > 1) and
// the U it gathered.
struct SwapPart {
  SwapBuffers rs;
  long lc0 = 0, nn = 0;
};

// What the tasks of one panel share: the factored panel, its swap plan and
// (P > 1) U of the next panel's block and of the rest, freed by the
// panel's last task.
struct PanelWork {
  Panel panel;
  RowSwapPlan plan;
  SwapPart next, rest;
  std::unique_ptr<PanelBroadcast> bcast;       // from run_post to run_wait
  std::unique_ptr<RowSwapInFlight> rest_swap;  // early rest swap: from RSR post to its finish
};

// The bookkeeping of one panel: its tasks' phase seconds and how many of
// its tasks have still to finish.
struct PanelState {
  PhaseTimes times;
  long remaining = 0;
  long info = 0;
};

// One update task: local blocks [lo, hi) with the panel, at a priority.
struct UpdateUnit {
  long lo = 0, hi = 0;
  int priority = 1;
};

// How panel p's trailing local blocks are cut into tasks: [b0, nlb) are
// trailing; the block of the next panel (global block p + 1), when this
// process column holds it, is `next` (its own swap with P > 1); the other
// blocks are the rest (one swap from rest_b0 on). `head` holds the next
// block's update, `tail` the rest's, urgent blocks alone and the others in
// groups.
struct PanelCut {
  long b0 = 0, rest_b0 = 0;
  bool has_next = false;
  std::vector<UpdateUnit> head, tail;
};

// The threads that the grid's ranks on this node run, each a team of
// `team` (collective over `all`).
int node_threads(MPI_Comm all, int team) {
  MPI_Comm node = MPI_COMM_NULL;
  HPLX_MPI_CHECK(MPI_Comm_split_type(all, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int total = 0;
  HPLX_MPI_CHECK(MPI_Allreduce(&team, &total, 1, MPI_INT, MPI_SUM, node));
  HPLX_MPI_CHECK(MPI_Comm_free(&node));
  return total;
}

class DagLu {
 public:
  DagLu(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid)
      : ctx_(ctx),
        queue_(ctx.device().compute()),
        fact_(a, t, grid, nullptr, 1),
        swap_(swap_params(t)),
        forms_{t.l1_transposed, t.u_transposed},
        a_(a),
        t_(t),
        grid_(grid),
        trace_(ctx.trace()),
        n_(a.n()),
        nb_(a.nb()),
        q_(grid.npcol()),
        mycol_(grid.mycol()),
        panels_((a.n() + a.nb() - 1) / a.nb()),
        log_(a, ctx.progress(), ctx.activity()) {
    // Column blocks of [A | b]: ceil((n + 1) / nb); this rank's are mycol, mycol + Q, ...
    local_blocks_ = local_count(n_ / nb_ + 1, 1, mycol_, q_);
    group_ = std::max(1L, (t_.schedule.dag_group_columns + nb_ / 2) / nb_);
    // With one process column and one thread nothing can run beside the
    // factorization (the column's processes factor together, and there is
    // no broadcast to hide), so the split would only add a swap per panel.
    // With one process column (and P > 1) the rest's swap is instead
    // posted before the next factorization and completed after it (the
    // early rest swap): its messages travel while this process updates the
    // next panel's block and factors, and FACT's own MPI calls move it on.
    early_rest_ = t_.schedule.dag_early_swap && grid.nprow() > 1 && q_ == 1;
    split_swap_ = grid.nprow() > 1 && (q_ > 1 || omp_get_max_threads() > 1 || early_rest_);
    blk_.assign(static_cast<std::size_t>(std::max(1L, local_blocks_)), 0);
    pan_.assign(static_cast<std::size_t>(std::max(1L, panels_)), 0);
    bc_.assign(static_cast<std::size_t>(std::max(1L, panels_)), 0);
    state_.resize(static_cast<std::size_t>(panels_));
    work_.resize(static_cast<std::size_t>(panels_));
  }

  SolveOutcome run() {
    int level = MPI_THREAD_SINGLE;
    HPLX_MPI_CHECK(MPI_Query_thread(&level));
    if (omp_get_max_threads() > 1 && level < MPI_THREAD_SERIALIZED)
      throw Error(
          "--schedule dag with more than one thread needs MPI_THREAD_SERIALIZED; the MPI "
          "library provides less");
    const int team = omp_get_max_threads();
    oversubscribed_ = node_threads(grid_.all(), team) > omp_get_num_procs();
    // The early rest swap's second stage (binary exchange's U broadcast, the
    // long swap's roll) is posted whenever its first stage is seen done,
    // which differs between processes: on a communicator of its own it
    // cannot cross FACT's collectives. One rest swap is in flight at a time.
    if (early_rest_) {
      MPI_Comm dup = MPI_COMM_NULL;
      HPLX_MPI_CHECK(MPI_Comm_dup(grid_.col(), &dup));
      rest_second_ = Communicator(dup);
    }
    log_.start();
    {
      // Each task is one thread's work: BLAS single-threaded inside them.
      ScopedThreads single_threaded_blas(team, 1);
#pragma omp parallel num_threads(team)
#pragma omp single
      create_all_tasks();
    }
    if (failure_) std::rethrow_exception(failure_);
    for (const PanelState& s : state_) {
      if (s.info != 0) {
        out_.info = s.info;
        break;
      }
    }
    out_.iterations = log_.take();
    return std::move(out_);
  }

 private:
  long first_trailing(long p) const {
    return p * nb_ + std::min<long>(nb_, n_ - p * nb_);
  }
  // The global block of local block b, and its local columns from global column g on.
  long global_block(long b) const {
    return mycol_ + b * q_;
  }
  long block_lc0(long b, long g) const {
    return a_.col_start(std::max(global_block(b) * nb_, g));
  }
  long block_lc1(long b) const {
    return a_.col_start(std::min((global_block(b) + 1) * nb_, n_ + 1));
  }
  // The first local block holding columns at or after global column g.
  long first_local_block(long g) const {
    const long j = g / nb_;
    const long first = j + ((mycol_ - j % q_) % q_ + q_) % q_;
    return first / q_;
  }
  int priority(int p) const {
    return t_.schedule.dag_priorities ? p : 0;
  }

  // Panel p's update tasks. Blocks one or two panels ahead are urgent and
  // go alone (priorities 3 and 2: they lead to the next factorizations);
  // the others go in groups of group_ local blocks with fixed boundaries
  // (multiples of group_), so a group's task for panel p waits for one
  // task of panel p - 1, and its DGEMM is wide enough to amortize packing
  // the panel's L2.
  PanelCut cut(long p) const {
    PanelCut c;
    const long nlb = local_blocks_;
    c.b0 = first_local_block(first_trailing(p));
    c.has_next = split_swap_ && c.b0 < nlb && global_block(c.b0) == p + 1;
    c.rest_b0 = c.b0 + (c.has_next ? 1 : 0);
    if (c.has_next) c.head.push_back({c.b0, c.b0 + 1, priority(3)});
    long b = c.rest_b0;
    for (; b < nlb && global_block(b) - p <= 2; ++b)
      c.tail.push_back({b, b + 1, priority(global_block(b) - p == 1 ? 3 : 2)});
    while (b < nlb) {
      const long hi = std::min(nlb, (b / group_ + 1) * group_);
      c.tail.push_back({b, hi, priority(1)});
      b = hi;
    }
    return c;
  }

  // The tasks of every panel, in an order that is the same on every
  // process of a process column, as the MPI chain needs. With the swap
  // split the rest's swap and update of panel p are created after
  // POST(p + 1): the chain then lets the factorization of panel p + 1 (and
  // the swap of the block after it) go before the swap of the rest of panel
  // p, which waits for the whole update of panel p - 1.
  //
  // With the early rest swap (one process column) the chain reads POST(p),
  // RSN(p), RSR-post(p), POST(p + 1), ...: the rest's swap of panel p is
  // posted before FACT(p + 1) and completed by RSR-finish(p), which is not
  // in the chain and waits for POST(p + 1), so it never holds a process
  // out of a factorization its column peers are in.
  void create_all_tasks() {
    const bool split = split_swap_ && !early_rest_;
    const bool swaps = grid_.nprow() > 1;
    for (long p = 0; p < panels_; ++p) {
      const PanelCut c = cut(p);
      const bool rs_next = c.has_next;
      const bool rs_rest = swaps && c.rest_b0 < local_blocks_;
      state_[p].remaining = 2 + (rs_next ? 1 : 0) + (rs_rest ? (early_rest_ ? 2 : 1) : 0) +
                            static_cast<long>(c.head.size() + c.tail.size());
      create_post(p);
      if (early_rest_ && p > 0) create_rest_finish(p - 1, cut(p - 1));
      if (split && p > 0) create_rest(p - 1, cut(p - 1));
      create_next(p, c);
      if (early_rest_)
        create_rest_post(p, c);
      else if (!split)
        create_rest(p, c);
    }
    if (early_rest_ && panels_ > 0) create_rest_finish(panels_ - 1, cut(panels_ - 1));
    if (split && panels_ > 0) create_rest(panels_ - 1, cut(panels_ - 1));
  }

  // Early rest swap: RSR-post(p), in the MPI chain, waits for the previous
  // panel's update of the rest and posts the swap.
  void create_rest_post(long p, const PanelCut& c) {
    [[maybe_unused]] char* comm = &comm_;
    [[maybe_unused]] char* pan = pan_.data();
    [[maybe_unused]] char* blk = blk_.data();
    const int chain = priority(kDagMaxPriority);
    const long r0 = c.rest_b0, nlb = local_blocks_;
    if (r0 >= nlb) return;
      // clang-format off
#pragma omp task firstprivate(p) depend(inout: comm[0]) depend(in: pan[p]) depend(iterator(i = r0 : nlb), inout: blk[i]) priority(chain)
    run_rest_post(p);
    // clang-format on
  }

  // RSR-finish(p) after POST(p + 1) (FACT(p + 1) done here), then the
  // rest's updates.
  void create_rest_finish(long p, const PanelCut& c) {
    [[maybe_unused]] char* pan = pan_.data();
    [[maybe_unused]] char* blk = blk_.data();
    const int chain = priority(kDagMaxPriority);
    const long r0 = c.rest_b0, nlb = local_blocks_;
    const long after = std::min(p + 1, panels_ - 1);
    if (r0 < nlb) {
      // clang-format off
#pragma omp task firstprivate(p) depend(in: pan[p], pan[after]) depend(iterator(i = r0 : nlb), inout: blk[i]) priority(chain)
      run_rest_finish(p);
      // clang-format on
    }
    for (const UpdateUnit& u : c.tail) create_update(p, u, false);
  }

  // POST(p) and WAIT(p). Dependencies only look at tasks created before.
  void create_post(long p) {
    const bool owner = owner_of(p * nb_, nb_, q_) == mycol_;
    const long bk = owner ? p / q_ : 0;
    const long prev = std::max(0L, p - 1);  // p = 0 waits for no broadcast: bc[0] is its own
    [[maybe_unused]] char* comm = &comm_;   // GCC 12 misses uses in depend clauses
    [[maybe_unused]] char* pan = pan_.data();
    [[maybe_unused]] char* bc = bc_.data();
    [[maybe_unused]] char* blk = blk_.data();
    const int chain = priority(kDagMaxPriority);
    const int idle = 0;
    // clang-format off
    if (owner) {
#pragma omp task firstprivate(p) depend(inout: comm[0], pan[p], blk[bk]) depend(in: bc[prev]) priority(chain)
      run_post(p);
#pragma omp task firstprivate(p) depend(in: pan[p]) depend(inout: bc[p]) priority(idle)
      run_wait(p);
    } else {
#pragma omp task firstprivate(p) depend(inout: comm[0], pan[p]) depend(in: bc[prev]) priority(chain)
      run_post(p);
#pragma omp task firstprivate(p) depend(inout: pan[p], bc[p]) priority(idle)
      run_wait(p);
    }
    // clang-format on
  }

  // P > 1: RS of the next panel's block; then its update.
  void create_next(long p, const PanelCut& c) {
    [[maybe_unused]] char* comm = &comm_;
    [[maybe_unused]] char* pan = pan_.data();
    [[maybe_unused]] char* blk = blk_.data();
    const int chain = priority(kDagMaxPriority);
    const long bn = c.b0;
    // clang-format off
    if (grid_.nprow() > 1 && c.has_next) {
#pragma omp task firstprivate(p) depend(inout: comm[0], blk[bn]) depend(in: pan[p]) priority(chain)
      run_swap(p, true);
    }
    // clang-format on
    for (const UpdateUnit& u : c.head) create_update(p, u, true);
  }

  // P > 1: RS of the rest (every trailing block but the next panel's); then
  // the rest's updates.
  void create_rest(long p, const PanelCut& c) {
    [[maybe_unused]] char* comm = &comm_;
    [[maybe_unused]] char* pan = pan_.data();
    [[maybe_unused]] char* blk = blk_.data();
    const int chain = priority(kDagMaxPriority);
    const long r0 = c.rest_b0, nlb = local_blocks_;
    // clang-format off
    if (grid_.nprow() > 1 && r0 < nlb) {
#pragma omp task firstprivate(p) depend(inout: comm[0]) depend(in: pan[p]) depend(iterator(i = r0 : nlb), inout: blk[i]) priority(chain)
      run_swap(p, false);
    }
    // clang-format on
    for (const UpdateUnit& u : c.tail) create_update(p, u, false);
  }

  void create_update(long p, const UpdateUnit& u, bool next) {
    [[maybe_unused]] char* pan = pan_.data();
    [[maybe_unused]] char* blk = blk_.data();
    const long lo = u.lo, hi = u.hi;
    const int prio = u.priority;
    // clang-format off
#pragma omp task firstprivate(p, lo, hi, next) depend(in: pan[p]) depend(iterator(i = lo : hi), inout: blk[i]) priority(prio)
    run_update(p, lo, hi, next);
    // clang-format on
  }

  // The chain's step for panel p: LBCAST posted (receivers), or FACT and
  // LBCAST's sends posted (the panel's process column, whose panel is then
  // ready here).
  void run_post(long p) {
    PhaseTimes tm;
    guarded([&] {
      std::lock_guard<std::mutex> mpi(mpi_);
      auto w = std::make_unique<PanelWork>();
      w->panel = make_panel(a_, p * nb_, grid_);
      Panel& panel = w->panel;
      RowSwapInFlight* rest = rest_in_flight_;  // the early rest swap (mpi_ is held)
      w->bcast = factor_and_send(fact_, panel, queue_, tm, trace_, [rest] {
        if (rest) rest->progress();
      });
      if (fact_.factors(panel)) {
        PhaseScope phase(&tm.bcast, trace_, "LBCAST");
        w->plan = ready_for_update(queue_, panel);
        state_[p].info = panel.info;
      }
      in_flight_ = w->bcast.get();
      work_[p] = std::move(w);
    });
    part_done(p, tm);
  }

  // LBCAST of panel p completes: moved on until this process's part is
  // done, then finished (receivers unpack the pivots and plan the swaps).
  // Lowest priority: it only holds a thread when no update is ready.
  void run_wait(long p) {
    PhaseTimes tm;
    guarded([&] {
      PanelWork& w = *work_[p];
      PhaseScope phase(&tm.bcast, trace_, "LBCAST");
      const double t0 = wall_time();
      for (bool done = false; !done;) {
        {
          std::lock_guard<std::mutex> mpi(mpi_);
          done = w.bcast->progress();
        }
        if (!done) pause();
      }
      std::lock_guard<std::mutex> mpi(mpi_);
      w.bcast->finish();
      tm.wait += wall_time() - t0;
      tm.bcast_hidden += std::max(0.0, w.bcast->timing().hidden() - (wall_time() - t0));
      in_flight_ = nullptr;
      w.bcast.reset();
      if (grid_.mycol() != w.panel.owner_col) {
        w.plan = ready_for_update(queue_, w.panel);
        state_[p].info = w.panel.info;
      }
    });
    part_done(p, tm);
  }

  // Between two looks at the network in WAIT and RS: where the node runs
  // more threads than it has cores a waiting thread yields to the ranks
  // that have work; otherwise it keeps the core (on 2x1 a swap polled
  // with yields measured 7-14% slower than one blocking in MPI).
  void pause() const {
    if (oversubscribed_) std::this_thread::yield();
  }

  // Between tasks: the broadcast in flight moves on (forwarding along a
  // ring, the next piece of a long broadcast) unless a task is in MPI.
  void poll() {
    if (!mpi_.try_lock()) return;
    std::lock_guard<std::mutex> mpi(mpi_, std::adopt_lock);
    if (failed_.load()) return;
    if (in_flight_) in_flight_->progress();
    if (rest_in_flight_) rest_in_flight_->progress();
  }

  // P > 1: RS of the next panel's block (next) or of the rest,
  // collective over the process column. The swap is posted and then moved
  // on together with the broadcast in flight: a process in a swap must
  // still forward the next panel (the rest's swap runs after POST of the
  // next panel), or a ring could wait on it forever.
  void run_swap(long p, bool next) {
    PhaseTimes tm;
    guarded([&] {
      PanelWork& w = *work_[p];
      SwapPart& s = next ? w.next : w.rest;
      const PanelCut c = cut(p);
      const long b0 = next ? c.b0 : c.rest_b0;
      const long b1 = next ? c.b0 + 1 : local_blocks_;
      s.lc0 = block_lc0(b0, first_trailing(p));
      s.nn = block_lc1(b1 - 1) - s.lc0;
      PhaseScope phase(&tm.swap, trace_, "RS");
      const SwapForm form = swap_form(swap_, s.nn);
      std::unique_ptr<RowSwapInFlight> swap;
      {
        std::lock_guard<std::mutex> mpi(mpi_);
        swap = std::make_unique<RowSwapInFlight>(queue_, a_, w.panel, w.plan, s.lc0, s.nn, grid_,
                                                 s.rs, form);
      }
      drive_swap(*swap, tm, q_ == 1);  // no broadcast to move on: block in MPI
    });
    part_done(p, tm);
    poll();
  }

  // Moves `swap` on until it is done (after blocking in MPI for it where
  // `block`), and the broadcast in flight with it, letting go of MPI
  // between looks; its copies and the wait beside them go to `tm`.
  // Returns the seconds it took.
  double drive_swap(RowSwapInFlight& swap, PhaseTimes& tm, bool block) {
    const double t0 = wall_time();
    const double copied0 = swap.copy_seconds();
    if (block) {
      std::lock_guard<std::mutex> mpi(mpi_);
      swap.finish();
    }
    for (bool done = false; !done;) {
      {
        std::lock_guard<std::mutex> mpi(mpi_);
        done = swap.progress();
        if (!done && in_flight_ && !failed_.load()) in_flight_->progress();
      }
      if (!done) pause();
    }
    const double took = wall_time() - t0;
    tm.swap_copy += swap.copy_seconds();
    tm.wait += std::max(0.0, took - (swap.copy_seconds() - copied0));
    return took;
  }

  // Early rest swap, RSR-post(p): packs and posts the swap of the rest of
  // panel p (collective over the process column); it travels until
  // run_rest_finish(p), moved on between tasks and during FACT.
  void run_rest_post(long p) {
    PhaseTimes tm;
    guarded([&] {
      PanelWork& w = *work_[p];
      const PanelCut c = cut(p);
      SwapPart& s = w.rest;
      s.lc0 = block_lc0(c.rest_b0, first_trailing(p));
      s.nn = block_lc1(local_blocks_ - 1) - s.lc0;
      PhaseScope phase(&tm.swap, trace_, "RS");
      const SwapForm form = swap_form(swap_, s.nn, rest_second_.get());
      std::lock_guard<std::mutex> mpi(mpi_);
      w.rest_swap = std::make_unique<RowSwapInFlight>(queue_, a_, w.panel, w.plan, s.lc0, s.nn,
                                                      grid_, s.rs, form);
      rest_in_flight_ = w.rest_swap.get();
    });
    part_done(p, tm);
  }

  // Early rest swap, RSR-finish(p): moves the swap on until it is done,
  // letting go of MPI between looks (a peer may need this process's
  // broadcast or swap to move on first).
  void run_rest_finish(long p) {
    PhaseTimes tm;
    guarded([&] {
      PanelWork& w = *work_[p];
      RowSwapInFlight& swap = *w.rest_swap;
      PhaseScope phase(&tm.swap, trace_, "RS");
      const double took = drive_swap(swap, tm, false);
      tm.swap_hidden += std::max(0.0, swap.timing().hidden() - took);
      std::lock_guard<std::mutex> mpi(mpi_);
      rest_in_flight_ = nullptr;
      w.rest_swap.reset();
    });
    part_done(p, tm);
    poll();
  }

  // RS (P = 1, in place) and UPDATE of local blocks [lo, hi) with panel p;
  // with P > 1 U comes from the next block's swap or the rest's.
  void run_update(long p, long lo, long hi, bool next) {
    PhaseTimes tm;
    guarded([&] {
      PanelWork& w = *work_[p];
      const long lc0 = block_lc0(lo, first_trailing(p));
      const long nn = block_lc1(hi - 1) - lc0;
      if (nn <= 0) return;
      SwapPart& s = next ? w.next : w.rest;
      const GatheredU u =
          grid_.nprow() == 1 ? GatheredU{} : GatheredU{s.rs.u.device(), s.lc0, s.nn};
      swap_and_update(queue_, a_, w.panel, u, forms_, lc0, nn, grid_, &tm, trace_);
    });
    part_done(p, tm);
    poll();
  }

  // Runs a task's work unless an earlier task failed; keeps the first failure.
  // After a failure the remaining tasks only count down: the process leaves
  // the graph, throws, and main() aborts the job (peers may wait in MPI).
  template <class F>
  void guarded(F&& f) {
    if (failed_.load()) return;
    try {
      f();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      failed_ = true;
    }
  }

  // One task of panel p is done: its seconds join the panel's, and when the
  // panel is complete the record moves on over every complete panel.
  void part_done(long p, const PhaseTimes& tm) {
    std::lock_guard<std::mutex> lock(mutex_);
    PanelState& s = state_[p];
    s.times += tm;
    out_.phases += tm;
    if (--s.remaining > 0) return;
    work_[p].reset();
    while (recorded_ < panels_ && state_[recorded_].remaining == 0) record(recorded_++);
  }

  // Panel p and every earlier one are complete: its record's iteration ends now.
  void record(long p) {
    const long k = p * nb_;
    const long jb = first_trailing(p) - k;
    log_.close(k, jb, state_[p].times, panel_flops(n_, k, jb));
  }

  const Context& ctx_;
  device::Queue& queue_;  // the device's compute queue: every task's row copies and BLAS
  PivotingFact fact_;     // FACT (on the host, one thread per task) and LBCAST
  const SwapParams swap_;
  const Forms forms_;
  LocalMatrix& a_;
  const TestCase& t_;
  const ProcessGrid& grid_;
  TraceRecorder* trace_;
  const long n_;
  const int nb_;
  const int q_, mycol_;
  const long panels_;
  long local_blocks_ = 0;
  long group_ = 1;  // local blocks per non-urgent update task
  // P > 1: the next panel's block has its own swap, the rest's comes after
  // the next FACT.
  bool split_swap_ = false;
  bool early_rest_ = false;                    // one process column: the early rest swap
  Communicator rest_second_;                   // its second stage's communicator
  RowSwapInFlight* rest_in_flight_ = nullptr;  // at most one early rest swap at a time
  bool oversubscribed_ = false;                // more threads on this node than cores
  // Dependency tokens: the MPI chain, each panel, each local column block.
  char comm_ = 0;
  std::vector<char> pan_, bc_, blk_;
  // MPI_THREAD_SERIALIZED: whoever calls MPI holds this (the chain's tasks,
  // run_wait, poll).
  std::mutex mpi_;
  PanelBroadcast* in_flight_ = nullptr;  // at most one LBCAST per process at a time
  std::vector<std::unique_ptr<PanelWork>> work_;
  std::vector<PanelState> state_;
  std::mutex mutex_;  // guards state_, out_, the record and the failure
  std::atomic<bool> failed_{false};
  std::exception_ptr failure_;
  long recorded_ = 0;
  IterationLog log_;
  SolveOutcome out_;
};

}  // namespace

SolveOutcome factor_dag(const Context& ctx, LocalMatrix& a, const TestCase& t,
                        const ProcessGrid& grid) {
  return DagLu(ctx, a, t, grid).run();
}

}  // namespace hplx::lu
