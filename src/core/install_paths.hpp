// Where hplx's data files (the examples: HPL.dat files, system specs) are
// found, relative to the running binary so that nothing compiled in names a
// build or install directory: <prefix>/bin/hplx reads <prefix>/share/hplx.
// The build tree has the same layout (CMake links build/share/hplx/examples
// to the source's examples/), so build/bin/hplx finds them too. Header-only:
// src/model uses it without linking the MPI-bound core library.
#pragma once

#include <filesystem>
#include <string>

namespace hplx {

// The running binary (/proc/self/exe, symlinks resolved); "" when unknown.
inline std::string executable_path() {
  std::error_code ec;
  const auto p = std::filesystem::canonical("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// <directory of the binary>/../share/hplx; "" when the binary is unknown.
inline std::string data_dir() {
  const std::string exe = executable_path();
  if (exe.empty()) return {};
  const auto prefix = std::filesystem::path(exe).parent_path().parent_path();
  return (prefix / "share" / "hplx").string();
}

// data_dir() + "/examples"; "" when unknown.
inline std::string examples_dir() {
  const std::string d = data_dir();
  return d.empty() ? d : d + "/examples";
}

}  // namespace hplx
