#include "core/host_name.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <set>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace hplx {

std::array<char, kHostChars> my_host_name() {
  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  std::array<char, kHostChars> host{};
  if (MPI_Get_processor_name(name.data(), &length) != MPI_SUCCESS || length <= 0)
    std::snprintf(host.data(), host.size(), "unknown");
  else
    std::snprintf(host.data(), host.size(), "%.*s", length, name.data());
  return host;
}

int hosts_in(MPI_Comm comm) {
  const std::array<char, kHostChars> host = my_host_name();
  const std::uint64_t mine = std::hash<std::string_view>{}(std::string_view(host.data()));
  int size = 1;
  HPLX_MPI_CHECK(MPI_Comm_size(comm, &size));
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
  HPLX_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm));
  return static_cast<int>(std::set<std::uint64_t>(all.begin(), all.end()).size());
}

}  // namespace hplx
