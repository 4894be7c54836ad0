// `hplx lu`: HPL from an HPL.dat, from flags, or with the embedded default.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "checkpoint_flags.hpp"
#include "device/backend_kind.hpp"
#include "lu/run/hpl_run.hpp"
#include "lu_flags.hpp"

namespace hplx::device {
class Device;
struct DeviceMpi;
}  // namespace hplx::device
namespace hplx::lu {
struct HplDat;
struct RunOptions;
}  // namespace hplx::lu

namespace hplx::app {

class LuCommand {
 public:
  explicit LuCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  void add_fact_options();
  void add_schedule_options();
  void add_output_options();
  device::BackendKind backend() const;
  lu::RunOptions run_options(MPI_Comm world, const std::vector<std::string>& argv,
                             device::BackendKind kind) const;
  std::string fact_place(device::BackendKind backend) const;
  lu::HplDat tests(MPI_Comm world, device::BackendKind backend, long long per_rank,
                   std::vector<std::string>& notes) const;
  void set_schedule(lu::HplDat& dat, device::BackendKind kind, const std::string& fact_on,
                    const device::DeviceMpi& device_mpi, device::Device& dev,
                    std::vector<std::string>& notes) const;
  // Refuses options the chosen schedule ignores (only those given).
  void refuse_ignored_options() const;
  // The value given to option `name`, as typed.
  std::string given(const std::string& name) const;

  CLI::App* sub_;
  std::string file_;
  LuTestFlags test_;  // --n, --nb, --grid, ...: one test without an HPL.dat
  std::string fact_overlap_ = "on";
  std::string swap_pipeline_ = "off";
  int fact_threads_ = 1;
  long fact_device_gemm_ = 0;
  std::string fact_on_;                  // --fact-on; empty: by backend
  std::string fact_leaf_ = "fused";      // --fact-leaf
  int fact_blocks_ = 32;                 // --fact-blocks
  int update_sms_ = 0;                   // --update-sms
  long update_sms_below_ = 0;            // --update-sms-below
  std::string cuda_aware_mpi_ = "auto";  // --cuda-aware-mpi
  double swap_first_ = 0.125;
  double swap_growth_ = 2.0;
  double split_ = 0.0;
  std::string long_swap_ = "modified";
  std::string core_sharing_ = "off";
  std::string bcast_pipeline_ = "off";
  std::string schedule_ = "bsp";
  std::string dag_priorities_ = "on";
  long dag_group_columns_ = 512;
  std::string dag_early_swap_ = "on";
  std::string trace_;
  std::optional<std::string> predict_;  // --predict [FILE]
  std::string rpeak_;                   // --rpeak GFLOPS|SPEC
  int threads_ = 0;
  double seconds_ = 60.0;
  std::optional<double> watchdog_;  // unset: automatic
  std::string preflight_;           // --preflight off|on|strict; empty: on with more than one host
  double preflight_threshold_ = 0.10;
  CheckpointFlags checkpoint_;  // --checkpoint, --checkpoint-every, --resume
  std::string json_;
  std::string backend_;
  bool quiet_ = false;
};

}  // namespace hplx::app
