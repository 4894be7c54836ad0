// The host implementation of the device layer: memory is host memory,
// every queue runs its work on the calling thread before returning (BLAS
// from OpenBLAS with its threads, kernel bodies as OpenMP loops), events
// are complete when recorded. It is a real backend and the oracle the
// contract tests hold the others to. Schedules that overlap host work with
// queued work do it with worker threads (src/lu/pdgesv.cpp: FACT beside
// the update).
#pragma once

#include <memory>

#include "device/backend.hpp"

namespace hplx::device {

std::unique_ptr<Backend> make_host_backend();

// Host memory for large arrays: 64-byte aligned, on 2 MiB boundaries with
// transparent huge pages asked for from 4 MiB on (the row swaps touch one
// element per column: with 4 KiB pages that is one TLB miss each).
void* allocate_host(std::size_t bytes);
void free_host(void* p) noexcept;

// Host memory still available (the memory preflight of backends whose
// device memory is host memory).
std::size_t free_host_bytes();

}  // namespace hplx::device
