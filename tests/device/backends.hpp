// The device implementations the contract tests run on: every one compiled
// in. A new implementation gets every contract test (device layer, LU
// phases, MxP kernels) by being listed by device::compiled_in().
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device/backend_kind.hpp"

namespace hplx::test {

inline std::vector<device::BackendKind> contract_backends() {
  std::vector<device::BackendKind> v;
  for (device::BackendKind k : device::all_backend_kinds())
    if (device::compiled_in(k) && k != device::BackendKind::Sim) v.push_back(k);
  return v;
}

// The LU's tests run where the LU runs: not yet on a backend whose device
// memory the host cannot reach (the emulated device; the CUDA issue stages
// the LU's panel and row-swap buffers for it).
inline std::vector<device::BackendKind> lu_backends() {
  std::vector<device::BackendKind> v;
  for (device::BackendKind k : contract_backends())
    if (k != device::BackendKind::Emulated) v.push_back(k);
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

// INSTANTIATE over every backend the LU runs on (lu_backends()).
#define HPLX_INSTANTIATE_OVER_LU_BACKENDS(Suite)                                          \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite, testing::ValuesIn(hplx::test::lu_backends()), \
                           hplx::test::backend_test_name)
