// Reading a file the user named (core/input_file.hpp): the text, or a
// one-line refusal that says "is a folder" or "cannot read" and why. The
// tests run as root in CI, where permissions do not make a file
// unreadable, so the failures are ones root meets too: a missing file, a
// path through a file (ENOTDIR), and /proc/self/mem, which opens but whose
// first page reads as EIO.
#include "core/input_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace {

std::string refusal(const std::string& path) {
  try {
    hplx::read_input_file(path, "a test file");
  } catch (const hplx::UsageError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  return "(read)";
}

TEST(ReadInputFile, ReadsTheWholeFile) {
  const std::string path = ::testing::TempDir() + "hplx_input_file.txt";
  std::string text(200000, 'x');
  text += "\nend\n";
  std::ofstream(path) << text;
  EXPECT_EQ(hplx::read_input_file(path, "a test file"), text);
  std::filesystem::remove(path);
}

TEST(ReadInputFile, AFolderIsAFolder) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(refusal(dir), dir + ": is a folder; allowed: a test file");
}

TEST(ReadInputFile, CannotReadSaysWhy) {
  EXPECT_EQ(refusal("/nonexistent/x.dat"),
            "/nonexistent/x.dat: cannot read: No such file or directory; allowed: a test file");
  const std::string file = ::testing::TempDir() + "hplx_input_file_parent";
  std::ofstream(file) << "a file, not a folder\n";
  EXPECT_EQ(refusal(file + "/x.dat"),
            file + "/x.dat: cannot read: Not a directory; allowed: a test file");
  std::filesystem::remove(file);
  EXPECT_EQ(refusal("/proc/self/mem"),
            "/proc/self/mem: cannot read: Input/output error; allowed: a test file");
}

}  // namespace
