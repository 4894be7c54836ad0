// One multigrid V-cycle as the GMRES preconditioner, z = M^-1 r (as the
// reference's ComputeMG with forward Gauss-Seidel):
//   z = 0; one pre-smoothing sweep; coarse residual r_c = (r - A z) at the
//   coarse points only (fused residual + injection, seed 002 section
//   3.2.4); z_c = M_c^-1 r_c on the next level; z += P z_c (prolongation,
//   the transpose of injection); one post-smoothing sweep.
// On the coarsest level: z = 0 and one sweep. M is a fixed linear operator.
// The matrices of all levels live in precision T (the float copies are
// made here; the double ones are the problem's own).
#pragma once

#include <mpi.h>

#include <vector>

#include "mxp/ell_matrix.hpp"
#include "mxp/halo.hpp"
#include "mxp/motif_stats.hpp"
#include "mxp/problem.hpp"

namespace hplx::mxp {

template <class T>
class Multigrid {
 public:
  // Keeps pointers into `problem`, which must outlive this object.
  Multigrid(const Problem& problem, MPI_Comm comm);
  Multigrid(const Multigrid&) = delete;
  Multigrid& operator=(const Multigrid&) = delete;

  int levels() const { return static_cast<int>(a_.size()); }
  const EllMatrix<T>& matrix(int level) const { return *a_[level]; }
  const ColorOrdering& ordering(int level) const { return problem_->levels[level].order; }
  HaloExchange<T>& halo(int level) { return halo_[level]; }

  // z = M^-1 r on the fine grid; z needs matrix(0).columns() entries.
  void apply(const T* r, T* z, MotifStats* stats);

 private:
  void cycle(int level, const T* r, T* z, MotifStats* stats);

  const Problem* problem_;
  std::vector<EllMatrix<T>> owned_;
  std::vector<const EllMatrix<T>*> a_;
  std::vector<HaloExchange<T>> halo_;
  std::vector<std::vector<T>> rc_, zc_;  // per level; unused on level 0
};

// r_c[fine_to_coarse[i]] = r[i] - (A z)[i] for the fine rows i in [begin, end)
// (rows of the coarse block, the coarse points).
template <class T>
void restrict_residual_rows(const EllMatrix<T>& a, const std::vector<int>& fine_to_coarse,
                            const T* r, const T* z, T* rc, long begin, long end);

// The same for every coarse row i (r_c[i] from fine row coarse_to_fine[i]),
// for an ordering whose coarse points are not one block (lexicographic).
template <class T>
void restrict_residual_gather(const EllMatrix<T>& a, const std::vector<int>& coarse_to_fine,
                              const T* r, const T* z, T* rc);

// z[coarse_to_fine[i]] += z_c[i] for every coarse row i.
template <class T>
void prolongate(const std::vector<int>& coarse_to_fine, const T* zc, T* z);

extern template class Multigrid<float>;
extern template class Multigrid<double>;

}  // namespace hplx::mxp
