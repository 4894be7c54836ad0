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

// Row copies between the column-major matrix and row-contiguous buffers,
// column by column: each column is read top to bottom once, so the matrix
// streams through the cache in memory order (a row-at-a-time loop touches
// one cache line, and often one TLB page, per element). The buffer side,
// jb rows of one column, stays in L1 across consecutive columns.

// Below this many elements a copy is not worth waking the thread team.
constexpr long kParallelMin = 1L << 14;

// dst[i * nn + c] = a(rows[i], lc0 + c)
void gather_rows(const LocalMatrix& a, const std::vector<long>& rows, long lc0, long nn,
                 double* dst) {
  const long m = static_cast<long>(rows.size());
#pragma omp parallel for schedule(static) if (m * nn > kParallelMin)
  for (long c = 0; c < nn; ++c) {
    const double* col = a.at(0, lc0 + c);
    for (long i = 0; i < m; ++i) dst[i * nn + c] = col[rows[i]];
  }
}

// a(rows[i], lc0 + c) = src[i * nn + c]
void scatter_rows(LocalMatrix& a, const std::vector<long>& rows, long lc0, long nn,
                  const double* src) {
  const long m = static_cast<long>(rows.size());
#pragma omp parallel for schedule(static) if (m * nn > kParallelMin)
  for (long c = 0; c < nn; ++c) {
    double* col = a.at(0, lc0 + c);
    for (long i = 0; i < m; ++i) col[rows[i]] = src[i * nn + c];
  }
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
  const std::size_t usize = static_cast<std::size_t>(nn) * jb;
  if (ut.size() < usize) ut.resize(usize);
  if (jb == 0 || nn == 0) return;
  const long lr0 = a.row_start(p.k);
  auto local_row = [&](long g) { return global_to_local(g, nb, nprow); };
  auto owner = [&](long g) { return owner_of(g, nb, nprow); };

  // 1. U: every process packs the U rows it owns (before any row is
  //    overwritten), ordered by process row, then by r.
  if (nprow == 1) {
    std::vector<long> rows(jb);
    for (int r = 0; r < jb; ++r) rows[r] = local_row(plan.u_source[r]);
    gather_rows(a, rows, lc0, nn, ut.data());
  } else {
    std::vector<int> ucount(nprow, 0);
    std::vector<long> my_rows;
    for (int r = 0; r < jb; ++r) {
      const int o = owner(plan.u_source[r]);
      ucount[o] += static_cast<int>(nn);
      if (o == me) my_rows.push_back(local_row(plan.u_source[r]));
    }
    std::vector<double> mine(ucount[me]);
    gather_rows(a, my_rows, lc0, nn, mine.data());
    const auto disp = displacements(ucount);
    auto unpack_u = [&](const double* all) {
      std::vector<long> cursor(disp.begin(), disp.end());
      for (int r = 0; r < jb; ++r) {
        const int o = owner(plan.u_source[r]);
        std::copy_n(all + cursor[o], nn, &ut[static_cast<std::size_t>(r) * nn]);
        cursor[o] += nn;
      }
    };
    std::vector<double> gathered;
    if (algorithm == SwapAlgorithm::Long) {
      // Spread-roll: all processes of the column assemble U at once.
      gathered.resize(usize);
      HPLX_MPI_CHECK(MPI_Allgatherv(mine.data(), ucount[me], MPI_DOUBLE, gathered.data(),
                                    ucount.data(), disp.data(), MPI_DOUBLE, grid.col()));
      unpack_u(gathered.data());
    } else {
      // Binary exchange: U meets on the diagonal block's process row, then
      // goes down the column in a binomial tree.
      if (me == p.owner_row) gathered.resize(usize);
      HPLX_MPI_CHECK(MPI_Gatherv(mine.data(), ucount[me], MPI_DOUBLE, gathered.data(),
                                 ucount.data(), disp.data(), MPI_DOUBLE, p.owner_row, grid.col()));
      if (me == p.owner_row) unpack_u(gathered.data());
      HPLX_MPI_CHECK(
          MPI_Bcast(ut.data(), static_cast<int>(usize), MPI_DOUBLE, p.owner_row, grid.col()));
    }
  }

  // 2. The old rows of the diagonal block that pivoting pushed below it go
  //    from the diagonal block's process row to their new owners.
  if (plan.moves.empty()) return;
  if (nprow == 1) {
    std::vector<long> from, to;
    for (const auto& m : plan.moves) {
      from.push_back(lr0 + m.from);
      to.push_back(local_row(m.to));
    }
    const long m = static_cast<long>(from.size());
#pragma omp parallel for schedule(static) if (m * nn > kParallelMin)
    for (long c = 0; c < nn; ++c) {
      double* col = a.at(0, lc0 + c);
      for (long i = 0; i < m; ++i) col[to[i]] = col[from[i]];
    }
    return;
  }
  std::vector<int> mcount(nprow, 0);
  for (const auto& m : plan.moves) mcount[owner(m.to)] += static_cast<int>(nn);
  const auto mdisp = displacements(mcount);
  std::vector<double> outgoing;
  if (me == p.owner_row) {
    // Packed by owning process row (Scatterv's order), each owner's rows in
    // plan order, which is the order the owner unpacks them in.
    std::vector<long> from;
    for (int o = 0; o < nprow; ++o)
      for (const auto& m : plan.moves)
        if (owner(m.to) == o) from.push_back(lr0 + m.from);
    outgoing.resize(static_cast<std::size_t>(nn) * plan.moves.size());
    gather_rows(a, from, lc0, nn, outgoing.data());
  }
  std::vector<double> incoming(mcount[me]);
  HPLX_MPI_CHECK(MPI_Scatterv(outgoing.data(), mcount.data(), mdisp.data(), MPI_DOUBLE,
                              incoming.data(), mcount[me], MPI_DOUBLE, p.owner_row, grid.col()));
  std::vector<long> to;
  for (const auto& m : plan.moves)
    if (owner(m.to) == me) to.push_back(local_row(m.to));
  scatter_rows(a, to, lc0, nn, incoming.data());
}

void swap_rows_in_place(LocalMatrix& a, const Panel& p, long lc0, long nn) {
#pragma omp parallel for schedule(static) if (p.jb * nn > kParallelMin)
  for (long c = 0; c < nn; ++c) {
    double* col = a.at(0, lc0 + c);
    for (int i = 0; i < p.jb; ++i) {
      const long r = p.ipiv[i];
      if (r != p.k + i) std::swap(col[p.k + i], col[r]);
    }
  }
}

}  // namespace hplx::lu
