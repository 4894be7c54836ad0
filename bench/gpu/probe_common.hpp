// What the device probes (dgemm_probe.cpp, fact_probe.cpp) share: their
// list options and filling a device buffer.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "device/device.hpp"

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

// Fills a device buffer with a constant through a host copy, in chunks.
template <class T>
void fill(device::Queue& q, T* dst, long count, T value) {
  const long chunk = std::min(count, 1L << 22);
  const std::vector<T> host(chunk, value);
  for (long done = 0; done < count; done += chunk)
    device::copy(q, dst + done, host.data(), std::min(chunk, count - done));
  q.synchronize();
}

}  // namespace hplx::probe
