// The vocabulary of the device layer: memory spaces and BLAS operand forms.
#pragma once

namespace hplx::device {

// Where a buffer lives. Host: ordinary host memory. Pinned: host memory that
// a device copies to and from fastest (page-locked where the backend has a
// device; plain host memory otherwise), used for MPI staging. Device: the
// backend's own memory, reachable from the host only through a queue's
// copies (for the host backend it is host memory).
enum class MemorySpace { Host, Pinned, Device };

// Column-major BLAS operand forms (as in BLAS++).
enum class Trans { No, Yes };
enum class Side { Left, Right };
enum class Uplo { Lower, Upper };
enum class Diag { Unit, NonUnit };

}  // namespace hplx::device
