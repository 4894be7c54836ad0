#include "device/device_errors.hpp"

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::device {

namespace {
thread_local std::string current_operation;
}  // namespace

bool device_sync_mode() {
  static const bool on = [] {
    const char* v = std::getenv("HPLX_DEVICE_SYNC");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0) return false;
    if (std::strcmp(v, "1") == 0) return true;
    throw UsageError(fmt::format(
        "HPLX_DEVICE_SYNC={}: expected 1 (wait for and check each kernel and BLAS call) or 0", v));
  }();
  return on;
}

DeviceOperation::DeviceOperation(std::string what) : previous_(std::move(current_operation)) {
  current_operation = std::move(what);
}

DeviceOperation::~DeviceOperation() {
  current_operation = std::move(previous_);
}

const std::string& current_device_operation() {
  return current_operation;
}

std::string device_error_message(const char* backend, const char* call, const std::string& detail,
                                 bool earlier_work) {
  std::string m = fmt::format("{}: {} failed: {}", backend, call, detail);
  if (!current_operation.empty()) m += fmt::format(" (in {})", current_operation);
  if (earlier_work && !device_sync_mode())
    m += "; the fault may be in earlier work on the device: run with HPLX_DEVICE_SYNC=1 to check "
         "each kernel and BLAS call where it is made";
  return m;
}

}  // namespace hplx::device
