// One panel of the LU: the jb columns starting at global row/column k.
//
// The panel is stored as a stacked column-major buffer W of (jb + m2) x jb:
//   rows [0, jb)       A1, the jb x jb diagonal block, replicated on every
//                      process of the panel's process column (netlib's L1);
//   rows [jb, jb + m2) A2, this process's local rows below the diagonal
//                      block (netlib's L2).
// Replicating A1 lets the pivot search, the row swaps inside the panel and
// the small triangular solves of the recursive factorization run with one
// collective per column. After the factorization A1 holds L11 (unit lower)
// and U11, A2 holds L21, and ipiv[c] is the global row swapped with row k+c.
// The same buffer is what LBCAST sends along the process row; the jb pivots
// and info follow the panel in it (as exact doubles, `tail()`), so one
// message per hop carries everything.
//
// W is a device::Mirror: FACT and LBCAST work on its host side, UPDATE and
// the in-place row swap read its device side (the d_ accessors), which
// panel_to_device() fills once the panel is factored and received. With the
// host backend both sides are the same memory.
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

#include "device/mirror.hpp"
#include "device/queue.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

struct Panel {
  long k = 0;                // global index of the first row and column
  int jb = 0;                // width
  long m2 = 0;               // local rows in A2
  long a2_first = 0;         // local row index (in the LocalMatrix) of A2's first row
  int owner_row = 0;         // process row holding rows k .. k+jb-1
  int owner_col = 0;         // process column holding columns k .. k+jb-1
  device::Mirror<double> w;  // (jb + m2) x jb, leading dimension ld(), then the tail
  std::vector<long> ipiv;    // jb global pivot rows
  long info = 0;             // 1 + global column of the first zero pivot, or 0
  // FACT on the device (panel_factor_device.hpp): W's device side holds
  // the factored panel and its tail, and needs no upload; `factored` is
  // the point of FACT's queue the other queues wait for (null when its
  // work is done when it returns). `pivots_on_host`: ipiv and info hold
  // the pivots (always, but for device FACT on one process row and
  // column, where they stay on the device).
  bool on_device = false;
  bool pivots_on_host = true;
  device::EventPtr factored;
  // A reused W whose earlier panel's updates may still be reading it
  // (PanelBuffers): the queue that writes W first waits for these,
  // the host does not. Empty where the host waited, or nothing was pending.
  std::vector<device::EventPtr> reuse_after;

  long ld() const { return jb + m2; }
  double* a1() { return w.data(); }
  double* a2() { return w.data() + jb; }
  const double* a1() const { return w.data(); }
  const double* a2() const { return w.data() + jb; }
  double* tail() { return w.data() + ld() * jb; }  // jb pivots, then info
  const double* tail() const { return w.data() + ld() * jb; }
  // W's device side: L1, L2 and the pivots, for queue work.
  const double* d_a1() const { return w.device(); }
  const double* d_a2() const { return w.device() + jb; }
  const double* d_pivots() const { return w.device() + ld() * jb; }
};

// The tail from ipiv and info (the sender, before LBCAST), and back (the
// receivers, after it).
void pack_panel_tail(Panel& p);
void unpack_panel_tail(Panel& p);

// Makes a factored, received panel ready for queue work: its pivots go
// into the tail and W to the device side, on `q` (nothing to copy when the
// device's memory is the host's, or when FACT ran on the device: q then
// waits for FACT's queue).
void panel_to_device(device::Queue& q, Panel& p);

// After FACT, before LBCAST: store L1 transposed in the panel's buffer
// (netlib's line 28 = 0), so every process solves with L11^T's storage.
void transpose_l1(Panel& p);

// Where a panel's W comes from: a kept buffer (its earlier readers not yet
// done left in `pending` where that is given, else waited for by the
// host), or an empty one (the schedules' PanelStore::take).
using PanelBuffers = std::function<device::Mirror<double>(std::vector<device::EventPtr>* pending)>;

// Sets the geometry of the panel at global index k for this process; W
// lives on a's backend, in a buffer of `buffers` when they are given.
// `fact_on_device`: on the panel's process column FACT's queue writes W
// first (factor_panel_device), so a reused buffer's pending reads are left
// to it (Panel::reuse_after) and the host goes on; elsewhere the host
// writes W (host FACT, LBCAST's receive) and waits for them.
Panel make_panel(const LocalMatrix& a, long k, const ProcessGrid& grid,
                 const PanelBuffers& buffers = {}, bool fact_on_device = false);

}  // namespace hplx::lu
