// The P x Q MPI process grid of HPL, with its row and column communicators.
//
// Rank r of the parent communicator sits at (r / Q, r % Q) in row-major
// mapping and (r % P, r / P) in column-major mapping, as netlib's
// HPL_grid_init; ranks r >= P*Q take no part (in_grid() is false).
#pragma once

#include <mpi.h>

#include <utility>

#include "core/activity.hpp"

namespace hplx {

enum class GridOrder { RowMajor, ColumnMajor };

// This process's rank in `comm`.
int rank_in(MPI_Comm comm);

// Owns an MPI communicator; frees it on destruction (never throws).
class Communicator {
 public:
  Communicator() = default;
  explicit Communicator(MPI_Comm comm) : comm_(comm) {}
  ~Communicator() { reset(); }
  Communicator(Communicator&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  Communicator& operator=(Communicator&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  MPI_Comm get() const { return comm_; }
  operator MPI_Comm() const { return comm_; }
  int rank() const;
  int size() const;

 private:
  void reset() noexcept;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

class ProcessGrid {
 public:
  // Collective over `parent`: every rank of it must call.
  ProcessGrid(MPI_Comm parent, int nprow, int npcol, GridOrder order);

  bool in_grid() const { return myrow_ >= 0; }
  int nprow() const { return nprow_; }
  int npcol() const { return npcol_; }
  int myrow() const { return myrow_; }
  int mycol() const { return mycol_; }
  GridOrder order() const { return order_; }
  // Communicators of the grid (MPI_COMM_NULL on ranks outside it).
  MPI_Comm all() const { return all_; }
  MPI_Comm row() const { return row_; }  // my process row; rank = mycol
  MPI_Comm col() const { return col_; }  // my process column; rank = myrow

 private:
  int nprow_, npcol_;
  GridOrder order_;
  int myrow_ = -1, mycol_ = -1;
  Communicator all_, row_, col_;
};

// The world ranks of the grid's row, column and whole grid, this rank's
// among them: whom the watchdog names as waited for.
Activity::Peers peers_of(const ProcessGrid& grid, MPI_Comm world);

}  // namespace hplx
