// The look-ahead loop's checkpoints (look_ahead.hpp's IterationBoundary)
// for any LU on the bsp steps: hplx lu's and HPL-MxP's. At a boundary the
// state saved beside the matrix is the steps' phase totals, the iteration
// record so far (a resumed run's earlier iterations first) and the first
// zero pivot `info` gives; resume() sets a loop going on from a
// checkpoint's state up the same way.
#pragma once

#include <functional>
#include <utility>

#include "lu/checkpoint/checkpointer.hpp"
#include "lu/schedules/iteration_log.hpp"
#include "lu/schedules/look_ahead.hpp"

namespace hplx::lu {

template <class Steps>
class LoopBoundary final : public IterationBoundary {
 public:
  // `resume` (may be null): the state the run went on from.
  LoopBoundary(Checkpointer& writer, Steps& steps, const IterationLog& log, const LoopState* resume,
               std::function<long()> info)
      : writer_(writer), steps_(steps), log_(log), resume_(resume), info_(std::move(info)) {}

  bool due() override { return writer_.due(); }
  void save(long next) override {
    LoopState s;
    s.column = next;
    s.info = info_();
    s.times = steps_.times();
    if (resume_) s.iterations = resume_->iterations;
    s.iterations.insert(s.iterations.end(), log_.record().begin(), log_.record().end());
    writer_.save(s);
  }

 private:
  Checkpointer& writer_;
  Steps& steps_;
  const IterationLog& log_;
  const LoopState* resume_;
  std::function<long()> info_;
};

// The column a loop starts at: 0, or a resumed run's, whose phase totals
// and clock the steps and the log take up.
template <class Steps>
long resume_loop(Steps& steps, IterationLog& log, const LoopState* resume) {
  if (!resume) return 0;
  steps.times() = resume->times;
  log.resume(resume->iterations);
  return resume->column;
}

}  // namespace hplx::lu
