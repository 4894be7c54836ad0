#include "rank_memory.hpp"

#include <algorithm>

#include "core/system_info.hpp"

namespace hplx::app {

long long memory_per_rank(MPI_Comm world, device::Device& dev, device::BackendKind kind,
                          int local_ranks) {
  long long per_rank = device::traits_of(kind).gpu
                           ? static_cast<long long>(dev.backend().free_device_bytes())
                           : available_memory_bytes() / std::max(1, local_ranks);
  MPI_Allreduce(MPI_IN_PLACE, &per_rank, 1, MPI_LONG_LONG, MPI_MIN, world);
  return per_rank;
}

}  // namespace hplx::app
