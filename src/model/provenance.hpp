// Which assumed figures of a spec a prediction rests on ([provenance]
// assumed, docs/MODEL.md "Provenance"): the analytic model reads some of a
// spec's figures, hplx sim more, and where FACT runs decides whether the
// host's FACT figures or the device's count. `hplx model`, `hplx sim` and
// `hplx tune` print the result as one line, so a user sees which parts of
// a prediction are guesses.
#pragma once

#include <string>
#include <vector>

#include "model/system_spec.hpp"

namespace hplx::model {

// What a prediction reads.
struct FigureUse {
  bool sim = false;          // hplx sim's kernel models (shape, launches, shares, copies)
  bool host_fact = true;     // FACT on the host: host.fact_*, host.link
  bool device_fact = false;  // FACT on a GPU's queue: device.fact_probe (or its fallbacks)
};

// The spec's assumed keys that `use` reads, in the spec's order.
std::vector<std::string> assumed_figures(const SystemSpec& spec, const FigureUse& use);

// "assumed figures this prediction rests on (FILE [provenance]): a, b" (or
// "none", or "not stated" where the spec has no [provenance] table).
std::string assumed_figures_line(const SystemSpec& spec, const FigureUse& use);

}  // namespace hplx::model
