#include "lu/phases/update/swap_update.hpp"

#include <optional>

#include <fmt/format.h>

#include "core/timer.hpp"
#include "device/device_errors.hpp"
#include "lu/phases/comm/row_swap.hpp"
#include "lu/phases/timing/phase_scope.hpp"

namespace hplx::lu {

void swap_and_update(device::Queue& q, LocalMatrix& a, const Panel& p, const GatheredU& gathered,
                     Forms forms, long lc0, long nn, const ProcessGrid& grid, PhaseTimes* times,
                     TraceRecorder* trace, DeviceTimeline* timeline, InPlaceSwapBuffers* in_place) {
  if (nn <= 0) return;
  // Where work runs behind the host, a device error names the panel
  // (device_errors.hpp); on the host an error is thrown where it happens.
  std::optional<device::DeviceOperation> named;
  if (!q.runs_inline())
    named.emplace(
        fmt::format("RS+UPDATE of the panel at column {} (LU iteration {}), local columns {}-{}",
                    p.k, p.k / a.nb(), lc0, lc0 + nn - 1));
  if (gathered.data == nullptr) {
    {
      const double t0 = wall_time();
      PhaseScope phase(times ? &times->swap : nullptr, trace, "RS");
      DeviceTimeline::Span on_device(timeline, q, DeviceTimeline::kSwap);
      swap_rows_in_place(q, a, p, lc0, nn, in_place);
      if (times) times->swap_copy += wall_time() - t0;
    }
    PhaseScope phase(times ? &times->update : nullptr, trace, "UPDATE");
    DeviceTimeline::Span on_device(timeline, q, DeviceTimeline::kUpdate);
    update_in_place(q, a, p, forms.l1_transposed, lc0, nn);
    return;
  }
  PhaseScope phase(times ? &times->update : nullptr, trace, "UPDATE");
  DeviceTimeline::Span on_device(timeline, q, DeviceTimeline::kUpdate);
  const long c = lc0 - gathered.lc0;
  update_trailing(q, a, p, u_column(gathered.data, c, gathered.nn, p.jb, forms.u_transposed),
                  u_ld(gathered.nn, p.jb, forms.u_transposed), forms, lc0, nn, grid);
}

}  // namespace hplx::lu
