#include "mxp/expected_rating.hpp"

#include <fmt/format.h>
#include <cmath>

#include "core/error.hpp"

namespace hplx::mxp {
namespace {

PhaseExpectation expect_phase(const PhaseResult& ph, double bandwidth_Bps, int ranks) {
  const MotifStats& s = ph.stats;
  PhaseExpectation e;
  e.precision = ph.precision;
  e.measured_seconds = ph.seconds;
  e.motifs = {
      {"SpMV", s.bytes_spmv, s.flops_spmv},    {"GS", s.bytes_gs, 0},
      {"Restriction", s.bytes_restriction, 0}, {"Prolongation", s.bytes_prolongation, 0},
      {"Ortho", s.bytes_ortho, s.flops_ortho}, {"VecUpdate", s.bytes_vector, s.flops_vector}};
  for (MotifExpectation& m : e.motifs) {
    m.seconds = m.bytes / ranks / bandwidth_Bps;
    e.seconds += m.seconds;
  }
  // MG's flops are counted for the whole preconditioner, not per part.
  e.motifs[1].flops = s.flops_mg;
  e.gflops = e.seconds > 0 ? s.flops_total() / e.seconds / 1e9 : 0;
  return e;
}

double measured_seconds(const MotifStats& s, const char* motif) {
  const std::string m = motif;
  if (m == "SpMV") return s.spmv;
  if (m == "GS") return s.gs;
  if (m == "Restriction") return s.restriction;
  if (m == "Prolongation") return s.prolongation;
  if (m == "Ortho") return s.ortho;
  return s.vector;
}

}  // namespace

ExpectedRating expect_rating(const MxpResult& r, double bandwidth_gbs) {
  check_bandwidth_gbs(bandwidth_gbs);
  ExpectedRating e;
  e.bandwidth_Bps = bandwidth_gbs * 1e9;
  e.ranks = r.geom.size > 0 ? r.geom.size : 1;
  e.has_mixed = r.has_mixed;
  e.dbl = expect_phase(r.dbl, e.bandwidth_Bps, e.ranks);
  if (r.has_mixed) e.mixed = expect_phase(r.mixed, e.bandwidth_Bps, e.ranks);
  e.penalty = r.has_mixed ? r.validation.penalty : 1.0;
  const double raw = r.has_mixed ? e.mixed.gflops : e.dbl.gflops;
  e.rating = raw * e.penalty;
  if (r.has_mixed && e.dbl.gflops > 0) e.mixed_over_double = e.rating / e.dbl.gflops;
  return e;
}

void print_expected(const ExpectedRating& e, const MxpResult& r, std::FILE* out) {
  std::fprintf(out,
               "\nhplx expected at %.0f GB/s per rank (bytes / bandwidth, one device per rank; "
               "halo messages and launch latency not counted):\n",
               e.bandwidth_Bps / 1e9);
  std::fprintf(out, "  %-8s %-14s %12s %12s %12s\n", "phase", "motif", "GB/rank", "expected_s",
               "this_run_s");
  auto rows = [&](const PhaseExpectation& ph, const MotifStats& s) {
    const char* name = to_string(ph.precision);
    for (const MotifExpectation& m : ph.motifs)
      std::fprintf(out, "  %-8s %-14s %12.4f %12.6f %12.6f\n", name, m.motif,
                   m.bytes / e.ranks / 1e9, m.seconds, measured_seconds(s, m.motif));
    std::fprintf(out, "  %-8s %-14s %12s %12.6f %12.6f\n", name, "Total", "", ph.seconds,
                 ph.measured_seconds);
  };
  if (e.has_mixed) rows(e.mixed, r.mixed.stats);
  rows(e.dbl, r.dbl.stats);
  if (e.has_mixed)
    std::fprintf(out,
                 "  expected raw GFLOP/s: mixed %.6g, double %.6g; penalty %.4f (this run's "
                 "validation); mixed / double penalized %.3f\n",
                 e.mixed.gflops, e.dbl.gflops, e.penalty, e.mixed_over_double);
  else
    std::fprintf(out, "  expected raw GFLOP/s: double %.6g\n", e.dbl.gflops);
  std::fprintf(out, "  expected rating: %.6g GFLOP/s (this run: %.6g)\n\n", e.rating, r.rating);
  std::fflush(out);
}

nlohmann::json to_json(const ExpectedRating& e) {
  using nlohmann::json;
  auto phase = [&](const PhaseExpectation& ph) {
    json motifs = json::object();
    for (const MotifExpectation& m : ph.motifs)
      motifs[m.motif] = {{"bytes_per_rank", m.bytes / e.ranks}, {"seconds", m.seconds}};
    return json{{"seconds", ph.seconds}, {"gflops", ph.gflops}, {"motifs", motifs}};
  };
  json j{{"bandwidth_gbs", e.bandwidth_Bps / 1e9},
         {"ranks", e.ranks},
         {"double", phase(e.dbl)},
         {"penalty", e.penalty},
         {"rating_gflops", e.rating},
         {"model",
          "each motif moves its modelled bytes at the bandwidth, one device per rank; halo "
          "messages and launch latency not counted"}};
  if (e.has_mixed) {
    j["mixed"] = phase(e.mixed);
    j["mixed_over_double_penalized"] = e.mixed_over_double;
  }
  return j;
}

}  // namespace hplx::mxp
