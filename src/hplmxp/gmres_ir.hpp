// Iterative refinement by restarted GMRES in FP64, right-preconditioned by
// the FP32 LU factors, until the HPL-MxP check
//   ||Ax - b||_oo / (||A||_oo ||x||_oo + ||b||_oo) / (n eps) < threshold,
// eps = 2^-53, threshold 16, passes, or an iteration cap is reached.
//
// Each restart cycle starts from the true FP64 residual b - Ax (the
// product with A in FP64: GeneratedMatrix::multiply, which on a device
// makes A's entries again, so that no FP64 copy of A is kept) and is one
// refinement step; a cycle ends when its residual estimate is a tenth of
// what the check allows.
//
// The vectors (n entries, restart + 4 of them) live in the queue's memory,
// replicated on every process; the vector operations are kernel bodies on
// the queue (kernels/vector_kernels.hpp). Only scalars reach the host: the
// dot products (each one host wait) and, once per cycle, the largest
// magnitude of each 1024 entries of the residual and the solution for the
// check's max-norms. Every process computes the same
// numbers: the product gives every process the same vector
// (GeneratedMatrix reduces its partial sums to one process and broadcasts
// them: an allreduce's rounding may differ between processes), the solves
// broadcast their blocks, and the queue's sums add in a fixed order. So
// every process takes the same branches and the loop cannot hang with some
// processes out of it.
#pragma once

#include <functional>
#include <vector>

#include "device/buffer.hpp"
#include "device/mirror.hpp"
#include "device/queue.hpp"

namespace hplx::hplmxp {

// The refinement's memory: restart + 4 vectors of n entries in the queue's
// memory (the Krylov basis, r, w, z; min(restart, n) basis vectors) and the
// max-norm's chunk maxima, made before the clock starts so that the timed
// refinement allocates nothing.
struct GmresIrWorkspace {
  GmresIrWorkspace(device::Backend& backend, long n, int restart);
  long n;
  int m;  // basis vectors per cycle
  device::Buffer<double> store;
  device::Mirror<double> maxima;
};

struct GmresIrOptions {
  int restart = 30;          // Krylov vectors per cycle
  int max_iterations = 100;  // cap on GMRES iterations (preconditioned products) in all
  double threshold = 16.0;
  // Made before the clock for this n and restart; null: gmres_ir makes it.
  GmresIrWorkspace* workspace = nullptr;
};

struct GmresIrResult {
  bool converged = false;
  int iterations = 0;  // GMRES iterations in all
  int cycles = 0;      // restart cycles (refinement steps)
  // The check's value before each cycle and at the end (the last is `check`).
  std::vector<double> check_history;
  // Per GMRES iteration, GMRES's own estimate of the residual's 2-norm
  // (from the Givens rotations), scaled as the check: no product needed.
  std::vector<double> estimate_history;
  double check = 0, residual_inf = 0, norm_a = 0, norm_x = 0, norm_b = 0;
};

// z = M^-1 v, n entries each in the queue's memory (the same on every
// process).
using Preconditioner = std::function<void(const double* v, double* z)>;
// y = A x in FP64, n entries each in the queue's memory, the same y on
// every process.
using Product = std::function<void(const double* x, double* y)>;
// Called on every process after each check with (cycle, check value).
using CheckCallback = std::function<void(int, double)>;

// Refines x (n entries in the queue's memory, the same on every process;
// the FP32 solution on entry) for A of order n and norm norm_a, b in the
// queue's memory. Collective over the grid.
GmresIrResult gmres_ir(device::Queue& queue, long n, const Product& multiply, double norm_a,
                       const double* b, const Preconditioner& precondition,
                       const GmresIrOptions& options, double* x,
                       const CheckCallback& on_check = {});

}  // namespace hplx::hplmxp
