#pragma once
// OpenBLAS's kernels for a CPU it does not know.
//
// An OpenBLAS built for every x86 (DYNAMIC_ARCH, as Debian's) picks its
// kernels from the CPU's family and model when it is loaded. A CPU newer
// than the library gets its generic Prescott (SSE3) kernels: Debian 12's
// OpenBLAS 0.3.21 on an Emerald Rapids (family 6, model 207) ran DGEMM at
// 31 Gflop/s on 2 cores, at 155 with OPENBLAS_CORETYPE=SkylakeX (hplx's
// DGEMM probe, 2026-11-26). The library reads OPENBLAS_CORETYPE once, when
// it is loaded, so a program that wants other kernels starts again with it
// set; hplx does so first thing in main(), before MPI starts, unless the
// user set OPENBLAS_CORETYPE.
#include <optional>
#include <string>
#include <string_view>

namespace hplx {

// The instruction sets that decide which OpenBLAS kernels a CPU can run.
struct CpuVectorUnits {
  bool avx2_fma = false;  // AVX2 and FMA: OpenBLAS's Haswell kernels
  bool avx512 = false;    // AVX-512 F, DQ, BW and VL: its SkylakeX kernels
};

// This CPU's, from cpuid.
CpuVectorUnits cpu_vector_units();

// The core type to ask OpenBLAS for, when the one it chose (`chosen`, its
// openblas_get_corename()) is a pre-AVX2 fallback and the CPU has better
// units; nullopt when the choice stands (any core OpenBLAS chose knowingly,
// including names this function does not know).
std::optional<std::string> better_blas_core(std::string_view chosen, const CpuVectorUnits& cpu);

// Call first in main(), before MPI_Init: when OPENBLAS_CORETYPE is unset and
// better_blas_core() names a core, executes this program again with
// OPENBLAS_CORETYPE set to it (and returns only if that fails).
void restart_with_better_blas_core(char** argv);

// After such a restart, one line saying what hplx set and why; empty
// otherwise.
std::string blas_core_note();

// A FACT team (--fact-threads other than 1) calls BLAS from each of its
// threads at once. An OpenMP build of OpenBLAS then runs each call on the
// calling thread; a pthreads build (`openblas_parallel` 1, as
// openblas_get_parallel() says) also starts its own threads for each, and
// the team oversubscribes the cores (OpenBLAS advises one thread per call in
// a threaded program). On a 16-core GPU machine with Ubuntu's pthreads
// OpenBLAS, `--fact-threads 0` runs did not finish in 100 s where one
// thread took 20 (docs/GPU.md; the cause not measured there). One line
// saying so; empty otherwise.
std::string fact_team_blas_note(int fact_threads, int openblas_parallel);

// This process's OpenBLAS's threading: 0 sequential, 1 pthreads, 2 OpenMP.
int openblas_parallel();

}  // namespace hplx
