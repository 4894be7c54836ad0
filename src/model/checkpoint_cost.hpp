// What `hplx lu --checkpoint` costs on a system of a spec: each node writes
// the part of the matrix its devices hold (their memory times the run's
// memory_fraction; a node's memory where the devices have none of their
// own) at the node's file-system write rate (node.storage_write_gbs).
// On a GPU the copy off the device goes beside the run and the files are
// written by a host thread; the run waits for the copy only, so this is
// the bound of the write's own time, not of the run's wait.
#pragma once

#include <optional>

#include "model/system_spec.hpp"

namespace hplx::model {

struct CheckpointEstimate {
  double bytes_per_node = 0;
  double write_gbs = 0;        // the node's file-system rate
  double seconds = 0;          // one checkpoint's write
  double share_of_30_min = 0;  // seconds / 1800
};

// None where the spec gives no storage_write_gbs or no memory to size by.
std::optional<CheckpointEstimate> estimate_checkpoint(const SystemSpec& spec);

}  // namespace hplx::model
