// The context the LU tests solve in: MPI_COMM_WORLD, the thread counts the
// test environment set, and a device of the given backend (host unless a
// contract test asks for another).
#pragma once

#include <mpi.h>
#include <omp.h>

#include <map>
#include <memory>

#include "core/context.hpp"
#include "device/device.hpp"

namespace hplx::test {

inline const Context& test_context(device::BackendKind kind = device::BackendKind::Host) {
  static std::map<device::BackendKind, std::unique_ptr<Context>> made;
  auto& c = made[kind];
  if (!c) {
    ThreadPlan plan;
    plan.threads_per_rank = omp_get_max_threads();
    c = std::make_unique<Context>(MPI_COMM_WORLD, plan, device::make_device(kind));
  }
  return *c;
}

}  // namespace hplx::test
