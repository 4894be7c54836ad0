// One multigrid V-cycle as the GMRES preconditioner, z = M^-1 r (as the
// reference's ComputeMG with forward Gauss-Seidel):
//   z = 0; one pre-smoothing sweep; coarse residual r_c = (r - A z) at the
//   coarse points only (fused residual + injection, seed 002 section
//   3.2.4); z_c = M_c^-1 r_c on the next level; z += P z_c (prolongation,
//   the transpose of injection); one post-smoothing sweep.
// The prolongation is fused into the post-smoother's first colour where the
// coarse points are that colour (the default ordering): its kernels add
// z_c before relaxing, the halo's packing adds it to the values sent
// (gs_sweep). The same iterates bit for bit; one launch less per level.
// Its time is then the post-smoother's (MotifStats::gs, where its bytes go
// too); MotifStats::prolongation keeps the unfused launches only (the
// lexicographic smoother, or orderings whose coarse points come later).
// On the coarsest level: z = 0 and one sweep. M is a fixed linear operator.
// Where the queue can capture (a GPU, the emulated device) and the rank
// has no neighbours (one rank: no halo needs the host between kernels),
// the V-cycle's launches for an (r, z) pair are captured once and then
// replayed as one graph (a CUDA Graph), each motif still timed by the
// replay's events; with a trace (whose spans need the host's clock) the
// launches are direct.
// The matrices of all levels live in precision T (the float copies are
// made here; the double ones are the problem's own). Vectors and matrices
// are device buffers; every kernel runs on the Device's compute queue.
#pragma once

#include <mpi.h>

#include <map>
#include <utility>
#include <vector>

#include "device/queue.hpp"
#include "mxp/ell_matrix.hpp"
#include "mxp/halo.hpp"
#include "mxp/motif_stats.hpp"
#include "mxp/problem.hpp"

namespace hplx::mxp {

template <class T>
class Multigrid {
 public:
  // Keeps pointers into `problem` and `dev`, which must outlive this object.
  Multigrid(device::Device& dev, const Problem& problem, MPI_Comm comm);
  Multigrid(const Multigrid&) = delete;
  Multigrid& operator=(const Multigrid&) = delete;

  int levels() const { return static_cast<int>(a_.size()); }
  const EllMatrix<T>& matrix(int level) const { return *a_[level]; }
  const ColorOrdering& ordering(int level) const { return problem_->levels[level].order; }
  HaloExchange<T>& halo(int level) { return halo_[level]; }
  device::Queue& queue() const { return dev_->compute(); }

  // z = M^-1 r on the fine grid (device pointers); z needs
  // matrix(0).columns() entries.
  void apply(const T* r, T* z, MotifStats* stats);

  // Whether the prolongation is fused into the post-smoother where it can
  // be (the default); off: its own launch on every level (the tests compare).
  void set_fused_prolongation(bool on) {
    fuse_prolongation_ = on;
    graphs_.clear();
  }
  bool fused_prolongation() const { return fuse_prolongation_; }

  // Whether V-cycles are captured and replayed where they can be (the
  // default; --graphs off: direct launches everywhere), and whether
  // apply() replays one now, with these stats.
  void set_graphs(bool on) {
    use_graphs_ = on;
    graphs_.clear();
  }
  bool replays(const MotifStats* stats) const;
  // The graphs captured so far (one per (r, z) pair applied).
  std::size_t graphs() const { return graphs_.size(); }

 private:
  void run_cycle(const T* r, T* z, MotifStats* stats);
  void cycle(int level, const T* r, T* z, MotifStats* stats);

  // A V-cycle's launches for one (r, z), and the motif counts and timed
  // events that capture recorded (MotifStats::replayed).
  struct CapturedCycle {
    device::GraphPtr graph;
    MotifStats stats;
  };

  device::Device* dev_;
  const Problem* problem_;
  std::vector<EllMatrix<T>> owned_;
  std::vector<const EllMatrix<T>*> a_;
  std::vector<HaloExchange<T>> halo_;
  std::vector<device::Buffer<T>> rc_, zc_;  // per level; unused on level 0
  bool fuse_prolongation_ = true;
  bool use_graphs_ = true;
  std::map<std::pair<const T*, const T*>, CapturedCycle> graphs_;
};

// r_c[f2c[i]] = r[i] - (A z)[i] for the fine rows i in [begin, end) (rows
// of the coarse block, the coarse points), on q.
template <class T>
void restrict_residual_rows(device::Queue& q, const EllMatrix<T>& a, const int* f2c, const T* r,
                            const T* z, T* rc, long begin, long end,
                            KernelPath path = KernelPath::Best);

// The same for every coarse row i < nc (r_c[i] from fine row c2f[i]), for
// an ordering whose coarse points are not one block (lexicographic).
template <class T>
void restrict_residual_gather(device::Queue& q, const EllMatrix<T>& a, const int* c2f, long nc,
                              const T* r, const T* z, T* rc);

// z[c2f[i]] += z_c[i] for every coarse row i < nc.
template <class T>
void prolongate(device::Queue& q, const int* c2f, long nc, const T* zc, T* z);

extern template class Multigrid<float>;
extern template class Multigrid<double>;

}  // namespace hplx::mxp
