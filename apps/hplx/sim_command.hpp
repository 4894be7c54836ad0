// `hplx sim SPEC [HPL.dat | lu test flags]`: hplx lu's run on a simulated
// cluster (docs/SIM.md). The spec (the same TOML `hplx model` reads) gives
// the SimGrid platform (model/sim_platform.hpp) and the ranks' kernel
// models (sim_setup.hpp); the ranks are hplx's own LU driver on the sim
// backend, built against SimGrid's SMPI (libexec/hplx/hplx-sim-rank) and
// started here under smpirun. Prints the netlib report with simulated
// times; --json writes the record, with the analytic model's prediction of
// each test beside it for `hplx report`.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "lu_flags.hpp"

namespace hplx::device {
struct SimModel;
}
namespace hplx::lu {
struct HplDat;
}
namespace hplx::model {
struct SystemSpec;
}

namespace hplx::app {

class SimCommand {
 public:
  explicit SimCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  lu::HplDat tests(const model::SystemSpec& spec, std::vector<std::string>& notes);
  void check_gpu_options(const device::SimModel& kernels) const;
  std::vector<std::string> smpirun_args(const std::string& smpirun, const std::string& rank,
                                        const std::string& dir, int ranks, std::size_t block) const;

  CLI::App* sub_;
  std::string spec_, file_, json_, trace_, keep_;
  LuTestFlags test_;
  int threads_ = 0;
  int nodes_ = 0;
  double split_ = 0;
  std::string fact_on_ = "host";
  std::string fact_overlap_ = "on";
  int update_sms_ = 0;             // --update-sms
  long update_sms_below_ = 0;      // --update-sms-below
  std::string preflight_ = "off";  // --preflight
  bool quiet_ = false;
};

}  // namespace hplx::app
