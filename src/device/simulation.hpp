// What FACT's model (lu/phases/fact/fact_model.cpp) asks of a simulated
// backend (the sim implementation, device/sim/, in the SMPI build that
// `hplx sim` runs): its data are never read or written, so FACT's
// arithmetic is charged here instead of done, and the figures it needs in
// place of data (the pivots) come from its model. Other host work on data goes through the device
// layer (Backend::holds_data, Backend::charge, host_pass.hpp).
#pragma once

#include "device/queue.hpp"
#include "device/sim_model.hpp"

namespace hplx::device {

class Simulation {
 public:
  virtual ~Simulation() = default;
  virtual const SimModel& model() const = 0;
  // The calling rank's host is busy for `seconds` of simulated time.
  virtual void host_work(double seconds) = 0;
  // `q`, one of this backend's queues, does `seconds` of modelled work
  // after what it has (work whose cost the driver models as a whole, as
  // FACT on the device: lu/phases/fact/fact_model.hpp model_stacked_panel_device).
  virtual void queue_work(Queue& q, double seconds) = 0;
  // `q` does a part of FACT that takes `alone_s` with the device to itself
  // and `beside_s` while its other queues compute (SimModel::device_fact):
  // it runs at the `beside` pace until their work queued so far ends, at
  // the `alone` pace after. A rank without a GPU of its own does alone_s
  // of host work.
  virtual void fact_work(Queue& q, double alone_s, double beside_s) = 0;
};

}  // namespace hplx::device
