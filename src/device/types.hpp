// The vocabulary of the device layer: memory spaces and BLAS operand forms.
#pragma once

namespace hplx::device {

// Where a buffer lives. Host: ordinary host memory. Pinned: host memory that
// a device copies to and from fastest (page-locked where the backend has a
// device; plain host memory otherwise), used for MPI staging. Device: the
// backend's own memory, reachable from the host only through a queue's
// copies (for the host backend it is host memory).
enum class MemorySpace { Host, Pinned, Device };

// A queue's priority among the device's queues. High: where the device
// chooses between ready work of several queues, it starts this queue's
// first (a CUDA stream of the greatest priority the device offers); for
// the small, latency-bound work on a schedule's critical path (the LU's
// next panel: its look-ahead update, row swap and FACT) beside the bulk
// update on a Normal queue. The host and emulated backends keep the order
// each queue's work is issued in and nothing more (each emulated queue is
// its own worker thread already; the OS shares the cores among them).
enum class QueuePriority { Normal, High };

// Column-major BLAS operand forms (as in BLAS++).
enum class Trans { No, Yes };
enum class Side { Left, Right };
enum class Uplo { Lower, Upper };
enum class Diag { Unit, NonUnit };

// What a row kernel does to the matrix, for a simulated queue's cost per
// element (each kind is calibrated on its own kernel: the cache lines an
// element costs differ). Swap: rows exchanged in place (the default for a
// body that says nothing). Gather / Scatter: rows spread over the matrix
// (pivot rows) read into a buffer / written from one. BlockGather: adjacent
// rows of one block (the diagonal block's) read into a buffer. BlockStore:
// the solved U stored back, transposed, into the block's adjacent rows.
enum class RowCopy { Swap, Gather, Scatter, BlockGather, BlockStore };
inline constexpr int kRowCopyKinds = 5;
// Its name in files (the simulation model's JSON; a spec's key is
// NAME_ns_per_word_by_threads): "swap", "gather", "scatter",
// "block_gather", "block_store".
constexpr const char* row_copy_name(RowCopy kind) {
  constexpr const char* names[kRowCopyKinds] = {"swap", "gather", "scatter", "block_gather",
                                                "block_store"};
  return names[static_cast<int>(kind)];
}

}  // namespace hplx::device
