#include "device/gpu/gpu_common.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <string>

#include "device/gpu/launch_support.hpp"

namespace hplx::device {

int local_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return std::atoi(v);
  }
  return 0;
}

std::string kernel_name(const char* mangled) {
  int status = 0;
  char* plain = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && plain != nullptr ? plain : mangled;
  std::free(plain);
  return "kernel " + name;
}

}  // namespace hplx::device
