// Which OpenBLAS kernels hplx asks for on a CPU the library does not know.
#include "core/blas_core.hpp"

#include <gtest/gtest.h>

namespace {

using hplx::better_blas_core;
using hplx::CpuVectorUnits;

constexpr CpuVectorUnits kAvx512{true, true};
constexpr CpuVectorUnits kAvx2{true, false};
constexpr CpuVectorUnits kSse{false, false};

TEST(BlasCore, FallbackKernelsOnAnAvx512CpuGiveWayToSkylakeX) {
  // Debian 12's OpenBLAS 0.3.21 on an Emerald Rapids (family 6, model 207).
  EXPECT_EQ(better_blas_core("Prescott", kAvx512), "SkylakeX");
  EXPECT_EQ(better_blas_core("Nehalem", kAvx512), "SkylakeX");
  EXPECT_EQ(better_blas_core("Sandybridge", kAvx512), "SkylakeX");
  EXPECT_EQ(better_blas_core("Prescott  ", kAvx512), "SkylakeX");  // padded as printed
}

TEST(BlasCore, FallbackKernelsOnAnAvx2CpuGiveWayToHaswell) {
  EXPECT_EQ(better_blas_core("Prescott", kAvx2), "Haswell");
  EXPECT_EQ(better_blas_core("Core2", kAvx2), "Haswell");
}

TEST(BlasCore, AChoiceMadeKnowinglyStands) {
  // A core OpenBLAS recognised, even one below what the CPU could run (it
  // may know better, e.g. Zen on an AVX-512 AMD), and names this code has
  // never seen (a newer library's).
  for (const char* core :
       {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids", "Graniterapids", ""}) {
    EXPECT_EQ(better_blas_core(core, kAvx512), std::nullopt) << core;
  }
}

TEST(BlasCore, ACpuWithoutAvx2KeepsTheFallback) {
  EXPECT_EQ(better_blas_core("Prescott", kSse), std::nullopt);
}

// A FACT team over a pthreads OpenBLAS gets one line naming the fix; one
// thread, or an OpenMP or sequential build, gets none.
TEST(BlasCore, AFactTeamOverPthreadsOpenBlasIsNamed) {
  const std::string note = hplx::fact_team_blas_note(0, 1);
  EXPECT_NE(note.find("--fact-threads 0"), std::string::npos) << note;
  EXPECT_NE(note.find("pthreads"), std::string::npos) << note;
  EXPECT_NE(note.find("--fact-threads 1"), std::string::npos) << note;
  EXPECT_EQ(note.find('\n'), std::string::npos);
  EXPECT_EQ(hplx::fact_team_blas_note(1, 1), "");
  EXPECT_EQ(hplx::fact_team_blas_note(8, 2), "");
  EXPECT_EQ(hplx::fact_team_blas_note(8, 0), "");
  // This build links Debian's OpenMP OpenBLAS: no note for it.
  EXPECT_EQ(hplx::openblas_parallel(), 2);
}

TEST(BlasCore, NoNoteWithoutARestart) {
  // The tests run without hplx's restart: nothing to say.
  unsetenv("HPLX_OPENBLAS_CHOSE");
  EXPECT_EQ(hplx::blas_core_note(), "");
}

}  // namespace
