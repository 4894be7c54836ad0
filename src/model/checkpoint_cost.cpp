#include "model/checkpoint_cost.hpp"

namespace hplx::model {

std::optional<CheckpointEstimate> estimate_checkpoint(const SystemSpec& spec) {
  if (!spec.node.storage_write_gbs) return std::nullopt;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  double memory = 0;
  if (spec.device.memory_gib)
    memory = *spec.device.memory_gib * kGiB * spec.node.devices;
  else if (spec.node.memory_gib)
    memory = *spec.node.memory_gib * kGiB;
  if (memory <= 0) return std::nullopt;
  CheckpointEstimate e;
  e.bytes_per_node = memory * spec.run.memory_fraction.value_or(0.8);
  e.write_gbs = *spec.node.storage_write_gbs;
  e.seconds = e.bytes_per_node / (e.write_gbs * 1e9);
  e.share_of_30_min = e.seconds / 1800;
  return e;
}

}  // namespace hplx::model
