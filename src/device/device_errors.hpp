// Device errors that name themselves.
//
// A GPU runs its work behind the host: a kernel or BLAS call that faults
// is reported by whatever CUDA call comes next, often a synchronize far
// from the cause. Two aids:
//
// - the operation the calling thread is on, set by the code that knows it
//   (the LU: "RS+UPDATE of the panel at column k, iteration i"), with a
//   DeviceOperation scope; a device error's message names it;
// - HPLX_DEVICE_SYNC=1 in the environment: the CUDA backend then waits for
//   each kernel launch and BLAS call and checks its error there, so the
//   message names the operation that faulted (slow: for finding a fault,
//   not for timing). Read once, at the first device call that asks.
#pragma once

#include <string>

namespace hplx::device {

// Whether HPLX_DEVICE_SYNC is set to 1 (0 or unset: off; anything else is
// a UsageError naming the variable and what it allows).
bool device_sync_mode();

// Sets the calling thread's current operation for the scope's life
// (scopes nest; the innermost is named).
class DeviceOperation {
 public:
  explicit DeviceOperation(std::string what);
  ~DeviceOperation();
  DeviceOperation(const DeviceOperation&) = delete;
  DeviceOperation& operator=(const DeviceOperation&) = delete;

 private:
  std::string previous_;
};

// The calling thread's current operation ("" when none).
const std::string& current_device_operation();

// "`backend`: `call` failed: `detail`", then " (in `operation`)" when the
// thread has one, then, for an error that may come from earlier work
// (`earlier_work`), where to look: the hint to run with HPLX_DEVICE_SYNC=1
// when it is off.
std::string device_error_message(const char* backend, const char* call, const std::string& detail,
                                 bool earlier_work);

}  // namespace hplx::device
