// What this run's problem should rate on a device of a given memory
// bandwidth (`hplx mxp --expect-bandwidth GBS`): the number a first GPU run
// has to meet.
//
// Every HPG-MxP motif is bound by memory traffic, so each is expected to
// take the bytes it moves (the per-row byte model the run already counts,
// docs/MXP.md) over the bandwidth, one device per rank:
//   t_motif = bytes_motif (all ranks) / ranks / bandwidth.
// A phase's expected raw GFLOP/s is its model flops over the sum of its
// motifs' times, and the expected rating is the mixed phase's (the double
// phase's with --precision double) times this run's validation penalty
// (the penalty is a property of the algorithm and the problem, not of the
// device). Left out: halo messages, kernel launch latency and reductions'
// round trips, so a real device lands below this figure; the device check
// (bench/gpu/check.sh) compares each motif's measured GB/s with the
// measured bandwidth.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "mxp/benchmark.hpp"

namespace hplx::mxp {

struct MotifExpectation {
  const char* motif = "";
  double bytes = 0;    // all ranks, all timed solves
  double flops = 0;    // model, global; 0 for parts of MG
  double seconds = 0;  // expected
};

struct PhaseExpectation {
  Precision precision = Precision::Mixed;
  std::vector<MotifExpectation> motifs;  // SpMV, GS, Restriction, Prolongation, Ortho, VecUpdate
  double seconds = 0;                    // expected, sum of the motifs
  double measured_seconds = 0;           // the run's
  double gflops = 0;                     // expected raw
};

struct ExpectedRating {
  double bandwidth_Bps = 0;
  int ranks = 1;
  bool has_mixed = false;
  PhaseExpectation mixed, dbl;
  double penalty = 1;
  double rating = 0;  // expected GFLOP/s, penalized
  // Expected mixed over double, penalized (seed 002's figure of merit);
  // 0 with --precision double.
  double mixed_over_double = 0;
};

// Checks bandwidth_gbs as check_bandwidth_gbs (mxp/flag_values.hpp) does.
ExpectedRating expect_rating(const MxpResult& r, double bandwidth_gbs);

// Per motif: expected seconds and GB/s beside the run's; then the expected
// raw and penalized ratings.
void print_expected(const ExpectedRating& e, const MxpResult& r, std::FILE* out);

nlohmann::json to_json(const ExpectedRating& e);

}  // namespace hplx::mxp
