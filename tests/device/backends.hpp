// The device implementations the contract tests run on: every one compiled
// in. A new implementation gets every contract test (device layer, LU
// phases, MxP kernels) by being listed by device::compiled_in().
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device/backend.hpp"
#include "device/backend_kind.hpp"

namespace hplx::test {

// A backend compiled in but unusable here (the CUDA backend on a machine
// without a GPU) is left out; tests/device/test_backend_presence.cpp then
// reports it as a skipped test with the reason.
inline std::vector<device::BackendKind> contract_backends() {
  std::vector<device::BackendKind> v;
  for (device::BackendKind k : device::all_backend_kinds())
    if (device::compiled_in(k) && k != device::BackendKind::Sim && device::usable(k))
      v.push_back(k);
  return v;
}

inline std::string backend_test_name(const testing::TestParamInfo<device::BackendKind>& info) {
  return device::name_of(info.param);
}

}  // namespace hplx::test

// INSTANTIATE over every contract backend.
#define HPLX_INSTANTIATE_OVER_BACKENDS(Suite)                                                   \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, testing::ValuesIn(hplx::test::contract_backends()), \
                           hplx::test::backend_test_name)
