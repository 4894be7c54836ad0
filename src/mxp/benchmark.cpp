#include "mxp/benchmark.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "mxp/gmres_ir.hpp"
#include "mxp/problem.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

namespace {

template <class T>
PhaseResult run_phase(device::Device& dev, const MxpConfig& c, const Problem& p, MPI_Comm comm,
                      std::FILE* progress, TraceRecorder* trace) {
  PhaseResult ph;
  ph.precision = std::is_same_v<T, float> ? Precision::Mixed : Precision::Double;
  ph.iterations = c.bench_iters;
  GmresIr<T> solver(dev, p, c.restart, comm);
  solver.use(c.kernels);
  GmresOptions go;
  go.restart = c.restart;
  go.max_iters = c.bench_iters;
  go.tolerance = 0.0;
  device::Queue& q = dev.compute();
  device::Buffer<double> x = dev.alloc<double>(p.rows());
  fill(q, p.rows(), 0.0, x.data());

  double t0 = wall_time();
  solver.solve(p.b.data(), x.data(), go, nullptr);
  double cal = wall_time() - t0;
  const char* name = std::is_same_v<T, float> ? "mixed" : "double";
  if (trace) trace->span(fmt::format("calibration solve ({})", name).c_str(), 0, t0, t0 + cal);
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &cal, 1, MPI_DOUBLE, MPI_MAX, comm));
  ph.calibration_s = cal;
  ph.calls = std::max(1L, static_cast<long>(std::ceil(c.time / cal)));
  ph.graphs = solver.multigrid().replays(nullptr);
  if (progress) {
    std::fprintf(progress,
                 "hplx mxp: %s phase: calibration solve %.3f s (%ld iterations) -> %ld timed "
                 "solves for %.1f s; V-cycles %s\n",
                 to_string(ph.precision), cal, c.bench_iters, ph.calls, c.time,
                 ph.graphs ? "replayed as graphs" : "launched directly");
    std::fflush(progress);
  }
  HPLX_MPI_CHECK(MPI_Barrier(comm));
  t0 = wall_time();
  GmresResult last;
  for (long k = 0; k < ph.calls; ++k) {
    fill(q, p.rows(), 0.0, x.data());
    ph.stats.trace = k == 0 ? trace : nullptr;  // every kernel of the first solve only
    last = solver.solve(p.b.data(), x.data(), go, &ph.stats);
  }
  q.synchronize();
  ph.stats.trace = nullptr;
  double dt = wall_time() - t0;
  if (trace) trace->span(fmt::format("timed solves ({})", name).c_str(), 0, t0, t0 + dt);
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm));
  ph.seconds = dt;
  ph.final_relres = last.normr0 > 0 ? last.normr / last.normr0 : 0;
  double* bytes[] = {&ph.stats.bytes_spmv,        &ph.stats.bytes_gs,
                     &ph.stats.bytes_restriction, &ph.stats.bytes_prolongation,
                     &ph.stats.bytes_ortho,       &ph.stats.bytes_vector};
  for (double* b : bytes)
    HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_DOUBLE, MPI_SUM, comm));
  return ph;
}

}  // namespace

MxpResult run_mxp(const Context& ctx, const MxpConfig& c) {
  std::FILE* progress = ctx.log();
  TraceRecorder* const trace = ctx.trace();
  const MPI_Comm world = ctx.world();
  device::Device& dev = ctx.device();
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  check_config(c, size);
  MxpResult r;
  r.config = c;
  r.threads = ctx.threads().threads_per_rank;
  r.backend = device::name_of(dev.kind());
  r.backend_description = dev.backend().describe();
  r.geom = make_geometry(rank, size, c.nx, c.ny, c.nz, c.shape);
  if (progress) {
    std::fprintf(progress,
                 "hplx mxp: %d ranks as %d x %d x %d, local %d x %d x %d, global %ld x %ld x %ld, "
                 "restart %d, %s precision, %s Gauss-Seidel\n",
                 size, r.geom.npx, r.geom.npy, r.geom.npz, c.nx, c.ny, c.nz, r.geom.gnx, r.geom.gny,
                 r.geom.gnz, c.restart, to_string(c.precision), to_string(c.smoother));
    std::fflush(progress);
  }

  double t0 = wall_time();
  ProblemOptions po;
  po.nonsymmetric = c.nonsymmetric;
  po.smoother = c.smoother;
  auto problem = std::make_unique<Problem>(generate_problem(dev, r.geom, po, world));
  for (const Level& lv : problem->levels)
    r.levels.push_back({lv.geom.global_rows(), lv.a.global_nnz});
  r.nnz_mg = problem->nnz_mg;
  r.setup_s = wall_time() - t0;
  if (trace) {
    trace->set_track_name(kTraceKernels, "kernels");
    trace->set_track_name(kTraceHalo, "halo messages");
    trace->span("setup", kTraceKernels, t0, t0 + r.setup_s);
  }

  ValidationOptions vo;
  vo.mode = c.validation;
  vo.precision = c.precision;
  vo.tolerance = c.tolerance;
  vo.max_iters = c.validation_max_iters;
  vo.restart = c.restart;
  vo.problem = po;
  vo.kernels = c.kernels;
  t0 = wall_time();
  r.validation = run_validation(dev, vo, r.geom, problem.get(), world);
  if (trace) trace->span("validation", kTraceKernels, t0, wall_time());
  if (progress) {
    const auto& v = r.validation;
    std::fprintf(progress,
                 "hplx mxp: validation (%s, %d of %d ranks as %d x %d x %d): double GMRES %ld "
                 "iterations (%s), %s %ld (%s); penalty %.4f; %.1f s\n",
                 to_string(v.mode), v.ranks, size, v.npx, v.npy, v.npz, v.n_double,
                 v.double_converged ? "converged" : "not converged",
                 c.precision == Precision::Mixed ? "GMRES-IR" : "double GMRES", v.n_mixed,
                 v.mixed_converged ? "converged" : "not converged", v.penalty, v.seconds);
    std::fflush(progress);
  }

  if (c.precision == Precision::Mixed) {
    r.has_mixed = true;
    r.mixed = run_phase<float>(dev, c, *problem, world, progress, trace);
  }
  r.dbl = run_phase<double>(dev, c, *problem, world, progress, trace);
  r.valid = r.validation.valid;
  const double raw = r.has_mixed ? r.mixed.gflops() : r.dbl.gflops();
  r.rating = r.valid ? raw * r.validation.penalty : 0.0;
  return r;
}

namespace {

std::string num(double v) {
  return fmt::format("{:.6g}", v);
}

// Writes "key: value" at its indentation to `out` and, when `flat` is set,
// the reference's report-file form "Section::Key=value" to `flat`.
struct Sink {
  std::FILE* out;
  std::FILE* flat;
  std::vector<std::string> path;
};

void key(Sink& sink, int indent, const std::string& k, const std::string& v) {
  std::fprintf(sink.out, "%*s%s: %s\n", indent, "", k.c_str(), v.c_str());
  if (!sink.flat) return;
  sink.path.resize(indent / 2);
  std::string full;
  for (const auto& p : sink.path) full += p + "::";
  std::fprintf(sink.flat, "%s%s=%s\n", full.c_str(), k.c_str(), v.c_str());
  sink.path.push_back(k);
}

double safe_div(double a, double b) {
  return b > 0 ? a / b : 0;
}

// Writes the machine summary and the global, process and local grid dimensions.
void print_dimensions(Sink& sink, const MxpResult& r) {
  const MxpConfig& c = r.config;
  key(sink, 0, "Machine Summary", "");
  key(sink, 2, "Distributed Processes", std::to_string(r.geom.size));
  key(sink, 2, "Threads per processes", std::to_string(r.threads));
  key(sink, 0, "Global Problem Dimensions", "");
  key(sink, 2, "Global nx", std::to_string(r.geom.gnx));
  key(sink, 2, "Global ny", std::to_string(r.geom.gny));
  key(sink, 2, "Global nz", std::to_string(r.geom.gnz));
  key(sink, 0, "Processor Dimensions", "");
  key(sink, 2, "npx", std::to_string(r.geom.npx));
  key(sink, 2, "npy", std::to_string(r.geom.npy));
  key(sink, 2, "npz", std::to_string(r.geom.npz));
  key(sink, 0, "Local Domain Dimensions", "");
  key(sink, 2, "nx", std::to_string(c.nx));
  key(sink, 2, "ny", std::to_string(c.ny));
  key(sink, 2, "nz", std::to_string(c.nz));
}

// Writes the problem summary: setup time, the fine linear system and every
// coarse multigrid level.
void print_problem_summary(Sink& sink, const MxpResult& r) {
  const MxpConfig& c = r.config;
  key(sink, 0, "########## Problem Summary  ##########", "");
  key(sink, 0, "Setup Information", "");
  key(sink, 2, "Setup Time", num(r.setup_s));
  key(sink, 0, "Linear System Information", "");
  key(sink, 2, "Number of Equations", std::to_string(r.levels[0].rows));
  key(sink, 2, "Number of Nonzero Terms", std::to_string(r.levels[0].nnz));
  key(sink, 2, "Matrix", c.nonsymmetric ? "nonsymmetric" : "symmetric");
  key(sink, 0, "Multigrid Information", "");
  key(sink, 2, "Number of coarse grid levels", std::to_string(r.levels.size() - 1));
  key(sink, 2, "Smoother", fmt::format("forward Gauss-Seidel, {}", to_string(c.smoother)));
  key(sink, 2, "Coarse Grids", "");
  for (size_t l = 1; l < r.levels.size(); ++l) {
    key(sink, 4, "Grid Level", std::to_string(l));
    key(sink, 4, "Number of Equations", std::to_string(r.levels[l].rows));
    key(sink, 4, "Number of Nonzero Terms", std::to_string(r.levels[l].nnz));
    key(sink, 4, "Number of Presmoother Steps", "1");
    key(sink, 4, "Number of Postsmoother Steps", "1");
  }
}

// Writes the validation run's iteration counts, residual norms and penalty.
void print_iterations_summary(Sink& sink, const MxpResult& r) {
  const MxpConfig& c = r.config;
  const auto& v = r.validation;
  key(sink, 0, "########## Iterations Summary  ##########", "");
  key(sink, 0, "Iteration Count Information", "");
  key(sink, 2, "Validation mode", to_string(v.mode));
  key(sink, 2, "Number of processes (validation)", std::to_string(v.ranks));
  key(sink, 2, "Restart length (validation)", std::to_string(c.restart));
  key(sink, 2, "Convergence tolerance (validation)", num(v.tol_double));
  key(sink, 2, "Convergence tolerance of optimized iterations (validation)", num(v.tol_mixed));
  key(sink, 2, "Number of reference iterations (validation)", std::to_string(v.n_double));
  key(sink, 2, "Initial residual norm of reference iterations (validation)", num(v.normr0_double));
  key(sink, 2, "Final residual norm of reference iterations (validation)", num(v.normr_double));
  key(sink, 2, "Number of optimized iterations (validation)", std::to_string(v.n_mixed));
  key(sink, 2, "Initial residual norm of optimized iterations (validation)", num(v.normr0_mixed));
  key(sink, 2, "Final residual norm of optimized iterations (validation)", num(v.normr_mixed));
  key(sink, 2, "Penalty (validation)", num(v.penalty));
}

// Writes the benchmark's call counts and motif times of the optimized phase
// and, when it ran mixed, of the double reference phase.
void print_time_summary(Sink& sink, const MxpResult& r, const PhaseResult& opt,
                        const PhaseResult& ref) {
  const MxpConfig& c = r.config;
  key(sink, 0, "########## Performance Summary (times in sec) ##########", "");
  key(sink, 0, "Benchmark Time Summary", "");
  key(sink, 2, "Run time requested (benchmark)", num(c.time));
  key(sink, 2, "Number of GMRES calls (benchmark)", std::to_string(opt.calls));
  key(sink, 2, "Mximum number of iterations (benchmark)", std::to_string(c.bench_iters));
  key(sink, 2, "Num SpMVs", std::to_string(opt.stats.spmv_calls));
  key(sink, 2, "Num MGs", std::to_string(opt.stats.mg_calls));
  key(sink, 2, "Ortho", num(opt.stats.ortho));
  key(sink, 2, "SpMV", num(opt.stats.spmv));
  key(sink, 2, "MG", num(opt.stats.mg));
  key(sink, 2, " SpTRSV", num(opt.stats.gs));
  key(sink, 2, " Restic", num(opt.stats.restriction));
  key(sink, 2, " Prlong", num(opt.stats.prolongation));
  key(sink, 2, "VecUpdate", num(opt.stats.vector));
  key(sink, 2, "Total", num(opt.seconds));
  if (r.has_mixed) {
    key(sink, 2, " - Num SpMVs  (reference)", std::to_string(ref.stats.spmv_calls));
    key(sink, 2, " - Num MGs    (reference)", std::to_string(ref.stats.mg_calls));
    key(sink, 2, " - Ortho   (reference)", num(ref.stats.ortho));
    key(sink, 2, " - SpMV    (reference)", num(ref.stats.spmv));
    key(sink, 2, " - MG      (reference)", num(ref.stats.mg));
    key(sink, 2, " - Total   (reference)", num(ref.seconds));
  }
}

// Writes the raw flop counts, bandwidth and GFLOP/s rates of the optimized
// phase (and the reference phase when it ran mixed), then the final rating.
void print_rate_summary(Sink& sink, const MxpResult& r, const PhaseResult& opt,
                        const PhaseResult& ref) {
  key(sink, 0, "Floating Point Operations Summary", "");
  key(sink, 2, "Raw Ortho", num(opt.stats.flops_ortho));
  key(sink, 2, "Raw SpMV", num(opt.stats.flops_spmv));
  key(sink, 2, "Raw MG", num(opt.stats.flops_mg));
  key(sink, 2, "Total", num(opt.stats.flops_total()));
  if (r.has_mixed) {
    key(sink, 2, " - Raw Ortho (reference)", num(ref.stats.flops_ortho));
    key(sink, 2, " - Raw SpMV  (reference)", num(ref.stats.flops_spmv));
    key(sink, 2, " - Raw MG    (reference)", num(ref.stats.flops_mg));
    key(sink, 2, " - Raw Total (reference)", num(ref.stats.flops_total()));
  }
  key(sink, 0, "GB/s Summary", "");
  key(sink, 2, "Raw Total B/W", num(safe_div(opt.stats.bytes_total(), opt.seconds) / 1e9));
  key(sink, 0, "GFLOP/s Summary", "");
  key(sink, 2, "Raw Orho", num(safe_div(opt.stats.flops_ortho, opt.stats.ortho) / 1e9));
  key(sink, 2, "Raw SpMV", num(safe_div(opt.stats.flops_spmv, opt.stats.spmv) / 1e9));
  key(sink, 2, "Raw MG", num(safe_div(opt.stats.flops_mg, opt.stats.mg) / 1e9));
  key(sink, 2, "Raw Total", num(opt.gflops()));
  if (r.has_mixed) {
    key(sink, 2, " - Raw Orho  (reference)",
        num(safe_div(ref.stats.flops_ortho, ref.stats.ortho) / 1e9));
    key(sink, 2, " - Raw SpMV  (reference)",
        num(safe_div(ref.stats.flops_spmv, ref.stats.spmv) / 1e9));
    key(sink, 2, " - Raw MG    (reference)", num(safe_div(ref.stats.flops_mg, ref.stats.mg) / 1e9));
    key(sink, 2, " - Raw Total (reference)", num(ref.gflops()));
  }
  key(sink, 2, "Total for benchmark", num(r.rating));
}

// Writes one phase's rows of the motif table: time, share, GFLOP/s and GB/s
// of each motif.
void print_motif_rows(std::FILE* out, const PhaseResult& ph) {
  const char* name = ph.precision == Precision::Mixed ? "mixed" : "double";
  const MotifStats& s = ph.stats;
  struct Row {
    const char* motif;
    double t, flops, bytes;
  } rows[] = {{"SpMV", s.spmv, s.flops_spmv, s.bytes_spmv},
              {"MG", s.mg, s.flops_mg, s.bytes_mg()},
              {" GS", s.gs, 0, s.bytes_gs},
              {" Restriction", s.restriction, 0, s.bytes_restriction},
              {" Prolongation", s.prolongation, 0, s.bytes_prolongation},
              {"Ortho", s.ortho, s.flops_ortho, s.bytes_ortho},
              {"VecUpdate", s.vector, s.flops_vector, s.bytes_vector},
              {"HaloWait", s.halo_wait, 0, 0},
              {"Total", s.total, s.flops_total(), s.bytes_total()}};
  for (const Row& row : rows) {
    std::fprintf(out, "  %-8s %-14s %10.4f %6.1f%% %9.3f %8.2f\n", name, row.motif, row.t,
                 100.0 * safe_div(row.t, s.total), safe_div(row.flops, row.t) / 1e9,
                 safe_div(row.bytes, row.t) / 1e9);
  }
}

// Writes hplx's own motif table (to `out` only, not to the flat report).
void print_motif_table(std::FILE* out, const MxpResult& r) {
  // Per motif: time share, GFLOP/s (model flops / motif time) and GB/s
  // (modelled bytes of all ranks / motif time).
  std::fprintf(out, "\nhplx motifs (timed solves; times of rank 0, bytes of all ranks):\n");
  std::fprintf(out, "  %-8s %-14s %10s %7s %9s %8s\n", "phase", "motif", "time_s", "share",
               "GFLOP/s", "GB/s");
  if (r.has_mixed) print_motif_rows(out, r.mixed);
  print_motif_rows(out, r.dbl);
  std::fprintf(out, "\n");
}

// Writes the verdict: the rating when valid, otherwise which solver failed.
void print_final_summary(Sink& sink, const MxpResult& r) {
  const auto& v = r.validation;
  key(sink, 0, "Final Summary", "");
  if (r.valid) {
    key(sink, 2, "HPGMP result is VALID with a GFLOP/s rating of", num(r.rating));
  } else {
    key(sink, 2, "HPGMP result is", "INVALID.");
    key(sink, 2, "Reason",
        v.double_converged || v.mode == ValidationMode::Fullscale
            ? "the optimized solver did not reach the validation tolerance"
            : "the reference solver did not reach the validation tolerance");
  }
}

}  // namespace

void print_report(const MxpResult& r, std::FILE* out, std::FILE* flat) {
  Sink sink{out, flat, {}};
  if (flat) std::fprintf(flat, "HPGMP-Benchmark\nversion=hplx %s\n", HPLX_VERSION);
  const PhaseResult& opt = r.has_mixed ? r.mixed : r.dbl;
  const PhaseResult& ref = r.dbl;
  key(sink, 0, "HPG-MxP Benchmark", fmt::format("hplx {}", HPLX_VERSION));
  print_dimensions(sink, r);
  print_problem_summary(sink, r);
  print_iterations_summary(sink, r);
  print_time_summary(sink, r, opt, ref);
  print_rate_summary(sink, r, opt, ref);
  print_motif_table(out, r);
  print_final_summary(sink, r);
  std::fflush(out);
}

nlohmann::json to_json(const MxpResult& r) {
  using nlohmann::json;
  const MxpConfig& c = r.config;
  const auto& v = r.validation;
  auto stats_json = [](const MotifStats& s) {
    return json{{"seconds",
                 {{"total", s.total},
                  {"spmv", s.spmv},
                  {"mg", s.mg},
                  {"gs", s.gs},
                  {"restriction", s.restriction},
                  {"prolongation", s.prolongation},
                  {"ortho", s.ortho},
                  {"vector", s.vector},
                  {"halo_wait", s.halo_wait}}},
                {"flops",
                 {{"spmv", s.flops_spmv},
                  {"mg", s.flops_mg},
                  {"ortho", s.flops_ortho},
                  {"vector", s.flops_vector},
                  {"total", s.flops_total()}}},
                {"bytes",
                 {{"spmv", s.bytes_spmv},
                  {"gs", s.bytes_gs},
                  {"restriction", s.bytes_restriction},
                  {"prolongation", s.bytes_prolongation},
                  {"ortho", s.bytes_ortho},
                  {"vector", s.bytes_vector},
                  {"total", s.bytes_total()}}},
                {"spmv_calls", s.spmv_calls},
                {"mg_calls", s.mg_calls}};
  };
  auto phase_json = [&](const PhaseResult& ph) {
    return json{{"precision", to_string(ph.precision)},
                {"calls", ph.calls},
                {"vcycle_graphs", ph.graphs},
                {"iterations_per_call", ph.iterations},
                {"calibration_seconds", ph.calibration_s},
                {"seconds", ph.seconds},
                {"gflops", ph.gflops()},
                {"gbytes_per_second", safe_div(ph.stats.bytes_total(), ph.seconds) / 1e9},
                {"final_relative_residual", ph.final_relres},
                {"motifs", stats_json(ph.stats)}};
  };
  json levels = json::array();
  for (const auto& l : r.levels) levels.push_back({{"rows", l.rows}, {"nnz", l.nnz}});
  json j{{"config",
          {{"nx", c.nx},
           {"ny", c.ny},
           {"nz", c.nz},
           {"time", c.time},
           {"restart", c.restart},
           {"iterations", c.bench_iters},
           {"validation", to_string(c.validation)},
           {"precision", to_string(c.precision)},
           {"nonsymmetric", c.nonsymmetric},
           {"smoother", to_string(c.smoother)},
           {"graphs", c.kernels.graphs},
           {"cgs2", cgs2_name(c.kernels.fused_cgs2)}}},
         {"ranks", r.geom.size},
         {"threads_per_rank", r.threads},
         {"backend", r.backend},
         {"backend_description", r.backend_description},
         {"process_grid", {r.geom.npx, r.geom.npy, r.geom.npz}},
         {"global_grid", {r.geom.gnx, r.geom.gny, r.geom.gnz}},
         {"levels", levels},
         {"nnz_mg", r.nnz_mg},
         {"setup_seconds", r.setup_s},
         {"validation",
          {{"mode", to_string(v.mode)},
           {"ranks", v.ranks},
           {"process_grid", {v.npx, v.npy, v.npz}},
           {"iterations_double", v.n_double},
           {"iterations_mixed", v.n_mixed},
           {"tolerance_double", v.tol_double},
           {"tolerance_mixed", v.tol_mixed},
           {"normr0_double", v.normr0_double},
           {"normr_double", v.normr_double},
           {"normr0_mixed", v.normr0_mixed},
           {"normr_mixed", v.normr_mixed},
           {"double_converged", v.double_converged},
           {"mixed_converged", v.mixed_converged},
           {"penalty", v.penalty},
           {"seconds", v.seconds}}},
         {"double", phase_json(r.dbl)},
         {"rating_gflops", r.rating},
         {"valid", r.valid}};
  if (r.has_mixed) j["mixed"] = phase_json(r.mixed);
  return j;
}

}  // namespace hplx::mxp
