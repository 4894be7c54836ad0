// The device layer, one header for its users (the LU, the MxP, calibration):
// where data lives (Buffer in a MemorySpace) and how work is ordered (Queue,
// Event), with BLAS on a queue and kernel bodies launched over an index range
// (launch.hpp). Four implementations share this contract: host (here, the
// test oracle), emulated, cuda and sim (later issues); docs/ARCHITECTURE.md
// says how to add one.
//
// A Device is one backend with the queues a run uses: `compute` for the
// matrix work, `transfer` for copies and communication staging that should
// overlap it (the MxP's halo, the LU's row swaps), and `panel`, of High
// priority, for the short work a schedule's critical path waits on while
// the bulk of the matrix work fills `compute`: the LU's next panel (its
// look-ahead update, its row swap, its FACT on the device). The LU reaches
// them through its Context (core/context.hpp: ctx.device().panel()). Today
// the LU's device FACT runs there (--fact-on device); the look-ahead update
// and the next panel's swap are still on `compute`. A queue nobody uses
// costs a CUDA stream, or an idle worker thread on the emulated device.
#pragma once

#include <memory>

#include "device/backend.hpp"
#include "device/buffer.hpp"
#include "device/queue.hpp"

namespace hplx::device {

class Device {
 public:
  explicit Device(std::unique_ptr<Backend> backend);
  Backend& backend() const { return *backend_; }
  BackendKind kind() const { return backend_->kind(); }
  Queue& compute() const { return *compute_; }
  Queue& transfer() const { return *transfer_; }
  Queue& panel() const { return *panel_; }

  template <class T>
  Buffer<T> alloc(long count, MemorySpace space = MemorySpace::Device) const {
    return Buffer<T>(*backend_, count, space);
  }

 private:
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Queue> compute_, transfer_, panel_;
};

// make_backend(kind) with its queues.
std::shared_ptr<Device> make_device(BackendKind kind);

}  // namespace hplx::device
