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

#include <deque>
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
  // (PanelStore::take): the queue that writes W first waits for these,
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

// Panels' W buffers kept from one panel to the next: a solve takes one for
// each panel and gives it back once the panel's update is queued, instead of
// allocating and faulting in a new (local rows + NB) x NB buffer per panel.
// On 1x1 and 1x2 at N = 10000 (about 15 MiB each) the first two FACTs took
// 65-105 ms against 15-26 ms later, mostly for that. On a GPU a new panel
// also cost a cudaMallocHost (page-locking about 1 GB at N = 123904, NB =
// 1024) and a cudaFree and cudaFreeHost, which wait for all the device's
// work: FACT then ran after the update instead of beside it (docs/GPU.md).
// Where queues run behind the host, a buffer comes back with events on the
// queues that read it and is reused once they are done.
class PanelStore {
 public:
  // `count` buffers for any panel of a, their host pages touched (nothing
  // on the sim backend, whose buffers hold no data).
  void reserve(const LocalMatrix& a, int count);
  // A kept buffer (the last one given back whose queue work is done, or
  // else the oldest), or an empty one. The oldest's work not yet done is
  // waited for by the host, or, where `pending` is given, left in it for
  // the queue that writes the buffer first to wait for.
  device::Mirror<double> take(std::vector<device::EventPtr>* pending = nullptr);
  // `ready`: events recorded after the queue work that reads `w` (none where
  // that work is done when it returns).
  void give(device::Mirror<double> w, std::vector<device::EventPtr> ready = {}) {
    free_.push_back({std::move(w), std::move(ready)});
  }

 private:
  struct Kept {
    device::Mirror<double> w;
    std::vector<device::EventPtr> ready;
    bool done() const;
  };
  std::deque<Kept> free_;  // oldest first
};

// Sets the geometry of the panel at global index k for this process; W
// lives on a's backend, in a buffer of `store` when one is given.
// `fact_on_device`: on the panel's process column FACT's queue writes W
// first (factor_panel_device), so a reused buffer's pending reads are left
// to it (Panel::reuse_after) and the host goes on; elsewhere the host
// writes W (host FACT, LBCAST's receive) and waits for them.
Panel make_panel(const LocalMatrix& a, long k, const ProcessGrid& grid, PanelStore* store = nullptr,
                 bool fact_on_device = false);

// FACT, on the processes of the panel's process column: copies the panel out
// of `a`, factors it (recursive PFACT/RFACT/NBMIN/NDIV as netlib), and writes
// the factored columns back. Collective over grid.col(). `threads` > 1 runs
// the factorization on an OpenMP team of up to that many threads (see
// factor_stacked_panel); call it from the thread that may call MPI.
// Called on the thread that may call MPI when the top-level sub-panel of
// columns [first, end) (one of netlib's NDIV parts, not the last) is factored:
// its values are final except for the row interchanges of later pivots.
using SubpanelDone = std::function<void(long first, long end)>;

// What FACT needs of a test: HPL.dat's RFACT, PFACT, NBMIN, NDIV and
// whether L1 is stored transposed afterwards (line 28).
struct FactParams {
  Factorization rfact = Factorization::Crout;
  Factorization pfact = Factorization::Right;
  int nbmin = 4;
  int ndiv = 2;
  bool l1_transposed = true;
  // GPU DGEMM inside FACT (--fact-device-gemm, FactDeviceGemm below): the
  // recursion's updates at levels at least this many columns wide run on
  // the device; 0 = all on the host.
  long device_gemm_cols = 0;
  // --fact-on device: FACT runs on the queue (panel_factor_device.hpp).
  bool on_device = false;
  // --fact-leaf, --fact-blocks (Schedule): device FACT's leaf.
  FactLeaf leaf = FactLeaf::Fused;
  int leaf_blocks = 32;
};
FactParams fact_params(const TestCase& t);

class DeviceTimeline;

// The panel's columns come out of the matrix and go back through `q`'s
// copies (FACT runs on the host whatever the backend: rocHPL's design),
// timed on the device by `timeline` when it is not null.
void factor_panel(device::Queue& q, LocalMatrix& a, Panel& panel, const FactParams& f,
                  const ProcessGrid& grid, int threads = 1, const SubpanelDone& done = {},
                  DeviceTimeline* timeline = nullptr);

// The factorization kernels, exposed for tests: factor columns [0, jb) of a
// stacked panel whose A2 rows have the given global indices. `col` is the
// process-column communicator (MPI_COMM_SELF for a serial panel).
struct PanelRows {
  int nb;         // block size of the row distribution
  int nprow;      // process rows (the size of `col`)
  int myrow;      // this process's row (its rank in `col`)
  long a2_first;  // local row index of A2's first row
};

// GPU DGEMM inside the recursive FACT (seed 003 5.1.2): a recursion level
// at least `min_cols` columns wide updates its right part on `queue`'s
// device instead of on the host. The operands are copied into the panel
// W's device side (the same offsets), the GEMM runs there and the updated
// columns come back; the host waits. It pays where the device's DGEMM is
// much faster than the host's and the level wide enough to hide the
// copies. Ignored when W's device side is host memory (the host backend).
// `calls`, when set, counts the device GEMMs.
struct FactDeviceGemm {
  device::Queue* queue = nullptr;
  long min_cols = 0;
  long* calls = nullptr;
  bool applies(long level_cols) const {
    return queue != nullptr && min_cols > 0 && level_cols >= min_cols;
  }
};

// `threads` > 1 factors with one OpenMP team of min(threads, 1 + A2's row
// tiles of jb rows) threads, at least two: each thread updates, searches and
// scales its own tiles (A1 is thread 0's), and only thread 0 calls MPI, so
// MPI_THREAD_FUNNELED is enough. The arithmetic is the same as with one
// thread, BLAS calls over fewer rows aside, so pivots and values agree up to
// rounding. 1 (or less) is the unthreaded factorization, whose BLAS calls may
// use BLAS's own threads. Pass the same `threads` on every process of the
// column: A1's BLAS calls must round alike everywhere. Called inside a
// parallel region without nested parallelism, the team is the calling thread
// alone.
void factor_stacked_panel(Panel& panel, const PanelRows& rows, Factorization rfact,
                          Factorization pfact, int nbmin, int ndiv, MPI_Comm col, int threads = 1,
                          const SubpanelDone& done = {}, const FactDeviceGemm& device_gemm = {});

// The first columns of the top-level sub-panels the recursion factors in
// turn, for a panel of jb columns ({0} when it is not split).
std::vector<long> subpanel_starts(int jb, int nbmin, int ndiv);

}  // namespace hplx::lu
