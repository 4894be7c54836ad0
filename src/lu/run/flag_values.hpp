// Values of `hplx lu` flags that describe a single test without an HPL.dat
// (--grid 2x4, --pfact crout, --bcast 1ring, ...). Each parser accepts
// netlib's digit or a name, case-insensitive, and throws a UsageError naming
// the flag, the value and what is allowed.
#pragma once

#include <string>

#include "core/grid.hpp"
#include "lu/config.hpp"

namespace hplx::lu {

GridShape parse_grid_flag(const std::string& text);  // "PxQ"
GridOrder parse_pmap_flag(const std::string& text);  // row|column|0|1
Factorization parse_factorization_flag(const std::string& flag, const std::string& text);
Broadcast parse_bcast_flag(const std::string& text);     // 0-5 or 1ring..longM
SwapAlgorithm parse_swap_flag(const std::string& text);  // bin-exch|long|mix|0|1|2

// The squarest P x Q with P <= Q and P * Q == ranks (netlib's advice).
GridShape default_grid(int ranks);

}  // namespace hplx::lu
