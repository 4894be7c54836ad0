// FACT of HPL-MxP's diagonal block on the queue: the LU without pivoting of
// an n x n FP32 block in the queue's memory, recursive as the LU's panel
// factorization (halves cut at multiples of the leaf), so that nearly all
// of its flops are STRSM and SGEMM on the queue:
//   A11 = L11 U11 (recursively), U12 = L11^-1 A12, L21 = A21 U11^-1,
//   A22 -= L21 U12, A22 = L22 U22 (recursively);
// a leaf of at most kLeafColumns columns is one launch of kernel bodies
// (kernels::NopivLeaf: on a GPU one kernel of one block, its phases
// meeting at the block's barrier).
// Nothing reaches the host: a zero or non-finite pivot sets *bad (an int in
// the queue's memory) to 1.
#pragma once

#include "device/queue.hpp"

namespace hplx::hplmxp {

inline constexpr long kLeafColumns = 32;

void factor_diagonal_block(device::Queue& q, long n, float* a, long lda, int* bad);

}  // namespace hplx::hplmxp
