#include "mxp/coloring.hpp"

#include "core/error.hpp"

namespace hplx::mxp {

bool touches_halo(const Geometry& g, int ix, int iy, int iz) {
  return (ix == 0 && g.ipx > 0) || (ix == g.nx - 1 && g.ipx < g.npx - 1) ||
         (iy == 0 && g.ipy > 0) || (iy == g.ny - 1 && g.ipy < g.npy - 1) ||
         (iz == 0 && g.ipz > 0) || (iz == g.nz - 1 && g.ipz < g.npz - 1);
}

ColorOrdering make_color_ordering(const Geometry& g, const ColorSequence& sequence) {
  ColorOrdering o;
  o.sequence = sequence;
  const long n = g.local_rows();
  o.to_natural.reserve(n);
  o.to_permuted.assign(n, -1);
  for (int block = 0; block < kColors; ++block) {
    const int c = sequence[block];
    if (c == 0) o.coarse_block = block;
    o.color_begin[block] = static_cast<long>(o.to_natural.size());
    for (int pass = 0; pass < 2; ++pass) {  // 0: interior rows, 1: rows reading the halo
      if (pass == 1) o.boundary_begin[block] = static_cast<long>(o.to_natural.size());
      for (int iz = (c >> 2) & 1; iz < g.nz; iz += 2) {
        for (int iy = (c >> 1) & 1; iy < g.ny; iy += 2) {
          for (int ix = c & 1; ix < g.nx; ix += 2) {
            if (touches_halo(g, ix, iy, iz) != (pass == 1)) continue;
            const int natural = (iz * g.ny + iy) * g.nx + ix;
            o.to_permuted[natural] = static_cast<int>(o.to_natural.size());
            o.to_natural.push_back(natural);
          }
        }
      }
    }
  }
  o.color_begin[kColors] = n;
  return o;
}

ColorOrdering make_natural_ordering(const Geometry& g) {
  ColorOrdering o;
  const long n = g.local_rows();
  o.to_natural.resize(n);
  o.to_permuted.resize(n);
  for (long r = 0; r < n; ++r) o.to_natural[r] = o.to_permuted[r] = static_cast<int>(r);
  o.color_begin.fill(n);
  o.color_begin[0] = 0;
  o.boundary_begin.fill(n);
  o.boundary_begin[0] = 0;
  o.sequential = true;
  return o;
}

}  // namespace hplx::mxp
