// The 16-bit conversions (device/precision.hpp) against the GPU vendor's
// own, whose host versions need no GPU: CUDA's (cuda_fp16.h, cuda_bf16.h)
// in CUDA builds, HIP's (hip_fp16.h, hip_bf16.h; this file compiled as HIP)
// in HIP builds. Every 16-bit value widened, and rounding at and around
// every tie point between neighbouring 16-bit values plus random floats.
#if defined(__HIPCC__)
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "device/precision.hpp"

namespace hplx::device {
namespace {

// The vendor's types and its round-to-nearest conversions.
#if defined(__HIPCC__)
using VendorHalf = __half;
using VendorBf16 = __hip_bfloat16;
VendorBf16 vendor_bf16_rn(float x) {
  return __float2bfloat16(x);  // HIP's is round to nearest even
}
#else
using VendorHalf = __half;
using VendorBf16 = __nv_bfloat16;
VendorBf16 vendor_bf16_rn(float x) {
  return __float2bfloat16_rn(x);
}
#endif
template <class V>
V from_u16(std::uint16_t u) {
  V v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}
template <class V>
std::uint16_t to_u16(V v) {
  std::uint16_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
std::uint16_t vendor_half(float x) {
  return to_u16(__float2half_rn(x));
}
std::uint16_t vendor_bf16(float x) {
  return to_u16(vendor_bf16_rn(x));
}

// Each 16-bit value, the tie points between it and its upper neighbour,
// and the floats just either side of them; then random float bits.
template <class T>
std::vector<float> probes() {
  std::vector<float> v;
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const float x = to_float(T{static_cast<std::uint16_t>(u)});
    const float next = to_float(T{static_cast<std::uint16_t>(u + 1)});
    v.push_back(x);
    if (std::isfinite(x) && std::isfinite(next) && u != 0x7fffu && u != 0xffffu) {
      const float tie = static_cast<float>((double(x) + double(next)) / 2);  // exact in float
      v.insert(v.end(), {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, next * 2)});
    }
  }
  std::mt19937 gen(21);
  for (int i = 0; i < 200000; ++i) v.push_back(from_bits(static_cast<std::uint32_t>(gen())));
  return v;
}

TEST(PrecisionAgainstTheVendor, HalfRoundsAndWidensAsTheVendorsFp16) {
  long checked = 0;
  for (float x : probes<Half>()) {
    const std::uint16_t ours = to_half(x).bits, theirs = vendor_half(x);
    if (std::isnan(x)) {
      ASSERT_TRUE(std::isnan(to_float(Half{ours})) && std::isnan(__half2float(__float2half_rn(x))));
    } else {
      ASSERT_EQ(ours, theirs) << std::hex << "float bits " << bits(x);
    }
    ++checked;
  }
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const float ours = to_float(Half{static_cast<std::uint16_t>(u)});
    const float theirs = __half2float(from_u16<VendorHalf>(static_cast<std::uint16_t>(u)));
    if (std::isnan(theirs))
      ASSERT_TRUE(std::isnan(ours)) << std::hex << u;
    else
      ASSERT_EQ(bits(ours), bits(theirs)) << std::hex << u;
  }
  EXPECT_GT(checked, 300000);
}

TEST(PrecisionAgainstTheVendor, BFloat16RoundsAndWidensAsTheVendorsBf16) {
  for (float x : probes<BFloat16>()) {
    const std::uint16_t ours = to_bfloat16(x).bits, theirs = vendor_bf16(x);
    if (std::isnan(x))
      ASSERT_TRUE(std::isnan(to_float(BFloat16{ours})) &&
                  std::isnan(__bfloat162float(vendor_bf16_rn(x))));
    else
      ASSERT_EQ(ours, theirs) << std::hex << "float bits " << bits(x);
  }
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const float ours = to_float(BFloat16{static_cast<std::uint16_t>(u)});
    const float theirs = __bfloat162float(from_u16<VendorBf16>(static_cast<std::uint16_t>(u)));
    if (std::isnan(theirs))
      ASSERT_TRUE(std::isnan(ours)) << std::hex << u;
    else
      ASSERT_EQ(bits(ours), bits(theirs)) << std::hex << u;
  }
}

}  // namespace
}  // namespace hplx::device
