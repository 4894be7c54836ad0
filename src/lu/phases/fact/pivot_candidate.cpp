#include "lu/phases/fact/pivot_candidate.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "lu/kernels/fact_kernels.hpp"

namespace hplx::lu {
namespace {

void pick_pivot(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const long width = bytes / static_cast<long>(sizeof(double));
  auto* a = static_cast<double*>(in);
  auto* b = static_cast<double*>(inout);
  for (int e = 0; e < *len; ++e, a += width, b += width)
    if (kernels::pivot_beats(a[0], a[1], b[0], b[1])) std::copy_n(a, width, b);
}

}  // namespace

CandidateExchange::CandidateExchange(MPI_Comm col, long jb) : col_(col) {
  MPI_Comm_size(col, &size_);
  if (size_ == 1) return;
  HPLX_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(jb + 2), MPI_DOUBLE, &type_));
  HPLX_MPI_CHECK(MPI_Type_commit(&type_));
  HPLX_MPI_CHECK(MPI_Op_create(pick_pivot, 1, &op_));
}

CandidateExchange::~CandidateExchange() {
  if (size_ == 1) return;
  MPI_Op_free(&op_);
  MPI_Type_free(&type_);
}

void CandidateExchange::reduce(const double* mine, double* best) const {
  HPLX_MPI_CHECK(MPI_Allreduce(mine, best, 1, type_, op_, col_));
}

}  // namespace hplx::lu
