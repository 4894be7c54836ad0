// FACT's pivot exchange over a process column (netlib's HPL_pdmxswp): each
// process offers its candidate as [|value|, global row, row data (jb
// values)], and the reduction keeps the larger magnitude, ties going to
// the smaller global row (kernels::pivot_beats), so the choice does not
// depend on the reduction's order. Host FACT, device FACT and FACT's model
// (fact_model.cpp) reduce with it.
#pragma once

#include <mpi.h>

namespace hplx::lu {

class CandidateExchange {
 public:
  // Collective over `col`: every process of the column makes it with the
  // same jb.
  CandidateExchange(MPI_Comm col, long jb);
  ~CandidateExchange();
  CandidateExchange(const CandidateExchange&) = delete;
  CandidateExchange& operator=(const CandidateExchange&) = delete;

  // Whether the column has more than one process (else nothing to reduce).
  bool several() const { return size_ > 1; }
  // best := the winner of every process's `mine` (jb + 2 doubles each).
  void reduce(const double* mine, double* best) const;

 private:
  MPI_Comm col_;
  int size_ = 1;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

}  // namespace hplx::lu
