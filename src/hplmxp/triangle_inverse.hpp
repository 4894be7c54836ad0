// A triangle's inverse on the queue, for HPL-MxP's panel solves by
// inverted triangles (nopiv_phases.cpp, --panel-solve inverse|inverse-tf32).
#pragma once

#include "device/queue.hpp"

namespace hplx::hplmxp {

// Blocks at most this wide are inverted by a TRSM on the identity.
inline constexpr long kInverseLeafColumns = 128;

// inverse := T^-1 for the n x n triangle T at t (leading dimension ldt),
// lower with a unit diagonal or upper with its own; `inverse` is n x n
// (leading dimension n) in the queue's memory, its other triangle zero.
// Recursive halves with the products as GEMMs: for a
// lower T = [T11 0; T21 T22], T^-1 = [X11 0; -X22 T21 X11  X22] with
// X11 = T11^-1 and X22 = T22^-1 (an upper T likewise). Its GEMMs take
// the triangles as full blocks: about 2 n^3 / 3 flops, nearly all SGEMM,
// against n^3 for one TRSM on the identity, which ran at 7-15 TFLOP/s on
// the H200, a GEMM many times that.
void invert_triangle(device::Queue& q, device::Uplo uplo, long n, const float* t, long ldt,
                     float* inverse);

}  // namespace hplx::hplmxp
