// FACT's model (fact_model.cpp): FACT charged to a backend whose buffers
// hold no data (the simulator), with the pivots from its model.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "device/queue.hpp"
#include "device/sim_model.hpp"
#include "device/simulation.hpp"
#include "lu/config.hpp"
#include "lu/phases/fact/panel_factor.hpp"
#include "lu/phases/panel.hpp"

namespace hplx::lu {

// FACT's engine for a solve on `backend` (panel_factor.hpp), FACT on the
// device or on the host: the model's where the backend's buffers hold no
// data. The one place FACT asks the backend what it is.
FactEngine fact_engine(bool on_device, const device::Backend& backend);

// FACT on the host where `backend` holds no data: the same sub-panel
// notifications as factor_stacked_panel, each column's arithmetic charged
// at the model's FACT rate, the pivots from simulated_pivot over
// the matrix's `n` rows. The per-column pivot exchanges over the process
// column are two real ones per sub-panel, the second timed, and the rest
// charged at its time.
void model_stacked_panel(device::Backend& backend, Panel& panel, int nbmin, int ndiv, MPI_Comm col,
                         long n, const SubpanelDone& done = {});

// FACT on the device where q's backend holds no data (--fact-on device on
// the sim backend): the device FACT's own sequence (panel_factor_device.cpp: the
// recursion's TRSM and GEMM, the leaf's kernels per column) costed from the
// model, not issued, and charged on `q`, the queue that runs FACT, one
// top-level sub-panel at a time: each queue BLAS call at the model's rate
// for its shape plus a launch, each leaf kernel a launch plus its memory
// traffic at the device's bandwidth, each column the model's
// device_fact_column_s. With several process rows the host waits for the
// queue at each sub-panel's end and the pivot exchanges run as in
// model_stacked_panel. The pivots are simulated_pivot's, on the
// host and in W's host tail.
void model_stacked_panel_device(device::Queue& q, Panel& panel, Factorization rfact,
                                Factorization pfact, int nbmin, int ndiv, MPI_Comm col, long n,
                                const SubpanelDone& done = {});

// The device FACT's modelled seconds for one panel of `rows` stacked rows
// and jb columns on one process row (what model_stacked_panel_device
// charges in all), with the device to itself or `beside` the update, for
// tests and the log.
double simulated_device_fact_seconds(const device::SimModel& model, long rows, long jb,
                                     Factorization rfact, Factorization pfact, int nbmin, int ndiv,
                                     bool beside = false);

// The global row FACT takes as pivot of column c of the panel at k in a
// simulated run (no data to search): deterministic, the same on every rank,
// uniform over the rows [k + c, n) as the pivots of HPL's random matrix are.
long simulated_pivot(std::uint64_t seed, long k, long c, long n);

}  // namespace hplx::lu
