// `hplx lu`'s checkpoints in a run (lu/checkpoint/): the options, one
// test's checkpointer, what the record and the lines after the result say
// about them, and the solution's fingerprint that shows a resumed run
// gave the same answer as an uninterrupted one.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "lu/checkpoint/checkpointer.hpp"
#include "lu/checkpoint/resume.hpp"
#include "lu/local_matrix.hpp"

namespace hplx::lu {

struct CheckpointOptions {
  std::string dir;                     // --checkpoint DIR ("" = none)
  double every_s = 1800;               // --checkpoint-every
  Manifest identity;                   // build, version, ranks, backend (run_identity)
  std::optional<ResumeSource> resume;  // --resume: the checkpoint chosen
};

// What a test's record says about its checkpoints and its segments.
struct TestSegments {
  std::vector<Segment> segments;  // a resumed test's, this run's last
  std::string resumed_from;       // the manifest's path ("" = not resumed)
  long resumed_column = 0;
  std::vector<CheckpointCost> checkpoints;
};

// The test `index`'s checkpointer (null without --checkpoint), going on
// from `from` (may be null). Collective over `comm`.
std::unique_ptr<Checkpointer> make_checkpointer(const CheckpointOptions& o, long index,
                                                const nlohmann::json& test,
                                                const ResumeSource* from, device::Device& dev,
                                                const CheckpointMatrix& a, MPI_Comm comm,
                                                double t0);

// The checkpoint test `index` goes on from, or null.
const ResumeSource* resume_source(const CheckpointOptions& o, long index);

// A resumed test's segments: the checkpoint's, and this run's from its
// column to `n` in `seconds`; the seconds the earlier ones count.
TestSegments resumed_segments(const ResumeSource& from, long n, double seconds);

nlohmann::json to_json(const TestSegments& s);
// The lines after a test's result (rank 0): the resume and the checkpoints.
void print_segments(const TestSegments& s, long n);

// The solution's XXH3-64 over every rank's part of x in rank order, on
// every rank of `comm`. Collective.
std::uint64_t solution_checksum(const std::vector<double>& x, MPI_Comm comm);

}  // namespace hplx::lu
