// Kernel bodies are written once and compile for the host and the device:
// a copyable type whose `HPLX_HD void operator()(long i) const` does the
// work of index i (launch.hpp runs it over [0, n) on a queue). Bodies hold
// plain pointers into the queue's memory and sizes, nothing else.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)  // nvcc, hipcc
#define HPLX_HD __host__ __device__
#else
#define HPLX_HD
#endif
