#include "core/run_harness.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace hplx {
namespace {

int rank_of(MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  return rank;
}

}  // namespace

RunHarness::RunHarness(const Context& ctx, Options options)
    : options_(std::move(options)),
      root_(rank_of(ctx.world()) == 0),
      live_(options_.json_path, root_),
      trace_(!options_.trace_path.empty()),
      watchdog_(activity_, {.limit_s = options_.watchdog_s,
                            .record_path = options_.json_path,
                            .rank = rank_of(ctx.world()),
                            .command = options_.command}),
      ctx_(ctx) {
  trace_.set_activity(&activity_);
  ctx_.set_trace(&trace_);
  ctx_.set_activity(&activity_);
  if (root_ && !options_.quiet) ctx_.set_log(stderr);
}

bool RunHarness::begin_test(const ProcessGrid& grid, const std::string& label) {
  ++index_;
  activity_.set_idle(!grid.in_grid());
  if (grid.in_grid())
    activity_.begin_test(index_, options_.planned, label, peers_of(grid, ctx_.world()));
  return grid.in_grid();
}

void RunHarness::keep(const nlohmann::json& record, long done) {
  if (root_) live_.update(record, done, options_.planned);
}

int RunHarness::close(const nlohmann::json* record, long done, int status) {
  if (trace_.enabled()) {
    trace_.write(options_.trace_path, ctx_.world(),
                 {{"command", options_.command}, {"argv", options_.argv}});
    if (root_ && !options_.quiet)
      std::fprintf(stderr, "%s: trace written to %s (open it in ui.perfetto.dev)\n",
                   options_.say.c_str(), options_.trace_path.c_str());
  }
  if (root_ && record != nullptr) live_.finish(*record, done, options_.planned);
  // Waiting for the others (ranks outside the last grid sat it out).
  activity_.set_idle(true);
  HPLX_MPI_CHECK(MPI_Bcast(&status, 1, MPI_INT, 0, ctx_.world()));
  return status;
}

}  // namespace hplx
