// hplx model: the HPL performance model, original and multi-communication-
// layer (MCL), for machines described in TOML specs.
//
//  - system_spec.hpp: the machine (device compute, memory layer, node link,
//    network) and the run, read from TOML with checked keys;
//  - panel_model.hpp: netlib's per-panel costs and closed form;
//  - prediction.hpp: the layout of a run on nodes, the layers it crosses,
//    and the predictions (time, Gflops, efficiency, the split into
//    computation, pivoting, broadcast and update communication per layer,
//    the per-panel times). predict_run() is the API for `hplx lu --predict`;
//  - machine_spec_path.hpp: where a calibrated spec is found by default;
//  - sim_platform.hpp: `hplx sim`'s SimGrid platform file and hostfile for a
//    spec (network.topology: star, fat tree, dragonfly).
//
// The library needs neither MPI nor a GPU; calibration (calibrate.hpp,
// library hplx_model_calibrate) measures a spec with MPI and OpenBLAS.
// docs/MODEL.md has the equations and the readings chosen.
#pragma once

#include "model/machine_spec_path.hpp"
#include "model/panel_model.hpp"
#include "model/prediction.hpp"
#include "model/sim_platform.hpp"
#include "model/system_spec.hpp"
