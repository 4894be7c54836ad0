// The matrix generator as a kernel body: one local column of [A | b] per
// index, so the matrix is generated where it lives (host or device).
#pragma once

#include <cstdint>

#include "device/kernel_body.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/kernels/lcg.hpp"

namespace hplx::lu::kernels {

struct GenerateColumns {
  long n;
  int nb, npcol, mycol;
  long mp;
  std::uint64_t first_row;  // global row of local row 0
  LcgJump to_column_start;  // from X(0) to X(1 + first_row) of column 0
  LcgJump column_step;      // one column: N steps
  LcgJump next_block;       // from one local row block to the next: nprow * nb steps
  LcgJump step4;
  double* a;
  long lda;
  long first_column;  // index i generates local column first_column + i

  HPLX_HD void operator()(long i) const {
    const long lj = first_column + i;
    const auto j = static_cast<std::uint64_t>(local_to_global(lj, nb, mycol, npcol));
    double* col = a + lj * lda;
    // X(1 + first_row + j N): the column's first local row, jumped to with
    // the binary powers of the column step.
    std::uint64_t block_start = to_column_start.apply(kLcgSeed);
    LcgJump power = column_step;
    for (std::uint64_t k = j; k != 0; k >>= 1) {
      if (k & 1U) block_start = power.apply(block_start);
      power = LcgJump{power.mul * power.mul, power.mul * power.add + power.add};
    }
    for (long li0 = 0; li0 < mp; li0 += nb) {
      const long li1 = li0 + nb < mp ? li0 + nb : mp;
      // Four interleaved streams (rows li, li+1, li+2, li+3, each stepping
      // by 4) break the latency chain of the sequential recurrence.
      std::uint64_t x0 = block_start;
      std::uint64_t x1 = kLcgMultiplier * x0 + kLcgIncrement;
      std::uint64_t x2 = kLcgMultiplier * x1 + kLcgIncrement;
      std::uint64_t x3 = kLcgMultiplier * x2 + kLcgIncrement;
      long li = li0;
      for (; li + 4 <= li1; li += 4) {
        col[li] = lcg_value(x0);
        col[li + 1] = lcg_value(x1);
        col[li + 2] = lcg_value(x2);
        col[li + 3] = lcg_value(x3);
        x0 = step4.apply(x0);
        x1 = step4.apply(x1);
        x2 = step4.apply(x2);
        x3 = step4.apply(x3);
      }
      // At most three rows left: x0, x1, x2 are their states.
      if (li < li1) col[li++] = lcg_value(x0);
      if (li < li1) col[li++] = lcg_value(x1);
      if (li < li1) col[li++] = lcg_value(x2);
      block_start = next_block.apply(block_start);
    }
  }
};

}  // namespace hplx::lu::kernels
