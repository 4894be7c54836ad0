#include "model/provenance.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hplx::model {
namespace {

// Figures hplx sim's kernel models read and the analytic model does not
// (but for a GPU's update: its shape and share of DGEMM, read by both).
constexpr const char* kSimOnly[] = {"device.dgemm_half_dim",
                                    "device.launch_us",
                                    "device.update_share_of_dgemm",
                                    "device.multiprocessors",
                                    "device.dgemm_cv",
                                    "device.dgemm_pack_ns_per_word",
                                    "device.gather_ns_per_word_by_threads",
                                    "device.scatter_ns_per_word_by_threads",
                                    "device.block_gather_ns_per_word_by_threads",
                                    "device.block_store_ns_per_word_by_threads",
                                    "host.copy_gbs"};
// FACT on the host of a GPU.
constexpr const char* kHostFact[] = {"host.fact_gflops", "host.fact_column_us",
                                     "host.link.alpha_us", "host.link.bandwidth_gbs"};

bool among(const std::string& key, const auto& list) {
  return std::any_of(std::begin(list), std::end(list), [&](const char* k) { return key == k; });
}
bool under(const std::string& key, const std::string& table) {
  return key == table || key.starts_with(table + ".");
}

}  // namespace

std::vector<std::string> assumed_figures(const SystemSpec& spec, const FigureUse& use) {
  const bool gpu_host = spec.host.present;
  const bool probe = spec.device.fact_probe.present();
  std::vector<std::string> out;
  for (const std::string& key : spec.provenance.assumed) {
    bool reads = true;
    if (gpu_host && among(key, kHostFact)) {
      reads = use.host_fact;
    } else if (gpu_host && under(key, "device.fact_probe")) {
      reads = use.device_fact;
    } else if (gpu_host && key == "device.fact_column_us") {
      // Device FACT's time per column counts only where no table was measured.
      reads = use.device_fact && !probe;
    } else if (gpu_host && key == "device.launch_us") {
      // The analytic model charges launches only to device FACT without a table.
      reads = use.sim || (use.device_fact && !probe);
    } else if (gpu_host &&
               (key == "device.dgemm_half_dim" || key == "device.update_share_of_dgemm")) {
      reads = true;  // the model charges a GPU's update at its shape, as hplx sim does
    } else if (among(key, kSimOnly)) {
      reads = use.sim;
    } else if (under(key, "run")) {
      reads = false;  // the run's size and shape are choices, not the machine's figures
    }
    if (reads) out.push_back(key);
  }
  return out;
}

std::string assumed_figures_line(const SystemSpec& spec, const FigureUse& use) {
  if (!spec.provenance.present)
    return fmt::format(
        "assumed figures this prediction rests on: not stated ({} has no "
        "[provenance] table)",
        spec.file);
  const std::vector<std::string> keys = assumed_figures(spec, use);
  return fmt::format("assumed figures this prediction rests on ({} [provenance]): {}", spec.file,
                     keys.empty() ? std::string("none") : fmt::format("{}", fmt::join(keys, ", ")));
}

}  // namespace hplx::model
