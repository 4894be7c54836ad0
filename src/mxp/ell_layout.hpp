// Where the entries of the sliced-ELL matrix live (ell_matrix.hpp): plain
// constants and index arithmetic shared by the kernel bodies (host and
// device) and the host fast path.
#pragma once

#include "device/kernel_body.hpp"

namespace hplx::mxp {

inline constexpr int kSlots = 27;
inline constexpr long kSliceRows = 256;

// Where slot s of row r is stored in the column indices and the values.
HPLX_HD inline long ell_index(long r, int s) {
  return ((r / kSliceRows) * kSlots + s) * kSliceRows + r % kSliceRows;
}

// Entries for `rows` rows (the last slice is padded).
HPLX_HD inline long ell_storage(long rows) {
  return (rows + kSliceRows - 1) / kSliceRows * kSliceRows * kSlots;
}

}  // namespace hplx::mxp
