// The distributed LU solve of one test, netlib's HPL_pdgesv: for each panel
// of NB columns, FACT -> LBCAST -> RS -> UPDATE (with look-ahead of DEPTH
// panels), then the back substitution.
// The matrix [A | b] must already hold the generated problem.
#pragma once

#include <vector>

#include "core/context.hpp"
#include "core/grid.hpp"
#include "core/progress.hpp"
#include "core/trace.hpp"
#include "device/backend.hpp"
#include "lu/config.hpp"
#include "lu/iteration_record.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

struct SolveOutcome {
  long info = 0;                           // 0, or 1 + the global column of the first zero pivot
  std::vector<double> x;                   // this process's entries of x (see solve_upper)
  PhaseTimes phases;                       // this rank's totals
  std::vector<IterationTimes> iterations;  // this rank's record, one per panel
  // The backend's counters over the iteration loop (allocations, host
  // waits, bytes copied; -1 where the backend does not count them).
  device::DeviceCounters loop;
};

// Collective over the grid (only ranks inside it may call). The context
// gives the device the matrix lives on, the trace that records FACT,
// LBCAST, RS and UPDATE spans and the progress meter updated after every
// iteration (give it to one rank).
// `workspace`: the buffers kept from panel to panel, reserved before the
// caller's timer started (reserve_workspace, workspace.hpp); null: made
// here as they are needed.
// `checkpoints` (bsp schedule only): `resume` (may be null) is the state
// the matrix was read back with (lu/checkpoint/resume.hpp), the loop goes
// on from its column; `writer` (may be null) saves the state as the run
// goes (lu/checkpoint/checkpointer.hpp).
struct SolveWorkspace;
class Checkpointer;
struct LoopState;
struct SolveCheckpoints {
  Checkpointer* writer = nullptr;
  const LoopState* resume = nullptr;
};
SolveOutcome pdgesv(const Context& ctx, LocalMatrix& a, const TestCase& t, const ProcessGrid& grid,
                    SolveWorkspace* workspace = nullptr, const SolveCheckpoints& checkpoints = {});

}  // namespace hplx::lu
