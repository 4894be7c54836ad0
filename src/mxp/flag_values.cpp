#include "mxp/flag_values.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"

namespace hplx::mxp {

ValidationMode parse_validation_mode(const std::string& s) {
  if (s == "standard") return ValidationMode::Standard;
  if (s == "fullscale") return ValidationMode::Fullscale;
  throw UsageError(fmt::format("--validation {}: allowed: standard, fullscale", s));
}

const char* to_string(ValidationMode m) {
  return m == ValidationMode::Standard ? "standard" : "fullscale";
}

Precision parse_precision(const std::string& s) {
  if (s == "mixed") return Precision::Mixed;
  if (s == "double") return Precision::Double;
  throw UsageError(fmt::format("--precision {}: allowed: mixed, double", s));
}

const char* to_string(Precision p) {
  return p == Precision::Mixed ? "mixed" : "double";
}

Smoother parse_smoother(const std::string& s) {
  if (s == "multicolor") return Smoother::Multicolor;
  if (s == "lexicographic") return Smoother::Lexicographic;
  throw UsageError("--smoother " + s + ": allowed: multicolor, lexicographic");
}

const char* to_string(Smoother s) {
  return s == Smoother::Lexicographic ? "lexicographic" : "multicolor";
}

bool parse_graphs(const std::string& s) {
  if (s == "on") return true;
  if (s == "off") return false;
  throw UsageError("--graphs " + s + ": allowed: on, off");
}

bool parse_cgs2(const std::string& s) {
  if (s == "fused") return true;
  if (s == "gemv") return false;
  throw UsageError("--cgs2 " + s + ": allowed: gemv, fused");
}

const char* cgs2_name(bool fused) {
  return fused ? "fused" : "gemv";
}

void check_config(const MxpConfig& c, int world_size) {
  check_local_dims(c.nx, c.ny, c.nz);
  if (c.shape.npx != 0 || c.shape.npy != 0 || c.shape.npz != 0)
    check_process_shape(c.shape, world_size);
  if (!(c.time >= 0) || !std::isfinite(c.time))
    throw UsageError(fmt::format("--time {}: allowed: seconds >= 0", c.time));
  if (c.restart < 1 || c.restart > 1000)
    throw UsageError(fmt::format("--restart {}: allowed: 1 to 1000", c.restart));
  if (c.bench_iters < 1)
    throw UsageError(fmt::format("--iterations {}: allowed: at least 1", c.bench_iters));
}

double bytes_per_rank(const MxpConfig& c) {
  const double rows = double(c.nx) * c.ny * c.nz;
  // Levels: 1 + 1/8 + 1/64 + 1/512 of the rows; per row 27 indices, 27
  // double and 27 float values; one Krylov basis of restart + 1 double
  // vectors (the double solver's; the float one is half) and about 16
  // further vectors of both precisions.
  const double level_rows = rows * (1 + 1 / 8.0 + 1 / 64.0 + 1 / 512.0);
  return level_rows * 27 * (4 + 8 + 4) + rows * (c.restart + 1) * 8.0 + rows * 16 * 12.0;
}

void check_memory(const MxpConfig& c, long long available_per_rank) {
  const double need = bytes_per_rank(c);
  if (available_per_rank > 0 && need > 0.8 * double(available_per_rank)) {
    throw UsageError(fmt::format(
        "--nx {} --ny {} --nz {}: needs about {:.1f} GiB per rank, only {:.1f} GiB available per "
        "rank (limit 80%); allowed: a smaller local grid",
        c.nx, c.ny, c.nz, need / (1 << 30), double(available_per_rank) / (1 << 30)));
  }
}

int largest_fitting_cube(const MxpConfig& c, long long available_per_rank, double fraction) {
  MxpConfig cube = c;
  int best = 0;
  for (int n = kSizeMultiple; n <= 1024; n += kSizeMultiple) {
    cube.nx = cube.ny = cube.nz = n;
    if (bytes_per_rank(cube) > fraction * static_cast<double>(available_per_rank)) break;
    best = n;
  }
  return best;
}

void check_bandwidth_gbs(double bandwidth_gbs) {
  if (!std::isfinite(bandwidth_gbs) || bandwidth_gbs <= 0 || bandwidth_gbs > 1e6)
    throw UsageError(fmt::format(
        "--expect-bandwidth {}: allowed: a device memory bandwidth in GB/s, finite, in (0, 1e6] "
        "(e.g. 3350 for an H100 SXM)",
        bandwidth_gbs));
}

}  // namespace hplx::mxp
