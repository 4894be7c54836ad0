// The kernel models of `hplx sim`'s ranks (device/sim_model.hpp) from a
// system spec: what each rank's work costs on the simulated machine, beside
// the platform (model/sim_platform.hpp) that says what its messages cost.
#pragma once

#include <string>
#include <vector>

#include "device/sim_model.hpp"
#include "model/system_spec.hpp"

namespace hplx::model {

// The kernel models of one rank of `spec` running `threads` threads (a
// calibrated CPU spec's rates are by thread count). A spec with a [host]
// table describes GPU ranks whose FACT runs on the host (hplx lu's device
// backends): queue work on the GPU, FACT at the host's rate, copies over
// host.link. Otherwise the ranks are CPU ranks, their queue work on their
// own cores. Figures a spec does not give fall back as `hplx model` does
// (FACT and DTRSM at the DGEMM rate); `notes` gets one line for each
// fallback that is a guess rather than the model's rule.
device::SimModel sim_model_from_spec(const SystemSpec& spec, int threads,
                                     std::vector<std::string>* notes = nullptr);

}  // namespace hplx::model
