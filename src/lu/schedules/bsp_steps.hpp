// The bsp look-ahead schedule's steps (look_ahead.hpp's `Steps`), written
// once for every LU the suite runs: `hplx lu`'s FP64 LU with partial
// pivoting (pdgesv.cpp) and HPL-MxP's FP32 LU without pivoting
// (src/hplmxp/lu_nopiv.cpp), as SLATE's getrf and getrf_nopiv share one
// set of tasks. What differs between them is a phase set: what FACT,
// LBCAST, RS and UPDATE are (pivoting or none, the storage scalar, the
// update's operand precision), each set in a file of its own beside its
// benchmark (lu/schedules/pivoting_phases.hpp, src/hplmxp/nopiv_phases.hpp:
// HPL-MxP builds on the LU, not under it). What is the same is here: the
// order of the phases inside an iteration, what runs beside FACT, on which
// queue FACT runs, and the phases' timing.
//
// Steps 2 (FACT and LBCAST started) and 3 (the oldest waiting panel's RS +
// UPDATE of the rest) overlap in one of three ways:
// - host threads beside FACT (the phase set's kThreadsBesideFact, more
//   than one thread, queue work on the calling thread): the main thread
//   factors and starts the broadcast (all MPI stays on it) while the other
//   threads take the update's column chunks, and the main thread joins
//   them when it is done;
// - FACT beside the device (queue work elsewhere): step 3 is queued on the
//   compute queue first, and FACT runs on its own queue, which waits for
//   step 1 only, as in seed 000's Fig. 3;
// - neither: FACT, then step 3 moving the broadcast on between its chunks.
// With the split update (seed 000 III.C, --split F; the phase set's
// kSplitUpdate) step 3 is cut at the global column S: the right section
// [S, N] keeps about F of the columns while the left one [next, S)
// shrinks. The right section's swap for a panel starts as soon as the
// panel's pivots are known and the section holds the previous panel's
// update, so it travels while the left section is updated; the left
// section's swap starts before FACT and travels while the right section
// is updated. When the left section is empty the iterations are plain.
//
// What a phase set `Phases` gives:
//   Panel, Factored       a panel to factor (member jb); a factored,
//                         received one (member done)
//   Broadcast             LBCAST in flight: send_rest(), progress(),
//                         finish(), timing()
//   Panel make_panel(long k);  int nb()   the panels' width
//   std::unique_ptr<Broadcast> post_broadcast(Panel&)   receives posted
//   bool factors(const Panel&)        whether this process runs its FACT
//   void fact(Panel&, Broadcast&, device::Queue&)       FACT on that queue
//   Factored received(Panel&)         LBCAST done: ready for the update
//   void apply(Factored&, long g0, long g1, PhaseTimes&, Broadcast*)
//                                     RS + UPDATE of [g0, g1), moving the
//                                     broadcast given on between chunks
//   double flops(const Factored&)
//   void retire(Factored&)            its update is done or queued
//   kThreadsBesideFact: long begin(Factored&, g0, g1, PhaseTimes*),
//     void run_chunk(long, PhaseTimes*), void progress_sections()
//   kSplitUpdate: start_section(s, Factored&, g0, g1, PhaseTimes&),
//     section_started(s), begin_section(s, PhaseTimes&),
//     update_section(s, PhaseTimes&, Broadcast* = nullptr) for the
//     sections Phases::kLeft and Phases::kRight
#pragma once

#include <omp.h>

#include <atomic>
#include <exception>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/trace.hpp"
#include "device/queue.hpp"
#include "lu/iteration_record.hpp"
#include "lu/phases/timing/device_timeline.hpp"
#include "lu/phases/timing/phase_scope.hpp"
#include "lu/schedules/factor_and_send.hpp"

namespace hplx::lu {

// How an LU's iterations run (decoded once from the test or the options).
struct BspOptions {
  long end = 0;              // the global column the updates reach (n + 1 with b)
  long split = 0;            // the split update's right section's first column; 0: none
  bool fact_overlap = true;  // steps 2 and 3 overlap (with depth > 0)
  bool depth_ahead = true;   // depth > 0
  // With FACT beside the device's update: the SMs that update aims at
  // (Queue::set_blas_sms; 0 = every SM), leaving the others to FACT, in the
  // iterations whose trailing matrix (of the n rows) has fewer than
  // `update_sms_below` rows (0 = every iteration).
  long n = 0;
  int update_sms = 0;
  long update_sms_below = 0;
};

template <class Phases>
class BspSteps {
 public:
  using Panel = typename Phases::Panel;
  using Factored = typename Phases::Factored;
  using Broadcast = typename Phases::Broadcast;

  // `compute`: the update's queue; `fact_queue`: FACT's queue beside the
  // device's update (a device's panel queue), or the transfer queue that
  // moves a host FACT's columns. `timeline` (may be null) times the
  // device's side of each iteration.
  BspSteps(Phases& phases, device::Queue& compute, device::Queue& fact_queue, const BspOptions& o,
           TraceRecorder* trace, DeviceTimeline* timeline)
      : ph_(phases),
        compute_(compute),
        fact_queue_(fact_queue),
        end_(o.end),
        split_(o.split),
        // Threads beside FACT share the update only where queue work runs
        // on the calling thread (the host backend's queue).
        threads_beside_fact_(Phases::kThreadsBesideFact && o.fact_overlap && o.depth_ahead &&
                             omp_get_max_threads() > 1 && compute.runs_inline()),
        // Where queue work runs elsewhere, the host is free while it does.
        fact_beside_device_(o.fact_overlap && o.depth_ahead && !compute.runs_inline()),
        n_(o.n),
        update_sms_(o.update_sms),
        update_sms_below_(o.update_sms_below),
        trace_(trace),
        timeline_(timeline) {
    if (split_ > 0 && !Phases::kSplitUpdate)
      throw Error("the split update needs an LU whose row swaps travel in sections");
  }

  // The schedule's steps (look_ahead.hpp).
  PhaseTimes& times() { return tm_; }
  Panel make_panel(long k) { return ph_.make_panel(k); }
  void apply(Factored& p, long g1) { ph_.apply(p, p.done, g1, tm_, nullptr); }

  Factored factor(Panel& panel) {
    std::unique_ptr<Broadcast> bcast;
    // With threads beside FACT, FACT runs on the main thread of a team here
    // too (nothing beside it): its BLAS then rounds as where it runs beside
    // the update (one thread's), and a resumed run's first panels, factored
    // with nothing waiting, are bit for bit a run's never stopped.
    if (threads_beside_fact_)
      chunks_beside_fact(0, &panel, bcast);
    else
      factor_and_send(panel, bcast, compute_);
    return receive(panel, bcast);
  }

  Factored overlap(Factored& oldest, Panel& panel, long next) {
    std::unique_ptr<Broadcast> bcast;
    if constexpr (Phases::kSplitUpdate) {
      if (next < split_) {
        start_sections(oldest, next);
        finish_section(Phases::kRight, panel, bcast, next);
        return receive(panel, bcast);
      }
    }
    finish_beside_fact(oldest, panel, bcast, next);
    return receive(panel, bcast);
  }

  void after_overlap([[maybe_unused]] Factored& second, [[maybe_unused]] long next) {
    if constexpr (Phases::kSplitUpdate) {
      if (next >= split_) return;
      // The right section's swap of the panel that finishes next goes now,
      // hidden by the left section's update.
      if (next + ph_.nb() < split_) ph_.start_section(Phases::kRight, second, split_, end_, tm_);
      ph_.update_section(Phases::kLeft, tm_);
    }
  }

  void finish(Factored& p) {
    if constexpr (Phases::kSplitUpdate) {
      if (p.done < split_) {
        start_sections(p, p.done);
        ph_.update_section(Phases::kRight, tm_);
        ph_.update_section(Phases::kLeft, tm_);
        return;
      }
    }
    ph_.apply(p, p.done, end_, tm_, nullptr);
  }

  // Step 3 as overlap() runs it, with no panel to factor beside (a
  // checkpoint's drain, look_ahead.hpp): the columns go in the same
  // pieces, on the same threads or queue, so that their rounding is the
  // same. (The split update, hplx lu's FP64 only, goes as finish() does.)
  void finish_alone(Factored& oldest, long next) {
    if constexpr (Phases::kSplitUpdate) {
      if (next < split_) {
        finish(oldest);
        return;
      }
    }
    if constexpr (Phases::kThreadsBesideFact) {
      if (threads_beside_fact_) {
        std::unique_ptr<Broadcast> none;
        chunks_beside_fact(ph_.begin(oldest, oldest.done, end_, &tm_), nullptr, none);
        return;
      }
    }
    if (fact_beside_device_)
      update_beside_fact(next, [&] { ph_.apply(oldest, oldest.done, end_, tm_, nullptr); });
    else
      ph_.apply(oldest, oldest.done, end_, tm_, nullptr);
  }

  double flops(const Factored& p) const { return ph_.flops(p); }
  void retire(Factored& p) { ph_.retire(p); }
  void closed() {
    if (timeline_) timeline_->close_iteration();
  }

 private:
  // 2. FACT on `q` and LBCAST started (factor_and_send.hpp).
  void factor_and_send(Panel& panel, std::unique_ptr<Broadcast>& bcast, device::Queue& q) {
    bcast = lu::factor_and_send(ph_, panel, q, tm_, trace_);
  }

  // 4. LBCAST completes; the panel joins the waiting ones.
  Factored receive(Panel& panel, std::unique_ptr<Broadcast>& bcast) {
    {
      PhaseScope phase(&tm_.bcast, trace_, "LBCAST");
      bcast->finish();
      tm_.wait += bcast->timing().waited;
      tm_.bcast_hidden += bcast->timing().hidden();
      bcast.reset();
    }
    return ph_.received(panel);
  }

  // The SMs the update beside FACT at global column `next` aims at: 0
  // (every SM) unless --update-sms applies there.
  int update_sms_at(long next) const {
    if (update_sms_ <= 0) return 0;
    return update_sms_below_ <= 0 || n_ - next < update_sms_below_ ? update_sms_ : 0;
  }

  // The update queued beside FACT (`update`), on update_sms_at(next) SMs.
  template <class Update>
  void update_beside_fact(long next, Update&& update) {
    const int sms = update_sms_at(next);
    if (sms > 0) compute_.set_blas_sms(sms);
    update();
    if (sms > 0) compute_.set_blas_sms(0);
  }

  // Steps 2 and 3 without the split: the oldest panel over all the rest.
  void finish_beside_fact(Factored& oldest, Panel& panel, std::unique_ptr<Broadcast>& bcast,
                          long next) {
    if constexpr (Phases::kSplitUpdate) {
      if (ph_.section_started(Phases::kRight))
        throw Error("split update: a right-section swap is pending in a plain iteration");
    }
    if constexpr (Phases::kThreadsBesideFact) {
      if (threads_beside_fact_) {
        chunks_beside_fact(ph_.begin(oldest, oldest.done, end_, &tm_), &panel, bcast);
        return;
      }
    }
    if (fact_beside_device_) {
      device::Queue& q = fact_after_step_1();
      update_beside_fact(next, [&] { ph_.apply(oldest, oldest.done, end_, tm_, nullptr); });
      factor_and_send(panel, bcast, q);
    } else {
      factor_and_send(panel, bcast, compute_);
      ph_.apply(oldest, oldest.done, end_, tm_, bcast.get());
    }
  }

  // Both sections' swaps of `p` on their way: the right one unless it
  // already is, then the left one [next, S).
  void start_sections(Factored& p, long next) {
    if (!ph_.section_started(Phases::kRight))
      ph_.start_section(Phases::kRight, p, split_, end_, tm_);
    ph_.start_section(Phases::kLeft, p, next, split_, tm_);
  }

  // Steps 2 and 3 for one section whose swap is on its way.
  template <class Section>
  void finish_section(Section s, Panel& panel, std::unique_ptr<Broadcast>& bcast, long next) {
    if constexpr (Phases::kThreadsBesideFact) {
      if (threads_beside_fact_) {
        chunks_beside_fact(ph_.begin_section(s, tm_), &panel, bcast);
        return;
      }
    }
    if (fact_beside_device_) {
      device::Queue& q = fact_after_step_1();
      update_beside_fact(next, [&] { ph_.update_section(s, tm_); });
      factor_and_send(panel, bcast, q);
    } else {
      factor_and_send(panel, bcast, compute_);
      ph_.update_section(s, tm_, bcast.get());
    }
  }

  // FACT's queue, waiting for step 1, queued on the compute queue so far,
  // and for nothing queued there later. (The phase set's FACT leaves the
  // point the queues that use the panel next wait for.)
  device::Queue& fact_after_step_1() {
    fact_queue_.wait(compute_.record());
    return fact_queue_;
  }

  // The main thread factors `panel` (none: it does not) and starts the
  // broadcast while the other threads run the update chunks the phase set
  // was set up with; then it joins them, moving the communications on
  // between its chunks.
  void chunks_beside_fact(long chunks, Panel* panel, std::unique_ptr<Broadcast>& bcast) {
    std::atomic<long> next_chunk{0};
    std::exception_ptr failure;
    std::vector<PhaseTimes> chunk_times(omp_get_max_threads());
    const double start = wall_time();
#pragma omp parallel
    {
      const int me = omp_get_thread_num();
      if (me == 0 && panel) {
        try {
          factor_and_send(*panel, bcast, compute_);
        } catch (...) {
          failure = std::current_exception();
        }
      }
      for (long i; (i = next_chunk++) < chunks;) {
        if (me == 0 && bcast) {
          bcast->progress();
          ph_.progress_sections();
        }
        ph_.run_chunk(i, &chunk_times[me]);
      }
    }
    if (failure) std::rethrow_exception(failure);
    if (chunks == 0) return;
    // The update ran from the start of the region to its last chunk, beside
    // FACT: charge that wall time to it, split between the row copies and
    // the update's BLAS as the threads' own clocks saw them.
    PhaseTimes sum;
    for (const PhaseTimes& c : chunk_times) {
      sum.swap += c.swap;
      sum.update += c.update;
    }
    const double wall = wall_time() - start;
    const double copy_share = sum.swap + sum.update > 0 ? sum.swap / (sum.swap + sum.update) : 0;
    tm_.swap += wall * copy_share;
    tm_.swap_copy += wall * copy_share;
    tm_.update += wall * (1 - copy_share);
  }

  Phases& ph_;
  device::Queue& compute_;
  device::Queue& fact_queue_;
  const long end_;
  const long split_;
  const bool threads_beside_fact_;
  const bool fact_beside_device_;
  const long n_;
  const int update_sms_;
  const long update_sms_below_;
  TraceRecorder* trace_;
  DeviceTimeline* timeline_;
  PhaseTimes tm_;
};

}  // namespace hplx::lu
