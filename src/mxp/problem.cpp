#include "mxp/problem.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "core/error.hpp"
#include "mxp/vector_ops.hpp"

namespace hplx::mxp {

double stencil_value(int sx, int sy, int sz, bool nonsymmetric) {
  if (sx == 0 && sy == 0 && sz == 0) return 26.0;
  if (nonsymmetric && sx == 0 && sy == 0) return sz < 0 ? -1.5 : -0.5;
  return -1.0;
}

namespace {

// Sorts every row's entries by column (padding, value 0, last) and records
// per slice the most entries in blocks before the row's own (EllPattern).
// A property of the matrix and the ordering only, as for any sparse matrix.
// The host-side matrix of a level before it is copied to the device.
struct HostEll {
  long rows = 0;
  std::vector<int> cols;
  std::vector<double> values, inv_diag;
  std::vector<unsigned char> earlier_slots;
  long long earlier_entries = 0;
};

template <class T>
device::Buffer<T> upload(device::Device& dev, const std::vector<T>& v) {
  device::Buffer<T> b = dev.alloc<T>(static_cast<long>(v.size()));
  device::copy(dev.compute(), b.data(), v.data(), static_cast<long>(v.size()));
  return b;
}

void sort_rows(const ColorOrdering& order, HostEll& pattern, std::vector<double>& values) {
  const long n = pattern.rows;
  const long slices = (n + kSliceRows - 1) / kSliceRows;
  pattern.earlier_slots.assign(slices, 0);
  std::vector<int> block_of(n);
  for (int c = 0; c < kColors; ++c)
    for (long r = order.color_begin[c]; r < order.color_begin[c + 1]; ++r) block_of[r] = c;
#pragma omp parallel for schedule(static)
  for (long sl = 0; sl < slices; ++sl) {
    int most = 0;
    for (long r = sl * kSliceRows; r < std::min(n, (sl + 1) * kSliceRows); ++r) {
      std::array<std::pair<long, double>, kSlots> e;
      for (int s = 0; s < kSlots; ++s) {
        const long i = EllPattern::index(r, s);
        const double v = values[i];
        e[s] = {v == 0.0 ? std::numeric_limits<long>::max() : pattern.cols[i], v};
      }
      std::stable_sort(e.begin(), e.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      int earlier = 0;
      for (int s = 0; s < kSlots; ++s) {
        const long i = EllPattern::index(r, s);
        const bool pad = e[s].first == std::numeric_limits<long>::max();
        pattern.cols[i] = static_cast<int>(pad ? r : e[s].first);
        values[i] = e[s].second;
        if (!pad && e[s].first < order.color_begin[block_of[r]]) ++earlier;
      }
      // Sequential (lexicographic) sweeps have one block: nothing is earlier.
      most = std::max(most, order.sequential ? kSlots : earlier);
    }
    pattern.earlier_slots[sl] = static_cast<unsigned char>(most);
  }
  pattern.earlier_entries = 0;
  for (long sl = 0; sl < slices; ++sl)
    pattern.earlier_entries += static_cast<long long>(pattern.earlier_slots[sl]) *
                               (std::min(n, (sl + 1) * kSliceRows) - sl * kSliceRows);
}

Level generate_level(device::Device& dev, const Geometry& g, const ProblemOptions& options,
                     MPI_Comm comm, std::vector<double>* b) {
  Level lv;
  lv.geom = g;
  lv.order = options.smoother == Smoother::Lexicographic ? make_natural_ordering(g)
                                                         : make_color_ordering(g, options.colors);
  lv.halo = make_halo_plan(g, lv.order);
  const long n = g.local_rows();
  HostEll host;
  HostEll* pattern = &host;
  pattern->rows = n;
  pattern->cols.assign(EllPattern::storage(n), 0);
  host.values.assign(EllPattern::storage(n), 0.0);
  host.inv_diag.assign(n, 0.0);
  if (b) b->assign(n, 0.0);
  long long nnz = 0;
#pragma omp parallel for schedule(static) reduction(+ : nnz)
  for (long natural = 0; natural < n; ++natural) {
    const int ix = static_cast<int>(natural % g.nx);
    const int iy = static_cast<int>((natural / g.nx) % g.ny);
    const int iz = static_cast<int>(natural / (static_cast<long>(g.nx) * g.ny));
    const long row = lv.order.to_permuted[natural];
    double row_sum = 0;
    int slot = 0;
    for (int sz = -1; sz <= 1; ++sz) {
      for (int sy = -1; sy <= 1; ++sy) {
        for (int sx = -1; sx <= 1; ++sx, ++slot) {
          const int jx = ix + sx, jy = iy + sy, jz = iz + sz;
          const long gx = g.gix0 + jx, gy = g.giy0 + jy, gz = g.giz0 + jz;
          long col = row;
          double value = 0.0;
          if (gx >= 0 && gx < g.gnx && gy >= 0 && gy < g.gny && gz >= 0 && gz < g.gnz) {
            value = stencil_value(sx, sy, sz, options.nonsymmetric);
            if (jx >= 0 && jx < g.nx && jy >= 0 && jy < g.ny && jz >= 0 && jz < g.nz) {
              col = lv.order.to_permuted[(static_cast<long>(jz) * g.ny + jy) * g.nx + jx];
            } else {
              col = n + lv.halo.position(jx, jy, jz);
            }
            ++nnz;
            row_sum += value;
          }
          pattern->cols[EllPattern::index(row, slot)] = static_cast<int>(col);
          host.values[EllPattern::index(row, slot)] = value;
        }
      }
    }
    host.inv_diag[row] = 1.0 / stencil_value(0, 0, 0, options.nonsymmetric);
    if (b) (*b)[row] = row_sum;
  }
  sort_rows(lv.order, host, host.values);
  long long global = 0;
  HPLX_MPI_CHECK(MPI_Allreduce(&nnz, &global, 1, MPI_LONG_LONG, MPI_SUM, comm));
  lv.a.global_nnz = global;
  auto device_pattern = std::make_shared<EllPattern>();
  device_pattern->rows = n;
  device_pattern->halo = lv.halo.halo_size;
  device_pattern->cols = upload(dev, host.cols);
  device_pattern->earlier_slots = upload(dev, host.earlier_slots);
  device_pattern->earlier_entries = host.earlier_entries;
  lv.a.values = upload(dev, host.values);
  lv.a.inv_diag = upload(dev, host.inv_diag);
  lv.a.pattern = std::move(device_pattern);
  dev.compute().synchronize();  // the host arrays go out of scope
  return lv;
}

}  // namespace

Problem generate_problem(device::Device& dev, const Geometry& fine, const ProblemOptions& options,
                         MPI_Comm comm) {
  check_local_dims(fine.nx, fine.ny, fine.nz);
  Problem p;
  p.options = options;
  p.levels.reserve(kMgLevels);
  Geometry g = fine;
  std::vector<double> b;
  for (int l = 0; l < kMgLevels; ++l) {
    p.levels.push_back(generate_level(dev, g, options, comm, l == 0 ? &b : nullptr));
    p.nnz_mg += p.levels.back().a.global_nnz;
    if (l + 1 < kMgLevels) g = g.coarsened();
  }
  for (int l = 0; l + 1 < kMgLevels; ++l) {
    Level& f = p.levels[l];
    const Level& c = p.levels[l + 1];
    const long nc = c.geom.local_rows();
    std::vector<int> coarse_to_fine(nc, -1), fine_to_coarse(f.geom.local_rows(), -1);
    for (long cn = 0; cn < nc; ++cn) {
      const long cx = cn % c.geom.nx, cy = (cn / c.geom.nx) % c.geom.ny,
                 cz = cn / (static_cast<long>(c.geom.nx) * c.geom.ny);
      const long fn = ((2 * cz) * f.geom.ny + 2 * cy) * f.geom.nx + 2 * cx;
      const int frow = f.order.to_permuted[fn];
      const int crow = c.order.to_permuted[cn];
      coarse_to_fine[crow] = frow;
      fine_to_coarse[frow] = crow;
    }
    f.coarse_to_fine = upload(dev, coarse_to_fine);
    f.fine_to_coarse = upload(dev, fine_to_coarse);
    dev.compute().synchronize();  // the host arrays go out of scope
  }
  p.b = upload(dev, b);
  p.x_exact = dev.alloc<double>(p.rows());
  fill(dev.compute(), p.rows(), 1.0, p.x_exact.data());
  dev.compute().synchronize();
  return p;
}

}  // namespace hplx::mxp
