#include "lu/row_swap.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"

namespace hplx::lu {

RowSwapPlan plan_row_swaps(long k, int jb, const std::vector<long>& ipiv) {
  // content[pos] = the original row now at position pos (absent: itself).
  std::map<long, long> content;
  auto get = [&](long pos) {
    auto it = content.find(pos);
    return it == content.end() ? pos : it->second;
  };
  for (int c = 0; c < jb; ++c) {
    const long a = k + c, b = ipiv[c];
    if (a == b) continue;
    const long ca = get(a), cb = get(b);
    content[a] = cb;
    content[b] = ca;
  }
  RowSwapPlan plan;
  plan.u_source.resize(jb);
  for (int r = 0; r < jb; ++r) plan.u_source[r] = get(k + r);
  for (const auto& [pos, orig] : content) {
    // A position below the block can only receive a row of the block.
    if (pos >= k + jb && orig != pos) plan.moves.push_back({pos, static_cast<int>(orig - k)});
  }
  return plan;
}

SwapAlgorithm effective_swap(const TestCase& t, long local_columns) {
  if (t.swap != SwapAlgorithm::Mix) return t.swap;
  return local_columns > t.swap_threshold ? SwapAlgorithm::Long : SwapAlgorithm::BinaryExchange;
}

namespace {

void copy_row_out(const LocalMatrix& a, long li, long lc0, long nn, double* dst) {
  for (long c = 0; c < nn; ++c) dst[c] = *a.at(li, lc0 + c);
}

void copy_row_in(LocalMatrix& a, long li, long lc0, long nn, const double* src) {
  for (long c = 0; c < nn; ++c) *a.at(li, lc0 + c) = src[c];
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

}  // namespace

void swap_rows(LocalMatrix& a, const Panel& p, const RowSwapPlan& plan, long lc0, long nn,
               SwapAlgorithm algorithm, const ProcessGrid& grid, std::vector<double>& ut) {
  const int jb = p.jb, nprow = grid.nprow(), me = grid.myrow(), nb = a.nb();
  ut.assign(static_cast<std::size_t>(nn) * jb, 0.0);
  if (jb == 0 || nn == 0) return;
  const long lr0 = a.row_start(p.k);
  auto local_row = [&](long g) { return global_to_local(g, nb, nprow); };
  auto owner = [&](long g) { return owner_of(g, nb, nprow); };

  // 1. U: every process packs the U rows it owns (before any row is
  //    overwritten), ordered by process row, then by r.
  std::vector<int> ucount(nprow, 0);
  for (int r = 0; r < jb; ++r) ucount[owner(plan.u_source[r])] += static_cast<int>(nn);
  std::vector<double> mine(ucount[me]);
  for (int r = 0, pos = 0; r < jb; ++r) {
    if (owner(plan.u_source[r]) != me) continue;
    copy_row_out(a, local_row(plan.u_source[r]), lc0, nn, &mine[pos]);
    pos += static_cast<int>(nn);
  }
  std::vector<double> gathered;
  auto unpack_u = [&](const double* all) {
    const auto disp = displacements(ucount);
    std::vector<long> cursor(disp.begin(), disp.end());
    for (int r = 0; r < jb; ++r) {
      const int o = owner(plan.u_source[r]);
      std::copy_n(all + cursor[o], nn, &ut[static_cast<std::size_t>(r) * nn]);
      cursor[o] += nn;
    }
  };
  if (nprow == 1) {
    unpack_u(mine.data());
  } else if (algorithm == SwapAlgorithm::Long) {
    // Spread-roll: all processes of the column assemble U at once.
    gathered.resize(static_cast<std::size_t>(nn) * jb);
    const auto disp = displacements(ucount);
    HPLX_MPI_CHECK(MPI_Allgatherv(mine.data(), ucount[me], MPI_DOUBLE, gathered.data(),
                                  ucount.data(), disp.data(), MPI_DOUBLE, grid.col()));
    unpack_u(gathered.data());
  } else {
    // Binary exchange: U meets on the diagonal block's process row, then goes
    // down the column in a binomial tree.
    if (me == p.owner_row) gathered.resize(static_cast<std::size_t>(nn) * jb);
    const auto disp = displacements(ucount);
    HPLX_MPI_CHECK(MPI_Gatherv(mine.data(), ucount[me], MPI_DOUBLE, gathered.data(), ucount.data(),
                               disp.data(), MPI_DOUBLE, p.owner_row, grid.col()));
    if (me == p.owner_row) unpack_u(gathered.data());
    HPLX_MPI_CHECK(
        MPI_Bcast(ut.data(), static_cast<int>(nn * jb), MPI_DOUBLE, p.owner_row, grid.col()));
  }

  // 2. The old rows of the diagonal block that pivoting pushed below it go
  //    from the diagonal block's process row to their new owners.
  if (plan.moves.empty()) return;
  if (nprow == 1) {
    std::vector<double> row(nn);
    for (const auto& m : plan.moves) {
      copy_row_out(a, lr0 + m.from, lc0, nn, row.data());
      copy_row_in(a, local_row(m.to), lc0, nn, row.data());
    }
    return;
  }
  std::vector<int> mcount(nprow, 0);
  for (const auto& m : plan.moves) mcount[owner(m.to)] += static_cast<int>(nn);
  const auto mdisp = displacements(mcount);
  std::vector<double> outgoing;
  if (me == p.owner_row) {
    outgoing.resize(static_cast<std::size_t>(nn) * plan.moves.size());
    std::vector<long> cursor(mdisp.begin(), mdisp.end());
    for (const auto& m : plan.moves) {
      const int o = owner(m.to);
      copy_row_out(a, lr0 + m.from, lc0, nn, &outgoing[cursor[o]]);
      cursor[o] += nn;
    }
  }
  std::vector<double> incoming(mcount[me]);
  HPLX_MPI_CHECK(MPI_Scatterv(outgoing.data(), mcount.data(), mdisp.data(), MPI_DOUBLE,
                              incoming.data(), mcount[me], MPI_DOUBLE, p.owner_row, grid.col()));
  long pos = 0;
  for (const auto& m : plan.moves) {
    if (owner(m.to) != me) continue;
    copy_row_in(a, local_row(m.to), lc0, nn, &incoming[pos]);
    pos += nn;
  }
}

}  // namespace hplx::lu
