// `hplx lu --checkpoint DIR --checkpoint-every SECONDS`: the LU's state
// written at iteration boundaries, so that a run a failed node stopped can
// continue (--resume, lu/checkpoint/resume.hpp).
//
// The look-ahead loop asks at every iteration boundary whether to save
// (due()); the answer is the same on every rank: each rank's "the interval
// has passed" goes into a non-blocking reduction posted at one boundary
// and read at the next, so no boundary waits for a collective of its own.
// To save, the loop first finishes the waiting panels' updates (the
// matrix left of the panel is then final and the rest fully updated;
// the iterations that follow start as the first ones do), then every rank
// writes its new finished columns once, its trailing columns, and its
// state; rank 0 writes the manifest when every rank has said its files
// are written. The two newest checkpoints are kept.
// Where the matrix is in host memory the files are written there and
// then (the matrix is about to change, and there is no room for a copy).
// On a device the copy off it goes on the transfer queue into pinned
// memory (the update waits for the copy only) and a host thread writes the
// files while the next iterations run; the manifest follows at the first
// boundary after every rank's files are written.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "device/buffer.hpp"
#include "device/device.hpp"
#include "lu/block_cyclic.hpp"
#include "lu/checkpoint/manifest.hpp"
#include "lu/iteration_record.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

// The local matrix a checkpoint holds (an LU's: hplx lu's FP64 [A | b],
// HPL-MxP's FP32 A): `cols` columns of `rows` elements of `element` bytes,
// `ld` elements apart, in `backend`'s memory, distributed by columns in
// blocks of nb over npcol process columns (a prefix of the local columns
// is left of any global column: block-cyclic order keeps global order).
struct CheckpointMatrix {
  void* data = nullptr;
  std::size_t element = sizeof(double);
  long rows = 0, cols = 0, ld = 1;
  int nb = 1, mycol = 0, npcol = 1;
  device::Backend* backend = nullptr;

  long col_start(long global) const { return local_start(global, nb, mycol, npcol); }
  char* column(long j) const {
    return static_cast<char*>(data) + static_cast<std::size_t>(j * ld) * element;
  }
  std::size_t column_bytes() const { return static_cast<std::size_t>(rows) * element; }
  std::size_t pitch() const { return static_cast<std::size_t>(ld) * element; }
  bool host_accessible() const { return backend->host_accessible(device::MemorySpace::Device); }
};
CheckpointMatrix checkpoint_view(LocalMatrix& a);

// The factorization's state at a boundary: everything but the matrix.
struct LoopState {
  long column = 0;  // the next panel's global column
  long info = 0;    // 1 + the first zero pivot's column, or 0
  PhaseTimes times;
  std::vector<IterationTimes> iterations;
};

// What one checkpoint cost (the record's "checkpoints").
struct CheckpointCost {
  long column = 0;
  double stall_s = 0;   // the iterations' wait for it (slowest rank)
  double write_s = 0;   // the files' writing (slowest rank; beside the run on a device)
  long long bytes = 0;  // written by all ranks
};

// Where and how often, and what the manifest must say (the run's identity).
struct CheckpointPlan {
  std::string dir;
  double every_s = 1800;
  Manifest identity;                     // build, version, ranks, backend, test_index, test
  std::vector<Segment> segments_before;  // a resumed run's earlier segments
  double seconds_before = 0;
  long start_column = 0;
  std::vector<FileDigest> done_files;  // this rank's finished columns already on the disk
};

class Checkpointer {
 public:
  // Collective over `comm` (the grid's ranks). `solve_start`: wall_time()
  // when the solve's clock started.
  Checkpointer(const CheckpointPlan& plan, device::Device& dev, const CheckpointMatrix& a,
               MPI_Comm comm, double solve_start);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Collective at every iteration boundary: whether to save now.
  bool due();
  // Collective: the matrix (the waiting panels' updates done) and `s`.
  void save(const LoopState& s);
  // Collective after the loop: the files being written are waited for and
  // their manifest written.
  void finish();
  // After the test has finished (its residual checked): this rank's files
  // of the test, and on rank 0 its manifests, removed.
  void remove_all();

  const std::vector<CheckpointCost>& costs() const { return costs_; }

 private:
  // The columns [done_from, cols) at `host`, `pitch` bytes apart.
  void write_files(long column, const char* host, std::size_t pitch, long done_from,
                   long trailing_from, std::vector<double> state);
  void commit();
  std::vector<std::vector<FileDigest>> gather_files() const;
  void remove_old();

  CheckpointPlan plan_;
  device::Device& dev_;
  const CheckpointMatrix a_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int world_rank_ = 0, world_size_ = 1;
  std::string rank_folder_name_;  // this rank's folder's name
  std::string folder_;            // and its path
  double solve_start_;
  double last_ = 0;      // when the interval started
  long done_local_ = 0;  // local columns written as finished so far
  std::vector<FileDigest> done_files_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  int flags_[2] = {0, 0};           // reduced: due, still writing
  bool posted_after_save_ = false;  // the reduction in flight saw the last save
  // The checkpoint written and not yet in a manifest.
  bool pending_ = false;
  Manifest next_;
  std::vector<FileDigest> next_files_;
  double next_seconds_ = 0;
  CheckpointCost next_cost_;
  std::atomic<bool> writing_{false};
  std::thread writer_;
  std::exception_ptr writer_error_;
  device::Buffer<char> staging_;  // on a device: the matrix's copy (pinned)
  std::vector<long> committed_;   // columns of the manifests kept, oldest first
  std::vector<CheckpointCost> costs_;
};

// A rank's state as the state file holds it (doubles, so the file is
// written and checked as the matrix's are), and back; unpack throws
// UsageError naming `what` when the blob is not one.
std::vector<double> pack(const LoopState& s);
LoopState unpack(const std::vector<double>& blob, const std::string& what);

}  // namespace hplx::lu
