// What the device probes (dgemm_probe.cpp, fact_probe.cpp) share: their
// list options and filling a device buffer with constant or random
// operands.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/device.hpp"
#include "device/precision.hpp"

namespace hplx::probe {

// "a,b,c" as its items {"a", "b", "c"} (an empty item stays empty).
inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = text.find(',', at);
    items.push_back(text.substr(at, comma == std::string::npos ? comma : comma - at));
    if (comma == std::string::npos) return items;
    at = comma + 1;
  }
}

// "a,b,c" as positive integers; a UsageError naming `what` otherwise.
inline std::vector<long> parse_list(const std::string& text, const char* what) {
  std::vector<long> v;
  for (const std::string& item : split_list(text)) {
    char* end = nullptr;
    const long x = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || x < 1)
      throw UsageError(
          fmt::format("{} '{}': allowed: positive integers, comma-separated", what, text));
    v.push_back(x);
  }
  return v;
}

// The probes' GEMM operands (--data): pseudo-random values in [-0.5, 0.5),
// as HPL's matrix holds, or one constant. A GPU multiplies constants at a
// lower power draw than random values, so where its power limit binds it
// runs them at a higher clock: a probe on constants overstates the rate an
// LU's update can reach.
enum class Data { Random, Constant };

inline Data parse_data(const std::string& text) {
  if (text == "random") return Data::Random;
  if (text == "constant") return Data::Constant;
  throw UsageError(fmt::format("--data {}: allowed: random, constant", text));
}

inline const char* data_name(Data d) {
  return d == Data::Random ? "random" : "constant";
}

// Fills `count` operands of type T with `data`: the constant `value`, or
// one chunk of 2^22 values drawn from `seed`, scaled by `scale`; the chunk
// is made on the host and copied over the buffer, repeated.
template <class T>
void fill_operand(device::Queue& q, T* dst, long count, Data data, double value, double scale,
                  unsigned seed) {
  auto as_t = [](double v) {
    if constexpr (std::is_arithmetic_v<T>)
      return static_cast<T>(v);
    else
      return device::round_to<T>(static_cast<float>(v));
  };
  const long chunk = std::min(count, 1L << 22);
  std::vector<T> host(chunk, as_t(value));
  if (data == Data::Random) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> uniform(-0.5, 0.5);
    for (T& v : host) v = as_t(scale * uniform(engine));
  }
  for (long done = 0; done < count; done += chunk)
    device::copy(q, dst + done, host.data(), std::min(chunk, count - done));
  q.synchronize();
}

}  // namespace hplx::probe
