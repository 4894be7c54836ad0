// FACT on the host: HPL.dat's parameters of it, the panel's trip out of the
// matrix and back, and netlib's recursive factorization of a stacked panel
// (panel_factor.cpp; FACT on the device: panel_factor_device.hpp).
#pragma once

#include <mpi.h>

#include <functional>
#include <vector>

#include "core/grid.hpp"
#include "device/queue.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::lu {

// FACT, on the processes of the panel's process column: copies the panel out
// of `a`, factors it (recursive PFACT/RFACT/NBMIN/NDIV as netlib), and writes
// the factored columns back. Collective over grid.col(). `threads` > 1 runs
// the factorization on an OpenMP team of up to that many threads (see
// factor_stacked_panel); call it from the thread that may call MPI.
// Called on the thread that may call MPI when the top-level sub-panel of
// columns [first, end) (one of netlib's NDIV parts, not the last) is factored:
// its values are final except for the row interchanges of later pivots.
using SubpanelDone = std::function<void(long first, long end)>;

// FACT's engines: what factors a panel once its columns are in W. netlib's
// recursion on the host (factor_stacked_panel) or on FACT's queue
// (factor_stacked_panel_device), or, where the backend's buffers hold no
// data (the simulator), FACT's model of either (fact_model.hpp), which
// charges its time and draws its pivots. Chosen once, where FACT chooses
// host or device (fact_engine(), fact_model.cpp), and passed down:
// factor_panel and factor_panel_device do not ask the backend.
enum class FactEngine { Host, Device, ModelledHost, ModelledDevice };

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
// timed on the device by `timeline` when it is not null; `engine` (Host or
// ModelledHost) factors them.
void factor_panel(device::Queue& q, LocalMatrix& a, Panel& panel, const FactParams& f,
                  const ProcessGrid& grid, int threads = 1, const SubpanelDone& done = {},
                  DeviceTimeline* timeline = nullptr, FactEngine engine = FactEngine::Host);

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
