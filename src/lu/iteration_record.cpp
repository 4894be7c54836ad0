#include "lu/iteration_record.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/error.hpp"

namespace hplx::lu {

void set_phases(IterationTimes& it, const PhaseTimes& before, const PhaseTimes& after) {
  it.fact = after.fact - before.fact;
  it.bcast = after.bcast - before.bcast;
  it.rs_copy = after.swap_copy - before.swap_copy;
  it.rs_comm = std::max(0.0, (after.swap - before.swap) - it.rs_copy);
  it.update = after.update - before.update;
  it.wait = after.wait - before.wait;
  it.bcast_hidden = after.bcast_hidden - before.bcast_hidden;
  it.rs_hidden = after.swap_hidden - before.swap_hidden;
}

namespace {

// The fields reduced with MAX, in one flat array per iteration.
constexpr int kFields = 16;

void pack(const IterationTimes& it, double* v) {
  const double fields[kFields] = {static_cast<double>(it.local_cols),
                                  it.fact,
                                  it.bcast,
                                  it.rs_comm,
                                  it.rs_copy,
                                  it.update,
                                  it.wait,
                                  it.bcast_hidden,
                                  it.rs_hidden,
                                  it.iter,
                                  it.elapsed,
                                  it.flops,
                                  it.device_update,
                                  it.device_swap,
                                  it.transfer,
                                  it.device_fact};
  std::copy(fields, fields + kFields, v);
}

void unpack(const double* v, IterationTimes& it) {
  it.local_cols = static_cast<long>(v[0]);
  it.fact = v[1];
  it.bcast = v[2];
  it.rs_comm = v[3];
  it.rs_copy = v[4];
  it.update = v[5];
  it.wait = v[6];
  it.bcast_hidden = v[7];
  it.rs_hidden = v[8];
  it.iter = v[9];
  it.elapsed = v[10];
  it.flops = v[11];
  it.device_update = v[12];
  it.device_swap = v[13];
  it.transfer = v[14];
  it.device_fact = v[15];
}

}  // namespace

std::vector<IterationTimes> max_on_root(const std::vector<IterationTimes>& mine, MPI_Comm comm) {
  int rank = 0;
  HPLX_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::vector<double> flat(mine.size() * kFields);
  for (std::size_t i = 0; i < mine.size(); ++i) pack(mine[i], &flat[i * kFields]);
  if (!flat.empty()) {
    const int count = static_cast<int>(flat.size());
    if (rank == 0)
      HPLX_MPI_CHECK(MPI_Reduce(MPI_IN_PLACE, flat.data(), count, MPI_DOUBLE, MPI_MAX, 0, comm));
    else
      HPLX_MPI_CHECK(MPI_Reduce(flat.data(), nullptr, count, MPI_DOUBLE, MPI_MAX, 0, comm));
  }
  if (rank != 0) return {};
  std::vector<IterationTimes> out = mine;
  for (std::size_t i = 0; i < out.size(); ++i) unpack(&flat[i * kFields], out[i]);
  return out;
}

std::optional<BalancePoint> find_balance_point(const std::vector<IterationTimes>& record, long n) {
  // From the record's JSON, as hplx report reads it: the line, the record
  // and the report cannot disagree on which times count.
  return balance_point_of_iterations(iterations_to_json(record, n), n);
}

nlohmann::json iterations_to_json(const std::vector<IterationTimes>& record, long n) {
  nlohmann::json out = nlohmann::json::array();
  double done = 0;
  const bool device = std::any_of(record.begin(), record.end(), [](const IterationTimes& it) {
    return it.device_update > 0 || it.device_swap > 0 || it.transfer > 0 || it.device_fact > 0;
  });
  for (const IterationTimes& it : record) {
    const double flops = it.flops;
    done += flops;
    out.push_back({{"k", it.k},
                   {"j", it.j},
                   {"jb", it.jb},
                   {"n_trailing", it.n_trailing},
                   {"local_cols", it.local_cols},
                   {"fact_s", it.fact},
                   {"bcast_s", it.bcast},
                   {"rs_comm_s", it.rs_comm},
                   {"rs_copy_s", it.rs_copy},
                   {"update_s", it.update},
                   {"wait_s", it.wait},
                   {"iter_s", it.iter},
                   {"bcast_hidden_s", it.bcast_hidden},
                   {"rs_hidden_s", it.rs_hidden},
                   {"flops", flops},
                   {"elapsed_s", it.elapsed},
                   {"gflops", it.elapsed > 0 ? done / it.elapsed / 1e9 : 0.0}});
    if (device) {
      out.back()["device_update_s"] = it.device_update;
      out.back()["device_swap_s"] = it.device_swap;
      out.back()["transfer_s"] = it.transfer;
      out.back()["device_fact_s"] = it.device_fact;
    }
  }
  return out;
}

std::string balance_point_sentence(const std::optional<BalancePoint>& b, long count) {
  char line[200];
  if (b)
    std::snprintf(line, sizeof line,
                  "balance point at iteration %ld of %ld (%.1f%% of the iterations, %.1f%% of the "
                  "flops before it)",
                  b->iteration, count, b->percent_iterations, b->percent_flops);
  else
    std::snprintf(line, sizeof line,
                  "no balance point: the update hid FACT + RS up to the last of %ld iterations",
                  count);
  return line;
}

nlohmann::json balance_point_json(const std::optional<BalancePoint>& b) {
  if (!b) return nullptr;
  return {{"iteration", b->iteration},
          {"percent_iterations", b->percent_iterations},
          {"percent_flops", b->percent_flops},
          {"definition", b->definition}};
}

}  // namespace hplx::lu
