// TOML system specs: parse_system_spec as `hplx model SPEC.toml` and
// `hplx lu --predict SPEC` read them, then the rates the models derive and
// `hplx sim`'s SimGrid platform for a few rank counts.
#include <cmath>

#include "core/error.hpp"
#include "fuzz_check.hpp"
#include "model/sim_platform.hpp"
#include "model/system_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = fuzz_text(data, size);
  hplx::model::SystemSpec spec;
  try {
    spec = hplx::model::parse_system_spec(text, "fuzz/spec.toml");
  } catch (const hplx::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).find("fuzz/spec.toml") != std::string::npos);
    return 0;
  }
  FUZZ_CHECK(spec.node.devices >= 1);
  FUZZ_CHECK(std::isfinite(spec.rpeak_flops()) && spec.rpeak_flops() >= 0);
  for (int threads : {0, 1, 2, 7, 1 << 20}) {
    (void)spec.gamma_s(threads);
    (void)spec.trsm_s_per_flop(threads);
    (void)spec.swap_s_per_word(threads);
    (void)spec.update_s_per_flop(threads);
  }
  (void)spec.network.beta_s();
  (void)spec.node.link.beta_s();
  for (int ranks : {1, 7, 1000}) {
    try {
      const hplx::model::SimPlatform p = hplx::model::sim_platform(spec, ranks);
      FUZZ_CHECK(p.nodes >= 1 && p.hosts >= p.nodes && !p.hostfile.empty());
    } catch (const hplx::UsageError& e) {
      FUZZ_CHECK(std::string(e.what()).find("fuzz/spec.toml") != std::string::npos);
    }
  }
  return 0;
}
