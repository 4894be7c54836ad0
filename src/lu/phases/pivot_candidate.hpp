// The rule by which FACT's pivot exchange over a process column picks a
// candidate (an MPI reduction's function, netlib's HPL_pdmxswp): a
// candidate travels as [|value|, global row, row data (jb values)]; the
// larger magnitude wins, ties go to the smaller global row, so the choice
// does not depend on the reduction's order. FACT and its model
// (fact_model.cpp) reduce with it.
#pragma once

#include <mpi.h>

namespace hplx::lu {

void pick_pivot(void* in, void* inout, int* len, MPI_Datatype* type);

}  // namespace hplx::lu
