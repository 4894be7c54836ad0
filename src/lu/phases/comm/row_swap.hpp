// RS: apply the panel's row interchanges to the trailing columns and gather
// U, the jb pivot rows, on every process of the process column.
//
// The jb sequential interchanges k+c <-> ipiv[c] are first turned into a
// plan: which (old) row becomes each row of U, and which rows below the
// diagonal block receive an old row of the block. Only rows in the plan move.
#pragma once

#include <vector>

#include "core/grid.hpp"
#include "core/timer.hpp"
#include "device/host_array.hpp"
#include "device/mirror.hpp"
#include "device/queue.hpp"
#include "lu/config.hpp"
#include "lu/local_matrix.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::lu {

struct RowSwapPlan {
  std::vector<long> u_source;  // u_source[r]: global row whose data becomes U row r
  struct Move {
    long to;   // global row >= k + jb
    int from;  // index t of the old row k + t of the diagonal block
  };
  std::vector<Move> moves;  // sorted by `to`
};

RowSwapPlan plan_row_swaps(long k, int jb, const std::vector<long>& ipiv);

// Which algorithm a test uses for `local_columns` trailing columns: netlib's
// mix takes the binary exchange up to the threshold, the long swap above.
// What RS needs of a test: HPL.dat lines 26-27, 29 and 30, --long-swap,
// and --cuda-aware-mpi (Schedule::device_mpi: MPI moves the message
// buffers' device sides; see SwapForm::device_memory).
struct SwapParams {
  SwapAlgorithm algorithm = SwapAlgorithm::Mix;
  int threshold = 64;
  bool modified_long_swap = true;
  bool u_transposed = true;
  bool equilibrate = true;
  bool device_memory = false;
};
SwapParams swap_params(const TestCase& t);
SwapAlgorithm effective_swap(const SwapParams& s, long local_columns);

// RS over several process rows, non-blocking: the constructor packs the
// rows and posts the collectives on grid.col() (every process of the column
// must start the same swaps in the same order); progress() moves them on
// between pieces of other work; finish() completes them. When done, `buffers.u`
// holds U in the form asked for and the displaced rows are in place. The
// matrix rows of columns [lc0, lc0 + nn) must not be touched meanwhile.
//
// Rows are gathered and scattered by kernels on `q`; MPI moves the host
// sides of the message buffers (device::Mirror: the same memory on the
// host backend, Pinned copies otherwise). U arrives on the host side of `buffers.u`
// (bound to q's backend here) and goes to its device side, on `q`, when
// the swap is done: update with buffers.u.device() after that, on the same queue.
// With SwapForm::device_memory on a device backend, MPI moves the buffers'
// device sides instead and no row crosses to the host: the host waits for
// the queue only before MPI reads rows a kernel packed, and U is unpacked
// from the rows MPI brought by a kernel on `q` into buffers.u.device().
// How a swap runs and what it leaves.
//   algorithm: binary exchange or long (spread-roll); see effective_swap().
//   roll_first: post U's exchange (the long swap's roll) before packing the
//     displaced rows (its spread), as seed 003 5.2 modifies the long swap;
//     false keeps netlib's order, where the roll starts when the spread is done.
//   u_transposed: U comes out nn x jb (row r of U contiguous, HPL.dat line 29
//     = 0) or jb x nn (column c contiguous).
//   second: binary exchange has a second stage (U's broadcast down the
//     column), and so does the long swap in netlib's order, posted when the
//     first completes, which can happen inside any progress() call. So that
//     collectives start in the same order everywhere when several swaps are
//     in flight, that stage runs on `second` (a duplicate of grid.col() used
//     for nothing else); MPI_COMM_NULL means grid.col(), fine for one swap at
//     a time.
struct SwapForm {
  SwapAlgorithm algorithm = SwapAlgorithm::BinaryExchange;
  bool roll_first = true;
  bool u_transposed = true;
  bool equilibrate = true;  // long swap: even the pieces before the roll (line 30)
  MPI_Comm second = MPI_COMM_NULL;
  // MPI reads and writes the message buffers' device memory (a CUDA-aware
  // MPI, --cuda-aware-mpi): no copies to and from the host. Ignored where
  // device memory is the host's (the host backend: the same memory either
  // way) or holds no data (sim); see swaps_in_device_memory().
  bool device_memory = false;
};

// The form of a swap of `local_columns` columns (second: see SwapForm).
SwapForm swap_form(const SwapParams& s, long local_columns, MPI_Comm second = MPI_COMM_NULL);

// Whether a swap asked to use device memory (SwapForm::device_memory) does
// so on `backend`.
bool swaps_in_device_memory(bool asked, device::Backend& backend);

// What a row swap leaves (U, in `u`) and works in (the row lists its
// kernels read and the packed rows its messages carry). Kept by the caller
// from one iteration to the next, so that the buffers grow once instead of
// being made and freed by every swap (device memory allocation is slow on a
// GPU; lending them took 6% of a 1024-rank simulation's time). One swap in
// flight at a time per SwapBuffers.
struct SwapBuffers {
  device::Mirror<double> u;
  device::Mirror<long> mine_rows, out_rows, in_rows;
  device::Mirror<double> mine, outgoing, incoming;
  device::HostArray<double> gathered, received, piece;  // host only
  // With device memory (SwapForm::device_memory): what MPI brings of U, and
  // where each row of U starts in it, for the unpacking kernel.
  device::Buffer<double> gathered_device, received_device;
  device::Mirror<long> u_rows;

  // Sizes the buffers that swaps of up to nn columns of panels of nb rows
  // over nprow process rows use in `params`' forms, and touches their host
  // pages. A solve that reserves before its timer starts then neither
  // allocates nor faults them in while timed: growing them as the pivots
  // asked for more rows cost the first two iterations of a 2x1 run at
  // N = 10000 about 0.3 s of page faults and huge-page compaction. Each
  // process's own share of U is reserved with room for a quarter more rows
  // than an even share; a swap that needs more still grows it. Nothing on
  // the sim backend (its buffers hold no data).
  void reserve(device::Backend& backend, long nn, int nb, int nprow, const SwapParams& params);
  // The doubles reserve() holds at most for nn columns (memory preflight).
  static double reserved_doubles(long nn, int nb, int nprow);
};

class RowSwapInFlight {
 public:
  RowSwapInFlight(device::Queue& q, LocalMatrix& a, const Panel& p, const RowSwapPlan& plan,
                  long lc0, long nn, const ProcessGrid& grid, SwapBuffers& buffers,
                  const SwapForm& form);
  RowSwapInFlight(const RowSwapInFlight&) = delete;
  RowSwapInFlight& operator=(const RowSwapInFlight&) = delete;
  bool progress();  // true when done
  void finish();
  // The communication's timeline, and the time spent copying rows between
  // the matrix and the message buffers (packing, unpacking, placing).
  const CommTiming& timing() const { return timing_; }
  double copy_seconds() const { return copy_; }

 private:
  static constexpr int kDone = -1;
  void complete_stage();
  void complete_stage_work();
  void post_u(MPI_Request& req);
  void post_first_u(MPI_Request& req);
  void post_u_from_device(MPI_Request& req);
  void plan_equilibration();
  void plan_roll();
  void assemble_piece();
  long piece_first(int i) const;
  std::vector<long> u_row_starts() const;
  void unpack_u();
  void unpack_u_on_host();
  void unpack_u_on_device();
  // The side of a message buffer MPI is handed.
  template <class T>
  T* mpi_side(device::Mirror<T>& m) {
    return device_memory_ ? m.device() : m.data();
  }

  device::Queue& q_;
  LocalMatrix& a_;
  const Panel& p_;
  const RowSwapPlan& plan_;
  long lc0_, nn_;
  const ProcessGrid& grid_;
  SwapBuffers& b_;
  MPI_Comm second_;
  bool roll_first_ = true, u_transposed_ = true;
  bool long_ = false, equil_ = false;
  bool device_memory_ = false;  // MPI moves device sides (SwapForm::device_memory)
  int stage_ = 0;  // 0: U gather (+ scatter of displaced rows); 1: binary exchange's U bcast
  // Counts and displacements live as long as the collectives using them.
  std::vector<int> ucount_, udisp_, mcount_, mdisp_;
  std::vector<int> scount_, sdisp_, rcount_, rdisp_, pcount_, pdisp_;  // equilibration
  void place_own_part(const double* mine, long count, double* at);
  std::vector<MPI_Request> reqs_;
  CommTiming timing_;
  double copy_ = 0;
};

// Seconds of a blocking swap spent copying rows and blocked in MPI.
struct SwapCost {
  double copy = 0, waited = 0;
};

// Applies the plan to local columns [lc0, lc0 + nn) of `a` and returns U in
// `buffers.u` (see SwapForm). Collective over grid.col(); the blocking form of
// RowSwapInFlight.
SwapCost swap_rows(device::Queue& q, LocalMatrix& a, const Panel& p, const RowSwapPlan& plan,
                   long lc0, long nn, const ProcessGrid& grid, SwapBuffers& buffers,
                   const SwapForm& form);

// The plan of a panel's interchanges built on the device, on q, from jb
// pivots in q's memory (the panel's tail: global rows as exact doubles)
// into `plan` (kernels::plan_longs(jb) longs of q's memory; layout in
// kernels::PlanArrays): the U rows' sources and the moves below the block
// as row lists, with no host round trip (kernels/row_kernels.hpp).
void plan_row_swaps_on_device(device::Queue& q, const double* pivots, long k, int jb, long* plan);

// What the in-place swap works in on a device: the plan of the panel's
// interchanges and the rows on their way, kept from panel to panel (grown
// to the largest swap seen, never per panel). Its swaps must run in one
// queue's order: swaps on two queues at once (say the look-ahead's on the
// panel queue beside the rest on the compute queue) need one each.
struct InPlaceSwapBuffers {
  device::Buffer<long> plan;
  device::Buffer<double> rows;
  // Sizes them for swaps of up to nn columns of panels of nb rows, where a
  // device's swap uses them (nothing on the host or sim backends): a solve
  // that reserves them before its timer starts allocates nothing while
  // timed (on a GPU a cudaMalloc may wait for the device's work).
  void reserve(device::Backend& backend, long nn, int nb);
};

// With one process row the interchanges are applied in place to the
// columns [lc0, lc0 + nn): U is then rows k .. k+jb-1 of the matrix itself,
// and no copy of it is made. Netlib's result (LAPACK's dlaswp: the jb
// interchanges in order), two ways:
// - on the host (Device memory host accessible), on a simulated queue
//   (charged as one swap per pivot row and column, as calibrated), or with
//   no `scratch`: dlaswp itself, column block by column block;
// - on a device with `scratch`: the plan built on the device from the
//   panel's device pivots (plan_row_swaps_on_device), then every touched
//   row of a slab of columns gathered into scratch->rows and scattered to
//   its destination, one index per (row, column) element.
void swap_rows_in_place(device::Queue& q, LocalMatrix& a, const Panel& p, long lc0, long nn,
                        InPlaceSwapBuffers* scratch = nullptr);

}  // namespace hplx::lu
