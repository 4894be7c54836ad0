// A phased kernel body that does next to nothing (hplx_fact_probe's
// --overheads): `count` phases of one index each, each storing its phase
// number. A launch of it costs what a phased launch and its grid-wide
// barriers cost, without FACT's work, so that FACT's time can be split into
// launches, barriers and the work itself, alone and beside the update.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::probe {

struct EmptyPhases {
  double* slot;
  long count;
  HPLX_HD long phases() const { return count; }
  HPLX_HD long extent(long) const { return 1; }
  HPLX_HD void operator()(long phase, long) const { slot[0] = static_cast<double>(phase); }
};

}  // namespace hplx::probe
