// An HPL.dat written out: the 31 lines netlib's reader takes, each value
// followed by what it means, as examples/HPL.dat. `hplx tune` writes the
// file it chose with it; parse_hpl_dat_text() reads back the same HplDat.
#pragma once

#include <string>

#include "lu/config.hpp"

namespace hplx::lu {

// `title` fills lines 1-2 (free text, one line each; newlines are replaced).
std::string hpl_dat_text(const HplDat& dat, const std::string& title);

}  // namespace hplx::lu
