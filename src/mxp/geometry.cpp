#include "mxp/geometry.hpp"

#include <fmt/format.h>

#include <limits>
#include <map>

#include "core/error.hpp"

namespace hplx::mxp {
namespace {

std::map<int, int> prime_factors(int n) {
  std::map<int, int> f;
  for (int d = 2; static_cast<long>(d) * d <= n; ++d) {
    while (n % d == 0) {
      ++f[d];
      n /= d;
    }
  }
  if (n > 1 || f.empty()) ++f[n];
  return f;
}

int ipow(int base, int e) {
  int v = 1;
  while (e-- > 0) v *= base;
  return v;
}

}  // namespace

ProcessShape optimal_process_shape(int ranks) {
  if (ranks < 1) throw UsageError(fmt::format("{} MPI ranks: allowed: at least 1", ranks));
  const auto f = prime_factors(ranks);
  auto it = f.begin();
  const int p = it->first, kp = it->second;
  if (f.size() == 1) {
    return {ipow(p, kp / 3 + (kp % 3 >= 1 ? 1 : 0)), ipow(p, kp / 3 + (kp % 3 >= 2 ? 1 : 0)),
            ipow(p, kp / 3)};
  }
  ++it;
  const int q = it->first, kq = it->second;
  if (f.size() == 2 && kp == 1 && kq == 1) return {p, q, 1};
  if (f.size() == 2 && kp + kq == 3) return {p, q, kp == 2 ? p : q};
  if (f.size() == 3 && kp == 1 && kq == 1 && std::next(it)->second == 1)
    return {p, q, std::next(it)->first};
  // General case: the least surface among all factorizations.
  ProcessShape best{ranks, 1, 1};
  double best_area = std::numeric_limits<double>::max();
  for (int x = 1; x <= ranks; ++x) {
    if (ranks % x) continue;
    for (int y = 1; y <= ranks / x; ++y) {
      if ((ranks / x) % y) continue;
      const int z = ranks / x / y;
      const double area = double(x) * y + double(y) * z + double(x) * z;
      if (area < best_area) {
        best_area = area;
        best = {x, y, z};
      }
    }
  }
  return best;
}

void check_local_dims(int nx, int ny, int nz) {
  const char* names[] = {"--nx", "--ny", "--nz"};
  const int values[] = {nx, ny, nz};
  for (int d = 0; d < 3; ++d) {
    if (values[d] < kSizeMultiple || values[d] % kSizeMultiple != 0) {
      throw UsageError(fmt::format(
          "{} {}: allowed: a positive multiple of {} (the local grid is halved {} times for the "
          "{}-level multigrid), e.g. {}",
          names[d], values[d], kSizeMultiple, kMgLevels - 1, kMgLevels,
          values[d] < kSizeMultiple ? kSizeMultiple : values[d] / kSizeMultiple * kSizeMultiple));
    }
    if (values[d] > 1024) {
      throw UsageError(
          fmt::format("{} {}: allowed: at most 1024 points per rank", names[d], values[d]));
    }
  }
}

void check_process_shape(const ProcessShape& s, int ranks) {
  if (s.npx < 1 || s.npy < 1 || s.npz < 1 || static_cast<long>(s.npx) * s.npy * s.npz != ranks) {
    throw UsageError(fmt::format(
        "process grid {} x {} x {} (--npx --npy --npz): allowed: positive numbers whose product is "
        "the number of MPI ranks, {}",
        s.npx, s.npy, s.npz, ranks));
  }
}

int Geometry::neighbor_rank(int dx, int dy, int dz) const {
  const int x = ipx + dx, y = ipy + dy, z = ipz + dz;
  if (x < 0 || x >= npx || y < 0 || y >= npy || z < 0 || z >= npz) return -1;
  return x + npx * (y + npy * z);
}

Geometry Geometry::coarsened() const {
  Geometry g = *this;
  g.nx /= 2;
  g.ny /= 2;
  g.nz /= 2;
  g.gnx /= 2;
  g.gny /= 2;
  g.gnz /= 2;
  g.gix0 /= 2;
  g.giy0 /= 2;
  g.giz0 /= 2;
  return g;
}

Geometry make_geometry(int rank, int size, int nx, int ny, int nz, ProcessShape shape) {
  check_local_dims(nx, ny, nz);
  if (shape.npx == 0 && shape.npy == 0 && shape.npz == 0) shape = optimal_process_shape(size);
  check_process_shape(shape, size);
  Geometry g;
  g.rank = rank;
  g.size = size;
  g.npx = shape.npx;
  g.npy = shape.npy;
  g.npz = shape.npz;
  g.ipx = rank % g.npx;
  g.ipy = (rank / g.npx) % g.npy;
  g.ipz = rank / (g.npx * g.npy);
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.gnx = static_cast<long>(nx) * g.npx;
  g.gny = static_cast<long>(ny) * g.npy;
  g.gnz = static_cast<long>(nz) * g.npz;
  g.gix0 = static_cast<long>(g.ipx) * nx;
  g.giy0 = static_cast<long>(g.ipy) * ny;
  g.giz0 = static_cast<long>(g.ipz) * nz;
  return g;
}

}  // namespace hplx::mxp
