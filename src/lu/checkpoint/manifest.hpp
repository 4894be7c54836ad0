// A checkpoint of `hplx lu` (--checkpoint DIR) on the disk, for the test
// T (its place in the run, from 1) at the panel of global column C:
//   DIR/checkpoint-T-C.json     the manifest, written by rank 0 last and
//                               atomically (a rename), after every rank
//                               said its files were written
//   DIR/rank-R/T-done-c0-c1.bin local columns [c0, c1) of world rank R,
//                               finished (left of the panel): written
//                               once, named again by later manifests
//   DIR/rank-R/T-trailing-C.bin its local columns from the panel on
//   DIR/rank-R/T-state-C.bin    its phase totals and iteration record
// A test's files are removed when it has finished.
// Each file's size and XXH3-64 checksum are in the manifest, with what the
// run must match to continue from it (build, ranks, backend, the test).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lu/checkpoint/checkpoint_files.hpp"

namespace hplx::lu {

inline constexpr int kCheckpointFormat = 1;

// One stretch of a run between a start (or resume) and a checkpoint: its
// columns and the solve's seconds it counts (the checkpoints' cost in).
struct Segment {
  long from_column = 0, to_column = 0;
  double seconds = 0;
};

struct Manifest {
  std::string build;              // the program's checksum (hex)
  std::string version;            // hplx's version, for the reader
  int ranks = 0;                  // the world's size
  std::string backend;            // the device backend's name
  long test_index = 0;            // which test of the run (0-based)
  nlohmann::json test;            // the test as the record writes it (N, NB, grid, options)
  long column = 0;                // the panel the factorization continues at
  long info = 0;                  // the zero pivot found so far (1 + column), or 0
  double seconds = 0;             // the solve's seconds counted so far (every segment)
  double checkpoint_seconds = 0;  // this checkpoint's cost (the slowest rank)
  std::vector<Segment> segments;
  std::vector<std::vector<FileDigest>> files;  // per rank: done..., trailing, state
};

nlohmann::json to_json(const Manifest& m);
nlohmann::json to_json(const std::vector<FileDigest>& files);
std::vector<FileDigest> files_from_json(const nlohmann::json& j);
// Throws std::exception (nlohmann's) on a manifest that is not one.
Manifest manifest_from_json(const nlohmann::json& j);

// The manifest's name (numbers zero-padded, so that names sort as tests
// and columns do) and a world rank's folder.
std::string manifest_name(long test_index, long column);
std::string rank_folder(int rank);

// Writes m as DIR/<manifest_name> through a temporary file and a rename:
// a reader sees the whole manifest or none.
void write_manifest(const std::string& dir, const Manifest& m);

// The manifests in DIR, newest (largest column) first: their paths.
std::vector<std::string> manifests_in(const std::string& dir);

}  // namespace hplx::lu
