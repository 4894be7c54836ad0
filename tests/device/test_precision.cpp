// The 16-bit storage types' conversions (device/precision.hpp): the bit
// patterns IEEE 754 binary16 and bfloat16 give for values a factorization
// meets (ordinary, largest finite, overflow, subnormal, zero, NaN) and the
// ties that round to even.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "device/precision.hpp"

namespace hplx::device {
namespace {

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
std::uint16_t h(float x) {
  return to_half(x).bits;
}
std::uint16_t bf(float x) {
  return to_bfloat16(x).bits;
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(HalfConversion, OrdinaryValuesHaveTheirBinary16Bits) {
  EXPECT_EQ(h(1.0f), 0x3c00);
  EXPECT_EQ(h(-2.0f), 0xc000);
  EXPECT_EQ(h(0.5f), 0x3800);
  EXPECT_EQ(h(0.1f), 0x2e66);  // 0.0999755859375, the nearest binary16
  EXPECT_EQ(h(0.0f), 0x0000);
  EXPECT_EQ(h(-0.0f), 0x8000);
  EXPECT_EQ(h(65504.0f), 0x7bff);               // the largest finite binary16
  EXPECT_EQ(h(std::ldexp(1.0f, -14)), 0x0400);  // the smallest normal
}

TEST(HalfConversion, OverflowGoesToInfinityFrom65520) {
  EXPECT_EQ(h(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(h(65520.0f), 0x7c00);  // the tie: 65504 is odd, so up
  EXPECT_EQ(h(-65520.0f), 0xfc00);
  EXPECT_EQ(h(1e9f), 0x7c00);
  EXPECT_EQ(h(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(h(kInf), 0x7c00);
  EXPECT_EQ(h(-kInf), 0xfc00);
}

TEST(HalfConversion, SubnormalsRoundGraduallyToZero) {
  EXPECT_EQ(h(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(h(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(h(1023 * std::ldexp(1.0f, -24)), 0x03ff);  // the largest
  EXPECT_EQ(h(std::ldexp(1.0f, -25)), 0x0000);         // the tie with 0: even
  EXPECT_EQ(h(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(h(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(h(3 * std::ldexp(1.0f, -25)), 0x0002);     // 1.5 units: even is 2
  EXPECT_EQ(h(5 * std::ldexp(1.0f, -25)), 0x0002);     // 2.5 units: even is 2
  EXPECT_EQ(h(2047 * std::ldexp(1.0f, -25)), 0x0400);  // 1023.5 units: up to the smallest normal
  EXPECT_EQ(h(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(h(1e-30f), 0x0000);
}

TEST(HalfConversion, TiesRoundToEven) {
  const float ulp = std::ldexp(1.0f, -10);   // of binary16 at 1
  EXPECT_EQ(h(1.0f + ulp / 2), 0x3c00);      // between 0x3c00 and 0x3c01: even
  EXPECT_EQ(h(1.0f + 3 * ulp / 2), 0x3c02);  // between 0x3c01 and 0x3c02: even
  EXPECT_EQ(h(std::nextafter(1.0f + ulp / 2, 2.0f)), 0x3c01);
  EXPECT_EQ(h(std::nextafter(1.0f + 3 * ulp / 2, 0.0f)), 0x3c01);
  EXPECT_EQ(h(2049.0f), 0x6800);  // 2048 and 2050 are neighbours: 2048 even
  EXPECT_EQ(h(2051.0f), 0x6802);  // 2052
}

TEST(HalfConversion, NaNStaysAQuietNaNOfItsSign) {
  for (float nan : {kNaN, -kNaN, from_bits(0x7f800001u), from_bits(0xff800001u)}) {
    const std::uint16_t got = h(nan);
    EXPECT_EQ(got & 0x7c00, 0x7c00) << std::hex << got;
    EXPECT_NE(got & 0x03ff, 0) << "a NaN became infinity: " << std::hex << got;
    EXPECT_NE(got & 0x0200, 0) << "not quiet: " << std::hex << got;
    EXPECT_EQ(got >> 15, bits(nan) >> 31);
    EXPECT_TRUE(std::isnan(to_float(Half{got})));
  }
}

TEST(HalfConversion, WideningIsExactForEveryValue) {
  EXPECT_EQ(to_float(Half{0x0001}), std::ldexp(1.0f, -24));
  EXPECT_EQ(to_float(Half{0x03ff}), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(to_float(Half{0x0400}), std::ldexp(1.0f, -14));
  EXPECT_EQ(to_float(Half{0x3c01}), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(to_float(Half{0x7bff}), 65504.0f);
  EXPECT_EQ(to_float(Half{0x7c00}), kInf);
  EXPECT_EQ(to_float(Half{0xfc00}), -kInf);
  EXPECT_TRUE(std::signbit(to_float(Half{0x8000})));
  EXPECT_EQ(to_float(Half{0x8000}), 0.0f);
  // Every binary16 that is not a NaN comes back to its own bits, and the
  // positive ones increase with their bits.
  float previous = -1;
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const Half x{static_cast<std::uint16_t>(u)};
    const float f = to_float(x);
    if ((u & 0x7c00u) == 0x7c00u && (u & 0x03ffu) != 0) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << u;
      continue;
    }
    ASSERT_EQ(h(f), u) << std::hex << u;
    if (u <= 0x7c00u) {
      ASSERT_GT(f, previous) << std::hex << u;
      previous = f;
    }
  }
}

TEST(BFloat16Conversion, OrdinaryValuesHaveTheirBits) {
  EXPECT_EQ(bf(1.0f), 0x3f80);
  EXPECT_EQ(bf(-2.0f), 0xc000);
  EXPECT_EQ(bf(0.0f), 0x0000);
  EXPECT_EQ(bf(-0.0f), 0x8000);
  EXPECT_EQ(bf(3.0f), 0x4040);
  EXPECT_EQ(bf(65520.0f), 0x4780);  // far from bfloat16's overflow
  EXPECT_EQ(bf(kInf), 0x7f80);
  EXPECT_EQ(bf(-kInf), 0xff80);
}

TEST(BFloat16Conversion, TiesRoundToEven) {
  const float ulp = std::ldexp(1.0f, -7);     // of bfloat16 at 1
  EXPECT_EQ(bf(1.0f + ulp / 2), 0x3f80);      // 1 + 2^-8: the tie, down to even
  EXPECT_EQ(bf(1.0f + 3 * ulp / 2), 0x3f82);  // up to even
  EXPECT_EQ(bf(std::nextafter(1.0f + ulp / 2, 2.0f)), 0x3f81);
  EXPECT_EQ(bf(std::nextafter(1.0f + ulp / 2, 0.0f)), 0x3f80);
  EXPECT_EQ(bf(-(1.0f + 3 * ulp / 2)), 0xbf82);
}

TEST(BFloat16Conversion, OverflowAndSubnormalsRoundLikeAnyValue) {
  EXPECT_EQ(bf(std::numeric_limits<float>::max()), 0x7f80);  // above the last tie
  EXPECT_EQ(bf(from_bits(0x7f7f7fffu)), 0x7f7f);
  EXPECT_EQ(bf(from_bits(0x7f7f8000u)), 0x7f80);  // the tie: 0x7f7f is odd, up to inf
  EXPECT_EQ(bf(from_bits(0x00010000u)), 0x0001);  // the smallest bfloat16 subnormal
  EXPECT_EQ(bf(from_bits(0x00008000u)), 0x0000);  // half of it: the tie, to 0
  EXPECT_EQ(bf(from_bits(0x00018000u)), 0x0002);  // 1.5 of it: to even
  EXPECT_EQ(bf(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(BFloat16Conversion, NaNStaysAQuietNaN) {
  for (float nan : {kNaN, -kNaN, from_bits(0x7f800001u), from_bits(0xff800001u)}) {
    const std::uint16_t got = bf(nan);
    EXPECT_EQ(got & 0x7f80, 0x7f80) << std::hex << got;
    EXPECT_NE(got & 0x0040, 0) << "a NaN became infinity or signalling: " << std::hex << got;
    EXPECT_EQ(got >> 15, bits(nan) >> 31);
    EXPECT_TRUE(std::isnan(to_float(BFloat16{got})));
  }
}

TEST(BFloat16Conversion, WideningIsExactForEveryValue) {
  EXPECT_EQ(to_float(BFloat16{0x3f81}), 1.0f + std::ldexp(1.0f, -7));
  EXPECT_EQ(to_float(BFloat16{0x0001}), std::ldexp(1.0f, -133));
  EXPECT_EQ(to_float(BFloat16{0x7f7f}), from_bits(0x7f7f0000u));
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const float f = to_float(BFloat16{static_cast<std::uint16_t>(u)});
    ASSERT_EQ(bits(f), u << 16) << std::hex << u;
    if (!std::isnan(f)) {
      ASSERT_EQ(bf(f), u) << std::hex << u;
    }
  }
}

TEST(Tf32Rounding, KeepsTenFractionBitsWithTiesToEven) {
  const float ulp = std::ldexp(1.0f, -10);  // of TF32 at 1
  EXPECT_EQ(round_to_tf32(1.0f + ulp), 1.0f + ulp);
  EXPECT_EQ(round_to_tf32(1.0f + ulp / 2), 1.0f);                // the tie, down to even
  EXPECT_EQ(round_to_tf32(1.0f + 3 * ulp / 2), 1.0f + 2 * ulp);  // up to even
  EXPECT_EQ(round_to_tf32(std::nextafter(1.0f + ulp / 2, 2.0f)), 1.0f + ulp);
  EXPECT_EQ(round_to_tf32(-(1.0f + 3 * ulp / 2)), -(1.0f + 2 * ulp));
  EXPECT_EQ(bits(round_to_tf32(from_bits(0x3fffffffu))), 0x40000000u);  // a carry into the exponent
  // FP32's range: values far outside Half's keep their exponent.
  EXPECT_NEAR(round_to_tf32(1e30f), 1e30f, 1e30f * std::ldexp(1.0f, -11));
  EXPECT_EQ(bits(round_to_tf32(1e30f)) & 0x1fffu, 0u);
  EXPECT_EQ(bits(round_to_tf32(from_bits(0x00002000u))), 0x00002000u);  // a subnormal kept
  EXPECT_EQ(bits(round_to_tf32(from_bits(0x00001000u))), 0x00000000u);  // its half: to even, 0
}

TEST(Tf32Rounding, InfinityAndNaNAreKept) {
  EXPECT_EQ(round_to_tf32(kInf), kInf);
  EXPECT_EQ(round_to_tf32(-kInf), -kInf);
  EXPECT_TRUE(std::isnan(round_to_tf32(kNaN)));
  EXPECT_TRUE(std::isnan(round_to_tf32(from_bits(0x7f800001u))));  // not rounded to infinity
  // The largest float is past the last tie below infinity.
  EXPECT_EQ(bits(round_to_tf32(std::numeric_limits<float>::max())), 0x7f800000u);
}

TEST(Precision, NamesAndSizes) {
  EXPECT_STREQ(name_of(Precision::Fp32), "fp32");
  EXPECT_STREQ(name_of(Precision::Fp16), "fp16");
  EXPECT_STREQ(name_of(Precision::Bf16), "bf16");
  EXPECT_EQ(bytes_of(Precision::Fp32), 4);
  EXPECT_EQ(bytes_of(Precision::Fp16), 2);
  EXPECT_EQ(bytes_of(Precision::Bf16), 2);
}

}  // namespace
}  // namespace hplx::device
