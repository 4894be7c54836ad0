// hplx mxp's values from the command line, checked before anything is
// allocated: the configuration, the named choices (--validation,
// --precision, --smoother) and the bounds on sizes, memory and the
// expected bandwidth. Kept apart from the solver so that the unit tests and
// the fuzz target (fuzz/fuzz_mxp_flags.cpp) link only this file and
// geometry.cpp; every refusal is a one-line UsageError naming the value
// and what is allowed.
#pragma once

#include <string>

#include "mxp/geometry.hpp"

namespace hplx::mxp {

enum class ValidationMode { Standard, Fullscale };
enum class Precision { Mixed, Double };
// multicolor: the 8-color parallel sweep (default); lexicographic: the
// reference's sequential forward sweep in natural order on every rank.
enum class Smoother { Multicolor, Lexicographic };

// "standard" / "fullscale"; throws UsageError naming the value otherwise.
ValidationMode parse_validation_mode(const std::string& s);
const char* to_string(ValidationMode m);
// "mixed" / "double".
Precision parse_precision(const std::string& s);
const char* to_string(Precision p);
// "multicolor" / "lexicographic".
Smoother parse_smoother(const std::string& s);
const char* to_string(Smoother s);

// How the solver runs its kernels; neither changes the method.
// graphs: V-cycles captured once and replayed where the device can
// (Multigrid; --graphs on|off, default on). fused_cgs2: CGS2 with three
// reads of Q instead of two GEMVs per pass (Cgs2; --cgs2 fused|gemv,
// default gemv: faster on the CPU, untuned on a GPU).
struct SolverKernels {
  bool graphs = true;
  bool fused_cgs2 = false;
};
// "on" / "off" for --graphs; "gemv" / "fused" for --cgs2.
bool parse_graphs(const std::string& s);
bool parse_cgs2(const std::string& s);
const char* cgs2_name(bool fused);

struct MxpConfig {
  int nx = 64, ny = 64, nz = 64;
  double time = 60;  // seconds each timed phase fills
  int restart = 30;
  long bench_iters = 300;  // inner iterations per benchmark solve
  ValidationMode validation = ValidationMode::Standard;
  Precision precision = Precision::Mixed;
  ProcessShape shape{0, 0, 0};  // all zero: HPCG's choice
  bool nonsymmetric = false;
  Smoother smoother = Smoother::Multicolor;
  SolverKernels kernels;
  long validation_max_iters = 10000;
  double tolerance = 1e-9;
};

// Throws UsageError for a bad value (before anything is allocated).
void check_config(const MxpConfig& c, int world_size);

// Bytes one rank needs at most (matrices of all levels in double and float
// with shared indices, the larger Krylov basis, vectors), an estimate.
double bytes_per_rank(const MxpConfig& c);

// Throws UsageError naming the sizes if bytes_per_rank exceeds
// `available_per_rank` (the smallest over the ranks).
void check_memory(const MxpConfig& c, long long available_per_rank);

// The fraction of a GPU's memory a default-sized run fills: HPG-MxP's own
// rule for full runs (about 70%).
inline constexpr double kDeviceMemoryFraction = 0.7;

// The largest cube of n^3 local points (n a multiple of kSizeMultiple, at
// most 1024) whose bytes_per_rank, with c's other settings, fit `fraction`
// of `available_per_rank`; 0 if not even the smallest does.
int largest_fitting_cube(const MxpConfig& c, long long available_per_rank,
                         double fraction = kDeviceMemoryFraction);

// --expect-bandwidth: throws UsageError naming the value unless it is
// finite and positive.
void check_bandwidth_gbs(double bandwidth_gbs);

}  // namespace hplx::mxp
