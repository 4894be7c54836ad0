// `hplx hpl-mxp`: HPL-MxP, the TOP500's mixed-precision dense LU benchmark
// (FP32 LU without pivoting, GMRES-IR in FP64). Not `hplx mxp`, which is
// HPG-MxP, the sparse multigrid benchmark.
#pragma once

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "checkpoint_flags.hpp"
#include "device/backend_kind.hpp"
#include "hplmxp/hpl_mxp.hpp"

namespace hplx::app {

struct MxpInput;

class HplMxpCommand {
 public:
  explicit HplMxpCommand(CLI::App& parent);
  bool chosen() const { return sub_->parsed(); }
  int run(MPI_Comm world, const std::vector<std::string>& argv);

 private:
  // The flags into config_ (grid, mapping, broadcast, precision, panel
  // solve, NB on cuda); the backend they name.
  device::BackendKind settle_flags();
  std::string input_file() const;
  MxpInput read_tests(const std::string& file, MPI_Comm world, int size);

  CLI::App* sub_;
  hplmxp::HplMxpConfig config_;
  std::string file_, dat_;  // an HPL.dat, as the argument or --dat
  std::optional<long> n_;
  std::optional<std::string> grid_;
  std::optional<std::string> pmap_;
  std::optional<std::string> bcast_;
  std::optional<std::string> backend_, precision_, panel_solve_;
  std::optional<double> watchdog_;
  std::string trace_;
  CheckpointFlags checkpoint_;  // --checkpoint, --checkpoint-every, --resume
  std::string preflight_;       // --preflight off|on|strict; empty: on with more than one host
  double preflight_threshold_ = 0.10;
  int threads_ = 0;
  double seconds_ = 60.0;
  bool compare_hpl_ = false;
  bool quiet_ = false;
  std::string json_;
};

}  // namespace hplx::app
