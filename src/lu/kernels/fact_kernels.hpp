// The leaf of the panel factorization on a device (src/lu/phases/fact/panel_factor_device.cpp)
// as kernel bodies (device/kernel_body.hpp): pivot search, the pivot row
// brought to the diagonal, scaling by the pivot, the rank-1 update, and
// L1's transposition. Written once: host loops on the host and emulated
// backends, GPU threads on CUDA (kernels/gpu_instances.cu).
//
// All of them work on W, the stacked panel [A1; A2] of panel.hpp (leading
// dimension ld, jb columns), on the queue's side of it. The pivots and info
// go into W's tail (jb pivots as exact doubles, then info), the form
// LBCAST sends and the in-place row swap (SwapRowsInPlace) reads, so they
// never need the host on one process.
//
// The pivot rule is host FACT's (panel_factor.cpp): the larger magnitude
// wins, NaN above every number, and a tie goes to the smaller stacked row,
// which is the smaller global row.
#pragma once

#include <cmath>

#include "device/kernel_body.hpp"
#include "lu/block_cyclic.hpp"

namespace hplx::lu::kernels {

// |v|, with NaN ranked above every number (panel_factor.cpp's magnitude()).
HPLX_HD inline double pivot_magnitude(double v) {
  if (v != v) return INFINITY;
  return v < 0 ? -v : v;
}

// Whether candidate (ma, ra) beats (mb, rb): pick_pivot's and beats()' rule.
HPLX_HD inline bool pivot_beats(double ma, double ra, double mb, double rb) {
  return ma > mb || (ma == mb && ra < rb);
}

// The pivot search over a column's `rows` rows, in two levels of
// candidates, each found by threads that scan few values: `chunks` threads
// each take every chunks-th row (on a GPU a warp's loads lie side by side),
// then `groups` threads each take every groups-th chunk's candidate, and
// the pick scans the groups' candidates. At 124000 rows a thread scans at
// most 31 rows, 64 chunk candidates and 64 group candidates, where one
// level (a thread per 256 rows, then the pick over 485 candidates) made
// each pivot wait on hundreds of dependent loads. The rule is a total
// order (magnitude, then the smaller row), so any split of the rows picks
// the same pivot.
struct PivotSearch {
  static constexpr long kMinRowsPerChunk = 16;
  static constexpr long kMaxChunks = 4096;
  long chunks, groups;
  HPLX_HD static PivotSearch of(long rows) {
    long chunks = (rows + kMinRowsPerChunk - 1) / kMinRowsPerChunk;
    chunks = chunks < 1 ? 1 : (chunks > kMaxChunks ? kMaxChunks : chunks);
    long groups = static_cast<long>(sqrt(static_cast<double>(chunks)));
    while (groups * groups < chunks) ++groups;
    return {chunks, groups};
  }
  // The doubles its candidates take: a (magnitude, row) pair each.
  HPLX_HD long doubles() const { return 2 * (chunks + groups); }
};

// Chunk g's best row of column `col` over stacked rows first + g, first +
// g + count, ... below `end`: out[2 g] = its magnitude, out[2 g + 1] = its
// stacked row (the first of the largest magnitude among them).
struct ColumnCandidates {
  const double* w;
  long ld, col, first, end;
  double* out;
  long count;
  HPLX_HD void operator()(long g) const {
    double best = -1.0;
    long row = -1;
    for (long r = first + g; r < end; r += count) {
      const double v = pivot_magnitude(w[r + col * ld]);
      if (v > best) {
        best = v;
        row = r;
      }
    }
    out[2 * g] = best;
    out[2 * g + 1] = static_cast<double>(row);
  }
};

// Group h's best of `count` candidates (ColumnCandidates' out): candidates
// h, h + groups, ... by the pivot rule, into out[2 h], out[2 h + 1].
struct GroupCandidates {
  const double* in;
  long count;
  double* out;
  long groups;
  HPLX_HD void operator()(long h) const {
    double mag = in[2 * h], row = in[2 * h + 1];
    for (long g = h + groups; g < count; g += groups) {
      if (pivot_beats(in[2 * g], in[2 * g + 1], mag, row)) {
        mag = in[2 * g];
        row = in[2 * g + 1];
      }
    }
    out[2 * h] = mag;
    out[2 * h + 1] = row;
  }
};

// Where the stacked rows of this process are in the matrix: A1 is global
// rows k .. k + jb - 1, A2's row i local row a2_first + i.
struct StackedRows {
  long k;
  int jb;
  int nb, nprow, myrow;
  long a2_first;
  HPLX_HD long global(long stacked) const {
    return stacked < jb ? k + stacked : local_to_global(a2_first + stacked - jb, nb, myrow, nprow);
  }
};

// W's rows x and y exchanged across its jb columns.
HPLX_HD inline void swap_panel_rows(double* w, long ld, int jb, long x, long y) {
  for (int j = 0; j < jb; ++j) {
    const double t = w[x + j * ld];
    w[x + j * ld] = w[y + j * ld];
    w[y + j * ld] = t;
  }
}

// Records the pivot of column c and, if it is zero and no earlier one was,
// info = 1 + its global column (host FACT's exchange()).
HPLX_HD inline void record_pivot(double* w, long ld, const StackedRows& s, long c, long global,
                                 double* tail) {
  tail[c] = static_cast<double>(global);
  if (w[c + c * ld] == 0.0 && tail[s.jb] == 0.0) tail[s.jb] = static_cast<double>(s.k + c + 1);
}

// The best of `count` candidates (GroupCandidates' out): its stacked row;
// its magnitude in `mag`.
HPLX_HD inline long best_candidate(const double* candidates, long count, double& mag) {
  mag = candidates[0];
  double row = candidates[1];
  for (long g = 1; g < count; ++g) {
    if (pivot_beats(candidates[2 * g], candidates[2 * g + 1], mag, row)) {
      mag = candidates[2 * g];
      row = candidates[2 * g + 1];
    }
  }
  return static_cast<long>(row);
}

// One index: the best of `count` group candidates, then either (one process
// in the column) its row swapped with row c and the pivot recorded, or
// (several) this process's candidate staged for the exchange over the
// column as [magnitude, global row, the row's jb values] (host FACT's
// pick_pivot message).
struct PickPivot {
  double* w;
  long ld, c;
  const double* candidates;
  long count;
  StackedRows rows;
  double* tail;   // W's tail; used when stage is null
  double* stage;  // jb + 2 doubles, or null: swap in place
  HPLX_HD void operator()(long) const {
    double mag = 0;
    const long r = best_candidate(candidates, count, mag);
    const long global = rows.global(r);
    if (stage) {
      stage[0] = mag;
      stage[1] = static_cast<double>(global);
      for (int j = 0; j < rows.jb; ++j) stage[2 + j] = w[r + j * ld];
      return;
    }
    if (r != c) swap_panel_rows(w, ld, rows.jb, c, r);
    record_pivot(w, ld, rows, c, global, tail);
  }
};

// One index, several processes in the column: the winner of the exchange
// (`best`, as PickPivot staged it) becomes row c. A row of A1 is swapped
// within A1 (replicated: every process does it); a row of A2 takes row c's
// old values on its owner, and row c takes the winner's (host FACT's
// exchange()).
struct ApplyExchangedPivot {
  double* w;
  long ld, c;
  const double* best;
  StackedRows rows;
  double* tail;
  HPLX_HD void operator()(long) const {
    const long global = static_cast<long>(best[1]);
    const int jb = rows.jb;
    if (global < rows.k + jb) {
      if (global != rows.k + c) swap_panel_rows(w, ld, jb, c, global - rows.k);
    } else {
      if (owner_of(global, rows.nb, rows.nprow) == rows.myrow) {
        const long i = global_to_local(global, rows.nb, rows.nprow) - rows.a2_first;
        for (int j = 0; j < jb; ++j) w[jb + i + j * ld] = w[c + j * ld];
      }
      for (int j = 0; j < jb; ++j) w[c + j * ld] = best[2 + j];
    }
    record_pivot(w, ld, rows, c, global, tail);
  }
};

// Stacked rows [first, first + n) of column c divided by the pivot W(c, c)
// (times its inverse, as host FACT's dscal); a zero pivot leaves them.
struct ScaleByPivot {
  double* w;
  long ld, c, first;
  HPLX_HD void operator()(long i) const {
    const double pivot = w[c + c * ld];
    if (pivot == 0.0) return;
    const double inv = 1.0 / pivot;
    w[first + i + c * ld] *= inv;
  }
};

// W(r, j) -= W(r, c) W(c, j) for stacked rows [first, first + m) and
// columns [c + 1, c + 1 + n) (host FACT's dger, one element per index).
struct RankOneUpdate {
  double* w;
  long ld, c, first, m;
  HPLX_HD void operator()(long index) const {
    const long j = c + 1 + index / m, r = first + index % m;
    w[r + j * ld] -= w[r + c * ld] * w[c + j * ld];
  }
};

// The leaf of right-looking PFACT on one process (P = 1) as one kernel of
// phases (device::launch_phased: on a GPU one cooperative launch with a
// grid-wide barrier between phases, as rocHPL 7's base case). For each
// column c of [c0, end), four phases: the chunks' candidates, the groups'
// candidates (PivotSearch), the pick and the winner's row brought to row c
// (one index per column of W, each finding the same winner), and one index
// per row below c that scales it by the pivot and applies the rank-1
// update to its columns right of c in the leaf. The arithmetic is the
// kernel bodies' (ScaleByPivot, then RankOneUpdate), element for element,
// so the results are theirs bit for bit (DeviceFact's tests).
struct FusedRightLeaf {
  double* w;
  long ld, c0, end;
  double* candidates;  // PivotSearch::of(ld - c0).doubles()
  StackedRows rows;
  double* tail;  // W's tail: the pivots, then info

  static constexpr long kPhasesPerColumn = 4;
  HPLX_HD long phases() const { return kPhasesPerColumn * (end - c0); }
  HPLX_HD long extent(long phase) const {
    const long c = c0 + phase / kPhasesPerColumn;
    const PivotSearch search = PivotSearch::of(ld - c);
    switch (phase % kPhasesPerColumn) {
      case 0:
        return search.chunks;
      case 1:
        return search.groups;
      case 2:
        return rows.jb;
      default:
        return ld - c - 1;
    }
  }
  HPLX_HD void operator()(long phase, long i) const {
    const long c = c0 + phase / kPhasesPerColumn, step = phase % kPhasesPerColumn;
    if (step == 3) {
      scale_and_update_row(c, c + 1 + i);
      return;
    }
    const PivotSearch search = PivotSearch::of(ld - c);
    double* const grouped = candidates + 2 * search.chunks;
    if (step == 0)
      ColumnCandidates{w, ld, c, c, ld, candidates, search.chunks}(i);
    else if (step == 1)
      GroupCandidates{candidates, search.chunks, grouped, search.groups}(i);
    else
      swap_to_diagonal(c, grouped, search.groups, i);
  }

  // The steps, for MergedRightLeaf too.
  // Column j of the winner's row and row c exchanged; index 0 records the
  // pivot (PickPivot's, with the zero test on the winner's magnitude: the
  // value that reaches W(c, c)).
  HPLX_HD void swap_to_diagonal(long c, const double* grouped, long groups, long j) const {
    double mag = 0;
    const long r = best_candidate(grouped, groups, mag);
    if (r != c) {
      const double t = w[c + j * ld];
      w[c + j * ld] = w[r + j * ld];
      w[r + j * ld] = t;
    }
    if (j != 0) return;
    tail[c] = static_cast<double>(rows.global(r));
    if (mag == 0.0 && tail[rows.jb] == 0.0) tail[rows.jb] = static_cast<double>(rows.k + c + 1);
  }
  // Row r: ScaleByPivot's product, then RankOneUpdate's for each column of
  // the leaf right of c, the scaled value kept in a register. The columns
  // go kBatch at a time, their loads issued together before any store (a
  // store between them would make each load wait for the one before).
  // Four: on sm_90 the kernel then takes 64 registers a thread (52 with
  // the separate phases, 96 with eight), and FACT's blocks must find room
  // beside the update's.
  static constexpr long kBatch = 4;
  HPLX_HD void scale_and_update_row(long c, long r) const {
    const double pivot = w[c + c * ld];
    double l = w[r + c * ld];
    if (pivot != 0.0) {
      const double inv = 1.0 / pivot;
      l *= inv;
      w[r + c * ld] = l;
    }
    for (long j0 = c + 1; j0 < end; j0 += kBatch) {
      double row[kBatch] = {}, top[kBatch] = {};
      for (long t = 0; t < kBatch; ++t) {
        if (j0 + t < end) {
          row[t] = w[r + (j0 + t) * ld];
          top[t] = w[c + (j0 + t) * ld];
        }
      }
      for (long t = 0; t < kBatch; ++t)
        if (j0 + t < end) w[r + (j0 + t) * ld] = row[t] - l * top[t];
    }
  }
};

// FusedRightLeaf in three phases per column (--fact-leaf fused3): each
// row's scaling and rank-1 update also finds the next column's chunk
// candidates, since the next column's search runs over the same rows
// (those below c) in the same chunks (PivotSearch::of(ld - c - 1)). So
// the phases are the first column's chunks, then for each column c its
// groups, its pick and swap, and one index per chunk of the rows below c
// (the chunk's rows c + 1 + g, c + 1 + g + chunks, ..., kRowBatch rows and
// kCols columns at a time, their loads issued together before any store)
// that updates them and, but at the leaf's last column, keeps their best
// of column c + 1. One grid-wide barrier a column less than
// FusedRightLeaf, and a thread's rows no longer wait one by one on their
// loads; the same arithmetic element for element and the same
// candidates, so the same bits (DeviceFact's tests). Not yet run on a GPU.
struct MergedRightLeaf {
  FusedRightLeaf leaf;

  // Rows and columns a batch loads before it stores: two and two. On
  // sm_90 the kernel then takes 60 registers a thread, as the four-phase
  // leaf's 64, so as many of its blocks fit on an SM the update's DGEMM
  // frees (four rows and four columns took 134, two and four 86).
  static constexpr long kRowBatch = 2, kCols = 2;
  HPLX_HD long phases() const { return 1 + 3 * (leaf.end - leaf.c0); }
  HPLX_HD long extent(long phase) const {
    if (phase == 0) return PivotSearch::of(leaf.ld - leaf.c0).chunks;
    const long c = leaf.c0 + (phase - 1) / 3;
    switch ((phase - 1) % 3) {
      case 0:
        return PivotSearch::of(leaf.ld - c).groups;
      case 1:
        return leaf.rows.jb;
      default:
        return c + 1 < leaf.end ? PivotSearch::of(leaf.ld - c - 1).chunks : leaf.ld - c - 1;
    }
  }
  HPLX_HD void operator()(long phase, long i) const {
    const long ld = leaf.ld;
    if (phase == 0) {
      const PivotSearch search = PivotSearch::of(ld - leaf.c0);
      ColumnCandidates{leaf.w, ld, leaf.c0, leaf.c0, ld, leaf.candidates, search.chunks}(i);
      return;
    }
    const long c = leaf.c0 + (phase - 1) / 3, step = (phase - 1) % 3;
    if (step == 2) {  // the row phase, one index per chunk (or per row) below c
      if (c + 1 < leaf.end)
        update_chunk(c, i);
      else
        leaf.scale_and_update_row(c, c + 1 + i);  // the last column: no next one in the leaf
      return;
    }
    const PivotSearch search = PivotSearch::of(ld - c);
    double* const grouped = leaf.candidates + 2 * search.chunks;
    if (step == 0)
      GroupCandidates{leaf.candidates, search.chunks, grouped, search.groups}(i);
    else
      leaf.swap_to_diagonal(c, grouped, search.groups, i);
  }

 private:
  // Chunk g of the rows below c (PivotSearch::of(ld - c - 1)): each row
  // scaled and updated as FusedRightLeaf::scale_and_update_row does, and
  // the chunk's candidate for column c + 1 (ColumnCandidates' rule: the
  // first row of the largest magnitude, rows in increasing order).
  HPLX_HD void update_chunk(long c, long g) const {
    double* const w = leaf.w;
    const long ld = leaf.ld, end = leaf.end, first = c + 1;
    const long count = PivotSearch::of(ld - first).chunks;
    const double pivot = w[c + c * ld];
    const double inv = pivot != 0.0 ? 1.0 / pivot : 0.0;
    double best = -1.0;
    long best_row = -1;
    for (long r0 = first + g; r0 < ld; r0 += kRowBatch * count) {
      long r[kRowBatch];
      double l[kRowBatch];
      for (long t = 0; t < kRowBatch; ++t) {
        r[t] = r0 + t * count;
        l[t] = r[t] < ld ? w[r[t] + c * ld] : 0.0;
      }
      // The columns right of c, kCols at a time: the batch's loads of
      // them go out before any store (the first ones with column c's).
      for (long j0 = first; j0 < end; j0 += kCols) {
        double v[kRowBatch][kCols] = {}, top[kCols] = {};
        for (long k = 0; k < kCols; ++k) {
          if (j0 + k >= end) continue;
          top[k] = w[c + (j0 + k) * ld];
          for (long t = 0; t < kRowBatch; ++t)
            if (r[t] < ld) v[t][k] = w[r[t] + (j0 + k) * ld];
        }
        if (j0 == first) {
          for (long t = 0; t < kRowBatch; ++t) {
            if (r[t] >= ld || pivot == 0.0) continue;
            l[t] *= inv;
            w[r[t] + c * ld] = l[t];
          }
        }
        for (long t = 0; t < kRowBatch; ++t) {
          if (r[t] >= ld) continue;
          for (long k = 0; k < kCols; ++k) {
            if (j0 + k >= end) continue;
            const double updated = v[t][k] - l[t] * top[k];
            w[r[t] + (j0 + k) * ld] = updated;
            if (j0 + k == first) {  // the next column's candidate, from the value stored
              const double m = pivot_magnitude(updated);
              if (m > best) {
                best = m;
                best_row = r[t];
              }
            }
          }
        }
      }
    }
    leaf.candidates[2 * g] = best;
    leaf.candidates[2 * g + 1] = static_cast<double>(best_row);
  }
};

// L1 (jb x jb at a1) stored transposed: one index per element, the pairs
// below the diagonal swap with their mirror (update.cpp's transpose_l1).
struct TransposeBlock {
  double* a1;
  long ld;
  int jb;
  HPLX_HD void operator()(long index) const {
    const long j = index / jb, i = index % jb;
    if (i <= j) return;
    const double t = a1[i + j * ld];
    a1[i + j * ld] = a1[j + i * ld];
    a1[j + i * ld] = t;
  }
};

// p[i] = value.
struct FillDoubles {
  double* p;
  double value;
  HPLX_HD void operator()(long i) const { p[i] = value; }
};

// One index: a solve's info keeps the first nonzero info of its panels.
struct KeepFirstInfo {
  const double* panel_info;
  double* solve_info;
  HPLX_HD void operator()(long) const {
    if (*solve_info == 0.0) *solve_info = *panel_info;
  }
};

}  // namespace hplx::lu::kernels
