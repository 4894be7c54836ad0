// The per-iteration record as a schedule writes it (iteration_record.hpp
// has the record's fields and its reductions). Every schedule closes one
// iteration per panel, in panel order, with the phase seconds spent since
// the previous close and the flops of the panels whose update completed in
// it; the log fills in the geometry, the wall times and the progress line.
#pragma once

#include <vector>

#include "core/activity.hpp"
#include "core/progress.hpp"
#include "lu/iteration_record.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

class IterationLog {
 public:
  // `progress` and `activity` (the watchdog's view) may be null.
  IterationLog(const LocalMatrix& a, ProgressMeter* progress, Activity* activity);
  // Any LU over n columns in panels of nb, its trailing columns reaching
  // the global column `end`, this process in column `mycol` of `npcol`.
  IterationLog(long n, int nb, long end, int mycol, int npcol, ProgressMeter* progress,
               Activity* activity);
  // Starts the factorization's clock (else construction started it).
  void start();
  // After start(), for a resumed run: the clock and the flops go on from
  // the end of `earlier` (the iterations before the checkpoint), which
  // take() does not return.
  void resume(const std::vector<IterationTimes>& earlier);

  // Closes the iteration of the panel at global column k (width jb): it
  // ran from the previous close (or the start) to now.
  void close(long k, long jb, const PhaseTimes& spent, double flops);
  // Work done after the last iteration (the look-ahead's waiting panels)
  // is charged to it.
  void extend_last(const PhaseTimes& spent, double flops);

  bool empty() const { return record_.empty(); }
  std::vector<IterationTimes> take() { return std::move(record_); }
  const std::vector<IterationTimes>& record() const { return record_; }

 private:
  long local_cols(long from) const {
    return local_start(end_, nb_, mycol_, npcol_) - local_start(from, nb_, mycol_, npcol_);
  }

  long n_, end_;
  int nb_, mycol_, npcol_;
  ProgressMeter* progress_;
  Activity* activity_;
  double start_, last_;
  double flops_done_ = 0;
  std::vector<IterationTimes> record_;
};

}  // namespace hplx::lu
