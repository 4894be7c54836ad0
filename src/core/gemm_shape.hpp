// A GEMM's rate at its shape, as hplx sim's kernel model and hplx model's
// GPU update both charge it (docs/SIM.md "Kernel models"): the peak times
// s(m) s(n) s(k), s(d) = d / (d + half_dim), so with two dimensions large
// it runs at half the peak where the third is half_dim (0: the peak at
// every shape). Dimensions > 0.
#pragma once

namespace hplx {

inline double gemm_rate_at_shape(double peak, double half_dim, double m, double n, double k) {
  auto saturation = [half_dim](double d) { return d / (d + half_dim); };
  return peak * saturation(m) * saturation(n) * saturation(k);
}

}  // namespace hplx
