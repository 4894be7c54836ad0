#include "lu/phases/comm/row_swap.hpp"

#include <algorithm>
#include <type_traits>

#include "core/collectives.hpp"
#include "core/error.hpp"
#include "device/host_pass.hpp"
#include "device/launch.hpp"
#include "lu/kernels/row_kernels.hpp"

namespace hplx::lu {

RowSwapPlan plan_row_swaps(long k, int jb, const std::vector<long>& ipiv) {
  // The positions the swaps touch: the block's rows [k, k + jb) and, after
  // them, the other rows the pivots name, in order (a sorted vector, not a
  // map: every rank plans every panel, and at NB = 1024 the map's nodes made
  // this 15% of a profile of 512 simulated GPU ranks).
  std::vector<long> outside;
  for (int c = 0; c < jb; ++c)
    if (ipiv[c] < k || ipiv[c] >= k + jb) outside.push_back(ipiv[c]);
  std::sort(outside.begin(), outside.end());
  outside.erase(std::unique(outside.begin(), outside.end()), outside.end());
  auto slot = [&](long pos) {
    if (pos >= k && pos < k + jb) return static_cast<std::size_t>(pos - k);
    return jb + static_cast<std::size_t>(std::lower_bound(outside.begin(), outside.end(), pos) -
                                         outside.begin());
  };
  // content[slot(pos)] = the original row now at position pos.
  std::vector<long> content(jb + outside.size());
  for (int r = 0; r < jb; ++r) content[r] = k + r;
  std::copy(outside.begin(), outside.end(), content.begin() + jb);
  for (int c = 0; c < jb; ++c)
    if (ipiv[c] != k + c) std::swap(content[slot(k + c)], content[slot(ipiv[c])]);
  RowSwapPlan plan;
  plan.u_source.assign(content.begin(), content.begin() + jb);
  for (std::size_t i = 0; i < outside.size(); ++i) {
    // A position below the block can only receive a row of the block.
    const long pos = outside[i], orig = content[jb + i];
    if (pos >= k + jb && orig != pos) plan.moves.push_back({pos, static_cast<int>(orig - k)});
  }
  return plan;
}

SwapParams swap_params(const TestCase& t) {
  return {t.swap,         t.swap_threshold, t.schedule.modified_long_swap,
          t.u_transposed, t.equilibration,  t.schedule.device_mpi};
}

SwapAlgorithm effective_swap(const SwapParams& s, long local_columns) {
  if (s.algorithm != SwapAlgorithm::Mix) return s.algorithm;
  return local_columns > s.threshold ? SwapAlgorithm::Long : SwapAlgorithm::BinaryExchange;
}

SwapForm swap_form(const SwapParams& s, long local_columns, MPI_Comm second) {
  SwapForm form{effective_swap(s, local_columns), s.modified_long_swap, s.u_transposed,
                s.equilibrate, second};
  form.device_memory = s.device_memory;
  return form;
}

namespace {

// Whether the row copies on `backend` take the host's forms because their
// cost is modelled, not run: a simulation's charges for row copies were
// calibrated on the host's forms (column blocks, dlaswp in place, host
// staging), so a simulated device is charged as those.
bool charged_as_host_forms(const device::Backend& backend) {
  return !backend.holds_data();
}

}  // namespace

bool swaps_in_device_memory(bool asked, device::Backend& backend) {
  return asked && !backend.host_accessible(device::MemorySpace::Device) &&
         !charged_as_host_forms(backend);
}

namespace {

// Columns per index of the gather and scatter bodies on `q`: one on a
// device, kernels::kColumnBlock where the host's cores run the body or its
// cost is charged as theirs (charged_as_host_forms).
long row_copy_columns(const device::Queue& q) {
  return q.executes_on_host() || charged_as_host_forms(q.backend()) ? kernels::kColumnBlock : 1;
}

// `b`, grown to Device memory for at least `count` elements (reserved
// before a solve's timer starts: nothing grows while timed).
template <class T>
T* at_least(device::Buffer<T>& b, device::Backend& backend, long count) {
  if (b.size() < count) b = device::Buffer<T>(backend, count, device::MemorySpace::Device);
  return b.data();
}

// Below this many elements a copy is not worth waking the thread team.
constexpr long kParallelMin = 1L << 14;

// Launch indices of `cols` columns each below which a copy runs on one
// thread.
long grain(long cols) {
  return std::max(1L, kParallelMin / (2 * std::max(1L, cols)));
}

// Column blocks of SwapRowsInPlace (jb rows each) below which it runs on
// one thread.
long swap_grain(long m) {
  return std::max(1L, kParallelMin / (2 * kernels::kColumnBlock * std::max(1L, m)));
}

// The row list `rows` on the device side of `staged`, on q.
void stage_rows(device::Queue& q, const std::vector<long>& rows, device::Mirror<long>& staged) {
  staged.bind(q.backend());
  staged.resize(static_cast<long>(rows.size()));
  std::copy(rows.begin(), rows.end(), staged.data());
  staged.to_device(q);
}

// dst[i * nn + c] = a(rows[i], lc0 + c) for the m rows of the device list;
// `block`: they are adjacent rows of one block.
void gather_rows(device::Queue& q, const LocalMatrix& a, const device::Mirror<long>& rows, long lc0,
                 long nn, double* dst, bool block = false) {
  const long m = rows.size(), cols = row_copy_columns(q);
  device::launch(q, kernels::row_copy_indices(m, nn, cols),
                 kernels::GatherRows{a.at(0, lc0), a.lda(), rows.device(), m, nn, dst, block, cols},
                 grain(cols));
}

// a(rows[i], lc0 + c) = src[i * nn + c]
void scatter_rows(device::Queue& q, LocalMatrix& a, const device::Mirror<long>& rows, long lc0,
                  long nn, const double* src) {
  const long m = rows.size(), cols = row_copy_columns(q);
  device::launch(q, kernels::row_copy_indices(m, nn, cols),
                 kernels::ScatterRows{a.at(0, lc0), a.lda(), rows.device(), m, nn, src, cols},
                 grain(cols));
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) d[i] = d[i - 1] + counts[i - 1];
  return d;
}

}  // namespace

RowSwapInFlight::RowSwapInFlight(device::Queue& q, LocalMatrix& a, const Panel& p,
                                 const RowSwapPlan& plan, long lc0, long nn,
                                 const ProcessGrid& grid, SwapBuffers& buffers,
                                 const SwapForm& form)
    : q_(q),
      a_(a),
      p_(p),
      plan_(plan),
      lc0_(lc0),
      nn_(nn),
      grid_(grid),
      b_(buffers),
      second_(form.second == MPI_COMM_NULL ? grid.col() : form.second),
      roll_first_(form.roll_first),
      u_transposed_(form.u_transposed),
      device_memory_(swaps_in_device_memory(form.device_memory, q.backend())) {
  const int jb = p.jb, nprow = grid.nprow(), me = grid.myrow();
  b_.u.bind(q.backend());
  for (auto* h : {&b_.gathered, &b_.received, &b_.piece}) h->bind(q.backend());
  b_.u.resize(nn * jb);
  for (auto* m : {&b_.mine, &b_.outgoing, &b_.incoming}) m->bind(q.backend());
  long_ = form.algorithm == SwapAlgorithm::Long;
  equil_ = long_ && form.equilibrate && grid.nprow() > 1;
  if (jb == 0 || nn == 0) {
    stage_ = kDone;
    return;
  }
  const double pack_start = wall_time();
  const long lr0 = a.row_start(p.k);
  auto local_row = [&](long g) { return global_to_local(g, a.nb(), nprow); };
  auto owner = [&](long g) { return owner_of(g, a.nb(), nprow); };

  // U: every process packs the U rows it owns (before any row is
  // overwritten), ordered by process row, then by r.
  ucount_.assign(nprow, 0);
  std::vector<long> my_rows;
  for (int r = 0; r < jb; ++r) {
    const int o = owner(plan.u_source[r]);
    ucount_[o] += static_cast<int>(nn);
    if (o == me) my_rows.push_back(local_row(plan.u_source[r]));
  }
  b_.mine.resize(ucount_[me]);
  stage_rows(q, my_rows, b_.mine_rows);
  gather_rows(q, a, b_.mine_rows, lc0, nn, b_.mine.device());
  if (!device_memory_) b_.mine.to_host(q);
  q.synchronize();  // MPI reads the packed rows
  udisp_ = displacements(ucount_);
  copy_ += wall_time() - pack_start;

  timing_.start();
  MPI_Comm col = grid.col();
  reqs_.assign(2, MPI_REQUEST_NULL);
  // Spread-roll's order: netlib spreads (the displaced rows go out), then
  // rolls (U is assembled everywhere), one after the other. The modified
  // long swap (seed 003 5.2) rolls first: U goes out as soon as its rows are
  // packed, and the spread's rows are packed while it travels.
  if (equil_) plan_equilibration();
  if (roll_first_) post_first_u(reqs_[0]);
  const double spread_pack = wall_time();
  mcount_.assign(nprow, 0);
  for (const auto& m : plan.moves) mcount_[owner(m.to)] += static_cast<int>(nn);
  mdisp_ = displacements(mcount_);
  if (me == p.owner_row && !plan.moves.empty()) {
    // The old rows of the diagonal block that pivoting pushed below it go
    // from the diagonal block's process row to their new owners, packed by
    // owner (Scatterv's order), each owner's rows in plan order.
    std::vector<long> from;
    for (int o = 0; o < nprow; ++o)
      for (const auto& m : plan.moves)
        if (owner(m.to) == o) from.push_back(lr0 + m.from);
    b_.outgoing.resize(nn * static_cast<long>(plan.moves.size()));
    stage_rows(q, from, b_.out_rows);
    gather_rows(q, a, b_.out_rows, lc0, nn, b_.outgoing.device(), /*block=*/true);
    if (!device_memory_) b_.outgoing.to_host(q);
    q.synchronize();  // MPI reads the packed rows
  }
  const double packed = wall_time() - spread_pack;
  copy_ += packed;
  if (roll_first_) timing_.busy += packed;
  if (!plan.moves.empty()) {
    if (me == p.owner_row) {
      // The root's own rows stay where the gather put them (the outgoing rows'
      // device side, complete_stage_work), not copied to itself by MPI.
      iscatterv(mpi_side(b_.outgoing), mcount_.data(), mdisp_.data(), MPI_DOUBLE, MPI_IN_PLACE, 0,
                MPI_DOUBLE, p.owner_row, col, &reqs_[1]);
    } else {
      b_.incoming.resize(mcount_[me]);
      iscatterv(nullptr, nullptr, nullptr, MPI_DOUBLE, mpi_side(b_.incoming), mcount_[me],
                MPI_DOUBLE, p.owner_row, col, &reqs_[1]);
    }
  }
  if (!roll_first_) post_first_u(reqs_[0]);
}

// What goes out with the spread in stage 0: binary exchange's gather of U;
// the long swap's roll itself, when it goes first and needs no
// equilibration; with equilibration, the exchange that evens the pieces (the
// roll follows in stage 1, as it does in netlib's order without it).
void RowSwapInFlight::post_first_u(MPI_Request& req) {
  if (equil_) {
    double* received = device_memory_ ? b_.received_device.data() : b_.received.data();
    ialltoallv(mpi_side(b_.mine), scount_.data(), sdisp_.data(), MPI_DOUBLE, received,
               rcount_.data(), rdisp_.data(), MPI_DOUBLE, grid_.col(), &req);
  } else if (!long_ || roll_first_) {
    post_u(req);
  }
}

// Equilibration (HPL.dat line 30, long swap only): before the roll, the U
// rows are redistributed so that process row i holds rows
// [i jb / P, (i+1) jb / P) of U, equal pieces whatever rows pivoting chose,
// and the roll moves pieces of equal size. Pieces are ranges of r and the
// packed rows (mine) are in r order, so what goes to each process is contiguous in it.
void RowSwapInFlight::plan_equilibration() {
  const int nprow = grid_.nprow(), me = grid_.myrow(), jb = p_.jb;
  auto piece_of = [&](int r) {
    int i = static_cast<int>(static_cast<long>(r) * nprow / jb);
    while (piece_first(i + 1) <= r) ++i;  // integer rounding
    while (piece_first(i) > r) --i;
    return i;
  };
  scount_.assign(nprow, 0);
  rcount_.assign(nprow, 0);
  for (int r = 0; r < jb; ++r) {
    const int o = owner_of(plan_.u_source[r], a_.nb(), nprow), h = piece_of(r);
    if (o == me) scount_[h] += static_cast<int>(nn_);
    if (h == me) rcount_[o] += static_cast<int>(nn_);
  }
  sdisp_ = displacements(scount_);
  rdisp_ = displacements(rcount_);
  const long received = nn_ * (piece_first(me + 1) - piece_first(me));
  if (device_memory_)
    at_least(b_.received_device, q_.backend(), received);
  else
    b_.received.resize(static_cast<std::size_t>(received));
}

// The roll's pieces: process row i's piece, rows [piece_first(i),
// piece_first(i + 1)) of U.
void RowSwapInFlight::plan_roll() {
  const int nprow = grid_.nprow();
  pcount_.assign(nprow, 0);
  for (int i = 0; i < nprow; ++i)
    pcount_[i] = static_cast<int>((piece_first(i + 1) - piece_first(i)) * nn_);
  pdisp_ = displacements(pcount_);
}

long RowSwapInFlight::piece_first(int i) const {
  return static_cast<long>(i) * p_.jb / grid_.nprow();
}

// My piece of U in r order, from what the equilibration brought (grouped by
// sender, each sender's rows in r order).
void RowSwapInFlight::assemble_piece() {
  const int nprow = grid_.nprow(), me = grid_.myrow();
  std::vector<long> cursor(rdisp_.begin(), rdisp_.end());
  b_.piece.resize(b_.received.size());
  device::on_host(a_.backend(), device::HostPass::contiguous(static_cast<double>(b_.piece.size())),
                  [&] {
                    for (long r = piece_first(me); r < piece_first(me + 1); ++r) {
                      const int o = owner_of(plan_.u_source[r], a_.nb(), nprow);
                      std::copy_n(b_.received.data() + cursor[o], nn_,
                                  b_.piece.data() + (r - piece_first(me)) * nn_);
                      cursor[o] += nn_;
                    }
                  });
}

// Long: all processes of the column assemble U at once. Binary exchange:
// U meets on the diagonal block's process row, then goes down the column
// in a binomial tree (stage 1).
void RowSwapInFlight::post_u(MPI_Request& req) {
  if (device_memory_) return post_u_from_device(req);
  const std::size_t usize = static_cast<std::size_t>(nn_) * p_.jb;
  const int me = grid_.myrow();
  if (equil_) {  // the roll of equal pieces, in r order
    // Row r of U at r * nn: transposed U's own layout, so the roll lands in
    // it directly (see unpack_u).
    double* dst = b_.u.data();
    if (!u_transposed_) {
      b_.gathered.resize(usize);
      dst = b_.gathered.data();
    }
    plan_roll();
    place_own_part(b_.piece.data(), pcount_[me], dst + pdisp_[me]);
    iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dst, pcount_.data(), pdisp_.data(), MPI_DOUBLE,
                second_, &req);
  } else if (long_) {
    b_.gathered.resize(usize);
    MPI_Comm comm = roll_first_ ? grid_.col() : second_;
    place_own_part(b_.mine.data(), ucount_[me], b_.gathered.data() + udisp_[me]);
    iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b_.gathered.data(), ucount_.data(),
                udisp_.data(), MPI_DOUBLE, comm, &req);
  } else if (me == p_.owner_row) {
    b_.gathered.resize(usize);
    place_own_part(b_.mine.data(), ucount_[me], b_.gathered.data() + udisp_[me]);
    igatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b_.gathered.data(), ucount_.data(), udisp_.data(),
             MPI_DOUBLE, p_.owner_row, grid_.col(), &req);
  } else {
    igatherv(b_.mine.data(), ucount_[me], MPI_DOUBLE, b_.gathered.data(), ucount_.data(),
             udisp_.data(), MPI_DOUBLE, p_.owner_row, grid_.col(), &req);
  }
}

// post_u() with MPI on device memory: every collective gets this process's
// part from where MPI can read it (not in place, which would need a copy on
// the queue and a host wait for it). The equilibrated roll sends the pieces
// as the equilibration left them, grouped by sender (no assembly kernel and
// wait either); the unpacking kernel finds U's rows there (u_row_starts()).
void RowSwapInFlight::post_u_from_device(MPI_Request& req) {
  const int me = grid_.myrow();
  double* gathered = at_least(b_.gathered_device, q_.backend(), nn_ * p_.jb);
  if (equil_) {
    plan_roll();
    iallgatherv(b_.received_device.data(), pcount_[me], MPI_DOUBLE, gathered, pcount_.data(),
                pdisp_.data(), MPI_DOUBLE, second_, &req);
  } else if (long_) {
    iallgatherv(b_.mine.device(), ucount_[me], MPI_DOUBLE, gathered, ucount_.data(), udisp_.data(),
                MPI_DOUBLE, roll_first_ ? grid_.col() : second_, &req);
  } else {
    igatherv(b_.mine.device(), ucount_[me], MPI_DOUBLE, gathered, ucount_.data(), udisp_.data(),
             MPI_DOUBLE, p_.owner_row, grid_.col(), &req);
  }
}

// This process's own part of a gather, put in place before the collective
// runs in place (MPI would copy it there itself; the sim backend's MPI,
// SMPI, would do that copy for real where the rows are only shared pages).
void RowSwapInFlight::place_own_part(const double* mine, long count, double* at) {
  if (count <= 0) return;
  device::on_host(a_.backend(), device::HostPass::contiguous(static_cast<double>(count)),
                  [&] { std::copy_n(mine, count, at); });
}

// Where each row of U starts in the gathered rows (elements): grouped by
// owner (the gather's order), each owner's rows in r order; after an
// equilibrated roll, in r order where the pieces were assembled, else
// piece by piece, each piece grouped by sender as the equilibration
// delivered it (plan_equilibration's layout on every process).
std::vector<long> RowSwapInFlight::u_row_starts() const {
  const int jb = p_.jb, nprow = grid_.nprow();
  auto owner = [&](long r) { return owner_of(plan_.u_source[r], a_.nb(), nprow); };
  std::vector<long> starts(jb);
  if (equil_ && !device_memory_) {
    for (int r = 0; r < jb; ++r) starts[r] = r * nn_;
  } else if (equil_) {
    for (int h = 0; h < nprow; ++h) {
      long at = pdisp_[h];
      for (int o = 0; o < nprow; ++o)
        for (long r = piece_first(h); r < piece_first(h + 1); ++r)
          if (owner(r) == o) {
            starts[r] = at;
            at += nn_;
          }
    }
  } else {
    std::vector<long> cursor(udisp_.begin(), udisp_.end());
    for (int r = 0; r < jb; ++r) {
      starts[r] = cursor[owner(r)];
      cursor[owner(r)] += nn_;
    }
  }
  return starts;
}

void RowSwapInFlight::unpack_u() {
  if (device_memory_) return unpack_u_on_device();
  if (equil_ && u_transposed_) return;  // the roll wrote U in place
  const int jb = p_.jb;
  // Transposed U: whole rows copied; else a transpose, element by element.
  const double elements = static_cast<double>(nn_) * jb;
  device::on_host(
      a_.backend(),
      u_transposed_ ? device::HostPass::contiguous(elements) : device::HostPass::strided(elements),
      [&] { unpack_u_on_host(); });
}

void RowSwapInFlight::unpack_u_on_host() {
  const int jb = p_.jb;
  const std::vector<long> starts = u_row_starts();
  std::vector<const double*> rows(jb);
  for (int r = 0; r < jb; ++r) rows[r] = b_.gathered.data() + starts[r];
  if (u_transposed_) {
    for (int r = 0; r < jb; ++r) std::copy_n(rows[r], nn_, b_.u.data() + r * nn_);
    return;
  }
  // U is jb x nn column-major: a transpose of the rows, done eight rows at a
  // time so that each column of U is written a cache line at once.
  for (int r0 = 0; r0 < jb; r0 += kernels::kColumnBlock) {
    const int r1 = std::min<int>(jb, r0 + kernels::kColumnBlock);
    for (long c = 0; c < nn_; ++c) {
      double* dst = b_.u.data() + c * jb;
      for (int r = r0; r < r1; ++r) dst[r] = rows[r][c];
    }
  }
}

// U from the rows MPI brought to the device, by a gather on the queue: the
// gathered rows read as a matrix with unit leading dimension, row r of U
// starting at u_row_starts()[r] (transposed: U's rows contiguous; else U
// jb x nn column-major).
void RowSwapInFlight::unpack_u_on_device() {
  const int jb = p_.jb;
  const long cols = row_copy_columns(q_);
  stage_rows(q_, u_row_starts(), b_.u_rows);
  device::launch(q_, kernels::row_copy_indices(jb, nn_, cols),
                 kernels::GatherRows{b_.gathered_device.data(), 1, b_.u_rows.device(), jb, nn_,
                                     b_.u.device(), false, cols, u_transposed_ ? 0 : jb},
                 grain(cols));
}

void RowSwapInFlight::complete_stage() {
  const bool last = (long_ && roll_first_ && !equil_) || stage_ == 1;
  if (last) timing_.complete();
  const double copy_start = wall_time();
  complete_stage_work();
  if (stage_ == kDone && !device_memory_) b_.u.to_device(q_);  // U for the update, in queue order
  const double copied = wall_time() - copy_start;
  copy_ += copied;
  if (!last) timing_.busy += copied;
}

void RowSwapInFlight::complete_stage_work() {
  if (stage_ == 0) {
    // Rows that came down to this process take their new places.
    std::vector<long> to;
    const int me = grid_.myrow(), nprow = grid_.nprow();
    for (const auto& m : plan_.moves)
      if (owner_of(m.to, a_.nb(), nprow) == me) to.push_back(global_to_local(m.to, a_.nb(), nprow));
    stage_rows(q_, to, b_.in_rows);
    const double* rows = b_.incoming.device();
    if (me == p_.owner_row) {
      rows = b_.outgoing.device() + (to.empty() ? 0 : mdisp_[me]);
    } else if (!device_memory_) {
      b_.incoming.to_device(q_);
    }
    scatter_rows(q_, a_, b_.in_rows, lc0_, nn_, rows);
    if (long_ && roll_first_ && !equil_) {
      unpack_u();
      stage_ = kDone;
      return;
    }
    if (long_) {  // now the roll (netlib's order, or after equilibration)
      if (equil_ && !device_memory_) assemble_piece();
      reqs_.assign(1, MPI_REQUEST_NULL);
      post_u(reqs_[0]);
      stage_ = 1;
      return;
    }
    // With device memory the gathered rows go down the column as they are
    // and every process unpacks them on its queue: the root then need not
    // wait for an unpacking kernel before sending.
    if (me == p_.owner_row && !device_memory_) unpack_u();
    const std::size_t usize = static_cast<std::size_t>(nn_) * p_.jb;
    double* u = device_memory_ ? b_.gathered_device.data() : b_.u.data();
    reqs_.assign(1, MPI_REQUEST_NULL);
    ibcast(u, static_cast<int>(usize), MPI_DOUBLE, p_.owner_row, second_, &reqs_[0]);
    stage_ = 1;
    return;
  }
  if (long_ || device_memory_) unpack_u();
  stage_ = kDone;
}

bool RowSwapInFlight::progress() {
  while (stage_ != kDone) {
    if (!test_all_collectives(reqs_)) return false;
    complete_stage();
  }
  return true;
}

void RowSwapInFlight::finish() {
  while (stage_ != kDone) {
    const double t0 = wall_time();
    wait_all_collectives(reqs_);
    timing_.waited += wall_time() - t0;
    complete_stage();
  }
}

namespace {

// Rows of U one process row may hold in a swap: an even share and a
// quarter more (pivots fall on process rows about evenly), at most nb.
long share_rows(int nb, int nprow) {
  return std::min<long>(nb, (nb + nprow - 1) / nprow + nb / 4);
}

// The equilibrated pieces' rows (exact: equal ranges of U).
long piece_rows(int nb, int nprow) {
  return (nb + nprow - 1) / nprow;
}

template <class Array>
void reserve_touched(Array& array, long count) {
  array.resize(count);
  std::fill_n(array.data(), count, typename std::remove_reference_t<decltype(*array.data())>{});
  array.resize(0);
}

}  // namespace

void SwapBuffers::reserve(device::Backend& backend, long nn, int nb, int nprow,
                          const SwapParams& params) {
  if (nprow <= 1 || nn <= 0 || nb <= 0 || !backend.holds_data()) return;
  for (auto* m : {&u, &mine, &outgoing, &incoming}) m->bind(backend);
  for (auto* m : {&mine_rows, &out_rows, &in_rows}) m->bind(backend);
  for (auto* h : {&gathered, &received, &piece}) h->bind(backend);
  const bool long_possible = params.algorithm != SwapAlgorithm::BinaryExchange;
  const bool equil = long_possible && params.equilibrate;
  const bool gathers = params.algorithm != SwapAlgorithm::Long || !equil || !params.u_transposed;
  const long full = nn * nb, share = nn * share_rows(nb, nprow);
  reserve_touched(u, full);
  reserve_touched(outgoing, full);
  reserve_touched(mine, share);
  reserve_touched(incoming, share);
  for (auto* m : {&mine_rows, &out_rows, &in_rows}) reserve_touched(*m, nb);
  if (swaps_in_device_memory(params.device_memory, backend)) {
    // Every form gathers U's rows into Device memory and unpacks them there.
    at_least(gathered_device, backend, full);
    if (equil) at_least(received_device, backend, nn * piece_rows(nb, nprow));
    u_rows.bind(backend);
    reserve_touched(u_rows, nb);
    return;
  }
  if (gathers) reserve_touched(gathered, full);
  if (equil) {
    reserve_touched(received, nn * piece_rows(nb, nprow));
    reserve_touched(piece, nn * piece_rows(nb, nprow));
  }
}

double SwapBuffers::reserved_doubles(long nn, int nb, int nprow) {
  // Host forms: u, outgoing and gathered (full each), mine and incoming
  // (a share each), received and piece. With device memory the device holds
  // u, outgoing and gathered_device, mine, incoming and received_device:
  // one piece fewer, so this bounds both.
  if (nprow <= 1) return 0;
  const double n = static_cast<double>(nn);
  return n * (3.0 * nb + 2.0 * share_rows(nb, nprow) + 2.0 * piece_rows(nb, nprow));
}

SwapCost swap_rows(device::Queue& q, LocalMatrix& a, const Panel& p, const RowSwapPlan& plan,
                   long lc0, long nn, const ProcessGrid& grid, SwapBuffers& buffers,
                   const SwapForm& form) {
  SwapForm blocking = form;
  blocking.second = MPI_COMM_NULL;  // one swap at a time: grid.col() is fine
  RowSwapInFlight swap(q, a, p, plan, lc0, nn, grid, buffers, blocking);
  swap.finish();
  return {swap.copy_seconds(), swap.timing().waited};
}

void plan_row_swaps_on_device(device::Queue& q, const double* pivots, long k, int jb, long* plan) {
  if (jb <= 0) return;
  device::launch(q, jb, kernels::PivotSlots{pivots, k, jb, plan}, /*grain=*/64);
  device::launch(q, 1, kernels::ReplaySwaps{pivots, k, jb, plan});
}

namespace {

// Columns of one slab of the device's in-place swap: its rows in flight
// take 2 jb x kInPlaceSlab doubles (128 MiB at jb = 1024), whatever the
// matrix's width.
constexpr long kInPlaceSlab = 8192;

}  // namespace

void InPlaceSwapBuffers::reserve(device::Backend& backend, long nn, int nb) {
  if (nn <= 0 || nb <= 0 || !backend.holds_data() ||
      backend.host_accessible(device::MemorySpace::Device))
    return;
  at_least(plan, backend, kernels::plan_longs(nb));
  at_least(rows, backend, 2L * nb * std::min(nn, kInPlaceSlab));
}

void swap_rows_in_place(device::Queue& q, LocalMatrix& a, const Panel& p, long lc0, long nn,
                        InPlaceSwapBuffers* scratch) {
  if (nn <= 0 || p.jb <= 0) return;
  if (scratch == nullptr || charged_as_host_forms(q.backend()) ||
      q.backend().host_accessible(device::MemorySpace::Device)) {
    device::launch(q, kernels::column_blocks(nn),
                   kernels::SwapRowsInPlace{a.at(0, lc0), a.lda(), p.d_pivots(), p.k, p.jb, nn},
                   swap_grain(p.jb));
    return;
  }
  // Every row the interchanges touch is a source and a destination: all of
  // a slab's sources are read into the rows in flight before any is
  // written. At most 2 jb rows (U's jb and as many moves); *count says how
  // many.
  const int jb = p.jb;
  const long m = 2L * jb, width = std::min(nn, kInPlaceSlab), cols = row_copy_columns(q);
  long* plan = at_least(scratch->plan, q.backend(), kernels::plan_longs(jb));
  double* rows = at_least(scratch->rows, q.backend(), m * width);
  plan_row_swaps_on_device(q, p.d_pivots(), p.k, jb, plan);
  const kernels::PlanArrays lists(plan, jb);
  for (long c0 = 0; c0 < nn; c0 += width) {
    const long w = std::min(width, nn - c0);
    double* at = a.at(0, lc0 + c0);
    device::launch(
        q, kernels::row_copy_indices(m, w, cols),
        kernels::GatherRows{at, a.lda(), lists.source, m, w, rows, false, cols, m, lists.count},
        grain(cols));
    device::launch(q, kernels::row_copy_indices(m, w, cols),
                   kernels::ScatterRows{at, a.lda(), lists.dest, m, w, rows, cols, m, lists.count},
                   grain(cols));
  }
}

}  // namespace hplx::lu
