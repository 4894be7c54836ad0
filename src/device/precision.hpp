// Low-precision storage for the mixed-precision factorization (HPL-MxP on a
// GPU stores its matrix in FP16 or BF16 and multiplies with FP32
// accumulation): the 16-bit types, their conversions and the name of a
// precision.
//
// Half (IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits) and
// BFloat16 (the top 16 bits of a binary32: 1, 8, 7) are plain 16-bit
// structs, the same bits as CUDA's __half and __nv_bfloat16, so that one
// buffer of them is what cuBLAS reads. They carry no arithmetic: values are
// widened to float to compute and rounded back to store. cuda_fp16.h is not
// available to host-only builds, so the conversions are written here on
// the bits, once for the host and kernel bodies (HPLX_HD):
// - float -> 16 bits rounds to nearest, ties to even (as __float2half_rn
//   and __float2bfloat16_rn), with overflow to infinity (for Half, from
//   65520 up: 65504 is the largest finite value), gradual underflow to the
//   subnormals, and NaN kept a quiet NaN of the same sign;
// - 16 bits -> float is exact (every Half and BFloat16 value is a float).
// tests/device/test_precision.cpp checks them against known bit patterns
// and, in CUDA builds, against cuda_fp16.h's and cuda_bf16.h's own.
#pragma once

#include <cstdint>
#include <cstring>

#include "device/kernel_body.hpp"

namespace hplx::device {

// The storage precision of a factorization's matrix.
enum class Precision { Fp32, Fp16, Bf16 };

// "fp32", "fp16", "bf16".
inline const char* name_of(Precision p) {
  return p == Precision::Fp32 ? "fp32" : p == Precision::Fp16 ? "fp16" : "bf16";
}
// Bytes per element.
inline int bytes_of(Precision p) {
  return p == Precision::Fp32 ? 4 : 2;
}

struct Half {
  std::uint16_t bits;
};
struct BFloat16 {
  std::uint16_t bits;
};
static_assert(sizeof(Half) == 2 && alignof(Half) == 2);
static_assert(sizeof(BFloat16) == 2 && alignof(BFloat16) == 2);

namespace precision_detail {

HPLX_HD inline std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(std::uint32_t, x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

HPLX_HD inline float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(float, u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

// `value` >> `shift` rounded to nearest, ties to the even result.
HPLX_HD inline std::uint32_t shift_right_even(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((std::uint32_t{1} << shift) - 1);
  const std::uint32_t half = std::uint32_t{1} << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u) != 0)) ? 1u : 0u);
}

}  // namespace precision_detail

HPLX_HD inline Half to_half(float x) {
  using namespace precision_detail;
  const std::uint32_t u = bits_of(x);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)  // NaN: quiet, with the top of the payload
    return Half{static_cast<std::uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x03ffu))};
  if (a >= 0x477ff000u)  // from 65520 (halfway past 65504, 65504 odd) and infinity
    return Half{static_cast<std::uint16_t>(sign | 0x7c00u)};
  if (a >= 0x38800000u) {  // normal: rebias the exponent; a carry out of the
                           // fraction steps the exponent, as it should
    const std::uint32_t rebiased = a - ((127u - 15u) << 23);
    return Half{static_cast<std::uint16_t>(sign | shift_right_even(rebiased, 13))};
  }
  if (a <= 0x33000000u)  // at most 2^-25, half the smallest subnormal: ties to 0
    return Half{sign};
  // Subnormal: the value in units of 2^-24, rounded (a carry into 0x400 is
  // the smallest normal number, as it should be).
  const std::uint32_t significand = (a & 0x007fffffu) | 0x00800000u;
  const int shift = 126 - static_cast<int>(a >> 23);  // 14 .. 24
  return Half{static_cast<std::uint16_t>(sign | shift_right_even(significand, shift))};
}

HPLX_HD inline float to_float(Half h) {
  using namespace precision_detail;
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (h.bits >> 10) & 0x1fu;
  std::uint32_t fraction = h.bits & 0x03ffu;
  if (exponent == 0x1fu) return float_of(sign | 0x7f800000u | (fraction << 13));
  if (exponent != 0) return float_of(sign | ((exponent + 127u - 15u) << 23) | (fraction << 13));
  if (fraction == 0) return float_of(sign);
  // Subnormal: normalize (the float's exponent range holds it).
  std::uint32_t e = 127u - 14u;
  while ((fraction & 0x0400u) == 0) {
    fraction <<= 1;
    --e;
  }
  return float_of(sign | (e << 23) | ((fraction & 0x03ffu) << 13));
}

HPLX_HD inline BFloat16 to_bfloat16(float x) {
  using namespace precision_detail;
  const std::uint32_t u = bits_of(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: quiet (truncating 0x7f800001 would give inf)
    return BFloat16{static_cast<std::uint16_t>((u >> 16) | 0x0040u)};
  // Same exponent range as float: only the fraction is rounded; overflow
  // carries into infinity and subnormals round like normals.
  return BFloat16{static_cast<std::uint16_t>(shift_right_even(u, 16))};
}

HPLX_HD inline float to_float(BFloat16 b) {
  return precision_detail::float_of(static_cast<std::uint32_t>(b.bits) << 16);
}

// x rounded to TF32 (the tensor cores' 19-bit format: FP32's sign and 8
// exponent bits, 10 fraction bits), to nearest, ties to even, as a float:
// the operands of Queue::gemm_tf32 on the host. Same exponent range as
// float, so only the fraction is rounded (a carry may reach infinity);
// NaN and infinity are kept.
HPLX_HD inline float round_to_tf32(float x) {
  using namespace precision_detail;
  const std::uint32_t u = bits_of(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  return float_of(shift_right_even(u, 13) << 13);
}

// to_half or to_bfloat16 by the type stored.
template <class T>
HPLX_HD T round_to(float x);
template <>
HPLX_HD inline Half round_to<Half>(float x) {
  return to_half(x);
}
template <>
HPLX_HD inline BFloat16 round_to<BFloat16>(float x) {
  return to_bfloat16(x);
}

}  // namespace hplx::device
