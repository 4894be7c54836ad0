#include "core/grid.hpp"

#include <vector>

#include "core/error.hpp"

namespace hplx {

int rank_in(MPI_Comm comm) {
  int r = -1;
  HPLX_MPI_CHECK(MPI_Comm_rank(comm, &r));
  return r;
}

int Communicator::rank() const {
  return rank_in(comm_);
}

int Communicator::size() const {
  int s = 0;
  HPLX_MPI_CHECK(MPI_Comm_size(comm_, &s));
  return s;
}

void Communicator::reset() noexcept {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

ProcessGrid::ProcessGrid(MPI_Comm parent, int nprow, int npcol, GridOrder order)
    : nprow_(nprow), npcol_(npcol), order_(order) {
  int rank = 0, size = 0;
  HPLX_MPI_CHECK(MPI_Comm_rank(parent, &rank));
  HPLX_MPI_CHECK(MPI_Comm_size(parent, &size));
  if (nprow < 1 || npcol < 1 || nprow * npcol > size) {
    throw UsageError("process grid " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                     " needs " + std::to_string(nprow * npcol) + " ranks, only " +
                     std::to_string(size) + " available");
  }
  const bool member = rank < nprow * npcol;
  MPI_Comm all = MPI_COMM_NULL;
  HPLX_MPI_CHECK(MPI_Comm_split(parent, member ? 0 : MPI_UNDEFINED, rank, &all));
  all_ = Communicator(all);
  if (!member) return;
  MPI_Comm_set_errhandler(all, MPI_ERRORS_RETURN);
  if (order == GridOrder::RowMajor) {
    myrow_ = rank / npcol;
    mycol_ = rank % npcol;
  } else {
    myrow_ = rank % nprow;
    mycol_ = rank / nprow;
  }
  MPI_Comm row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  HPLX_MPI_CHECK(MPI_Comm_split(all, myrow_, mycol_, &row));
  HPLX_MPI_CHECK(MPI_Comm_split(all, mycol_, myrow_, &col));
  MPI_Comm_set_errhandler(row, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(col, MPI_ERRORS_RETURN);
  row_ = Communicator(row);
  col_ = Communicator(col);
}

Activity::Peers peers_of(const ProcessGrid& grid, MPI_Comm world) {
  auto in_world = [&](MPI_Comm part) {
    int n = 0;
    MPI_Comm_size(part, &n);
    MPI_Group from, to;
    MPI_Comm_group(part, &from);
    MPI_Comm_group(world, &to);
    std::vector<int> ranks(n), out(n);
    for (int i = 0; i < n; ++i) ranks[i] = i;
    MPI_Group_translate_ranks(from, n, ranks.data(), to, out.data());
    MPI_Group_free(&from);
    MPI_Group_free(&to);
    return out;
  };
  Activity::Peers p;
  MPI_Comm_rank(world, &p.me);
  p.row = in_world(grid.row());
  p.column = in_world(grid.col());
  p.grid = in_world(grid.all());
  return p;
}

}  // namespace hplx
