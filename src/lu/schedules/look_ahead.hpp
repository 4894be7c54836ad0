// The look-ahead schedule of netlib's HPL_pdgesvK2, for every LU the suite
// runs: `hplx lu`'s FP64 LU with partial pivoting (pdgesv.cpp) and
// HPL-MxP's FP32 LU without pivoting (src/hplmxp/lu_nopiv.cpp) go through
// the same loop and the same steps (bsp_steps.hpp), each with its phase
// set, as SLATE's getrf and getrf_nopiv share one set of tasks.
// The loop decides the order of the phases over the panels; the `Steps`
// do the phases (what runs beside FACT, on which queues; the phase set
// says what FACT, LBCAST, RS and UPDATE are for that LU). With look-ahead of depth d, up to d
// factored panels wait with their update applied only as far as the next panel's columns. Each
// iteration
//   1. brings the new panel's columns up to date with the waiting panels,
//   2. factors it (FACT) and starts its broadcast (LBCAST),
//   3. while that travels, finishes the oldest waiting panel's update over
//      the rest of the matrix (RS + UPDATE),
//   4. completes the broadcast; the new panel joins the waiting ones.
// With d = 0 nothing waits: step 3 runs after the broadcast, on the new
// panel. How steps 2 and 3 overlap (host threads beside FACT, FACT on a
// device queue beside the update, the split update's sections) is the
// Steps' choice (bsp_steps.hpp).
//
// What the loop asks of `Steps`:
//   Panel      a panel to factor: member `jb`, its width
//   Factored   a factored, received panel: member `done`, the global
//              column its update has reached (the loop advances it)
//   PhaseTimes& times()                      the rank's phase totals
//   Panel make_panel(long k)                 the panel at global column k
//   void apply(Factored& p, long g1)         RS + UPDATE of [p.done, g1)
//   Factored factor(Panel& p)                2 and 4, nothing beside
//   Factored overlap(Factored& oldest, Panel& p, long next)
//                                            2 to 4, the oldest's update of
//                                            [next, end) during 2
//   void after_overlap(Factored& second, long next)
//                                            what remains of the oldest's
//                                            update after 4 (the split's
//                                            left section); `second` is the
//                                            next panel to finish
//   void finish(Factored& p)                 d = 0: the rest of p's update
//   void finish_alone(Factored& oldest, long next)
//                                            3 with nothing beside (a
//                                            checkpoint's drain), the
//                                            columns cut as overlap() cuts
//                                            them
//   double flops(const Factored& p)          the panel's LU flops
//   void retire(Factored& p)                 p's update is done or queued
//   void closed()                            an iteration was closed
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>

#include "lu/schedules/iteration_log.hpp"

namespace hplx::lu {

// What the loop asks at each iteration boundary of a run that checkpoints
// (lu/checkpoint/checkpointer.hpp): whether to save now (the same answer
// on every rank), and the save, once the waiting panels are finished.
class IterationBoundary {
 public:
  virtual ~IterationBoundary() = default;
  virtual bool due() = 0;
  virtual void save(long next) = 0;
};

template <class Steps>
class LookAhead {
 public:
  // The matrix's n columns are factored in panels of nb; the updates reach
  // the global column `end` (n + 1 where b is the last column).
  LookAhead(Steps& steps, long n, int nb, long end, std::size_t depth, IterationLog& log)
      : steps_(steps), n_(n), nb_(nb), end_(end), depth_(depth), log_(log) {}

  // From the panel at global column `from` (a resumed run's; nothing
  // waits there), stopping at `boundary` (may be null) after each
  // iteration but the last.
  void run(long from = 0, IterationBoundary* boundary = nullptr) {
    for (long k = from; k < n_; k += nb_) {
      iteration(k);
      const long next = k + nb_;
      if (boundary && next < n_ && boundary->due()) {
        drain(next);
        boundary->save(next);
      }
    }
    finish_waiting();
  }

 private:
  using Factored = typename Steps::Factored;

  void iteration(long k) {
    const PhaseTimes before = steps_.times();
    auto panel = steps_.make_panel(k);
    const long next = k + panel.jb;
    advance_waiting(next);  // 1. the new panel's columns
    double flops = 0;
    if (depth_ > 0 && waiting_.size() == depth_) {
      waiting_.push_back(steps_.overlap(waiting_.front(), panel, next));  // 2, 3 and 4
      steps_.after_overlap(waiting_[1], next);
      flops += retire_oldest();
    } else {
      waiting_.push_back(steps_.factor(panel));  // 2 and 4
    }
    if (depth_ == 0) {
      steps_.finish(waiting_.front());  // 3
      flops += retire_oldest();
    }
    log_.close(k, next - k, steps_.times().since(before), flops);
    steps_.closed();
  }

  // Step 1: every waiting panel's update brought up to the global column g1.
  void advance_waiting(long g1) {
    for (Factored& p : waiting_) {
      steps_.apply(p, g1);
      p.done = g1;
    }
  }

  // Every waiting panel's update finished over the rest, and retired: their
  // flops.
  double retire_all_waiting() {
    for (Factored& p : waiting_) steps_.apply(p, end_);
    double flops = 0;
    while (!waiting_.empty()) flops += retire_oldest();
    return flops;
  }

  double retire_oldest() {
    const double flops = steps_.flops(waiting_.front());
    steps_.retire(waiting_.front());
    waiting_.pop_front();
    return flops;
  }

  // After the last panel: the panels still waiting finish, charged to the
  // last iteration.
  void finish_waiting() {
    if (waiting_.empty() || log_.empty()) return;
    const PhaseTimes before = steps_.times();
    const double flops = retire_all_waiting();
    log_.extend_last(steps_.times().since(before), flops);
  }

  // Before a checkpoint: the waiting panels' updates finished over the
  // rest of the matrix, charged to the last iteration, so that the columns
  // left of the next panel are final and the iterations after it start as
  // the first ones do. Each panel's columns are cut as the loop would have
  // cut them had it gone on (the next panels' columns one panel at a time,
  // then the rest as step 3 does it, with no FACT beside): BLAS rounds by
  // how the columns are cut (OpenBLAS's SGEMM and STRSM do), and so every
  // GEMM is the one a run never stopped makes, and a resumed run's factors
  // are bit for bit that run's. Of w waiting panels, the loop finishes the
  // oldest depth - w + 1 iterations from here, then one an iteration.
  void drain(long next) {
    if (waiting_.empty()) return;
    const PhaseTimes before = steps_.times();
    double flops = 0;
    std::size_t finish_in = depth_ + 1 - waiting_.size();
    for (long k = next; !waiting_.empty(); k += nb_) {
      if (k >= n_) {  // no panel left: as finish_waiting()
        flops += retire_all_waiting();
        break;
      }
      const long k1 = std::min(k + nb_, n_);
      advance_waiting(k1);  // 1. the panel at k's columns
      if (--finish_in > 0) continue;
      steps_.finish_alone(waiting_.front(), k1);  // 3.
      flops += retire_oldest();
      finish_in = 1;
    }
    log_.extend_last(steps_.times().since(before), flops);
  }

  Steps& steps_;
  const long n_;
  const int nb_;
  const long end_;
  const std::size_t depth_;
  IterationLog& log_;
  std::deque<Factored> waiting_;  // oldest first
};

}  // namespace hplx::lu
