#include "lu/checkpoint/checkpointer.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "device/queue.hpp"

namespace hplx::lu {
namespace {

static_assert(std::is_trivially_copyable_v<PhaseTimes>);
static_assert(std::is_trivially_copyable_v<IterationTimes>);

void make_folder(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    throw SystemError(fmt::format("{}: cannot make the folder: {}", path, std::strerror(errno)));
}

std::string trailing_name(long test, long column) {
  return fmt::format("{}-trailing-{}.bin", test + 1, column);
}
std::string state_name(long test, long column) {
  return fmt::format("{}-state-{}.bin", test + 1, column);
}

}  // namespace

std::vector<double> pack(const LoopState& s) {
  const std::size_t bytes =
      3 * sizeof(double) + sizeof(PhaseTimes) + s.iterations.size() * sizeof(IterationTimes);
  std::vector<double> blob((bytes + sizeof(double) - 1) / sizeof(double), 0.0);
  auto* p = reinterpret_cast<char*>(blob.data());
  const double head[3] = {static_cast<double>(s.column), static_cast<double>(s.info),
                          static_cast<double>(s.iterations.size())};
  std::memcpy(p, head, sizeof head);
  std::memcpy(p + sizeof head, &s.times, sizeof(PhaseTimes));
  if (!s.iterations.empty())
    std::memcpy(p + sizeof head + sizeof(PhaseTimes), s.iterations.data(),
                s.iterations.size() * sizeof(IterationTimes));
  return blob;
}

LoopState unpack(const std::vector<double>& blob, const std::string& what) {
  const std::size_t have = blob.size() * sizeof(double);
  double head[3];
  if (have < sizeof head + sizeof(PhaseTimes))
    throw UsageError(fmt::format("{}: {} bytes, too short for a rank's state", what, have));
  const auto* p = reinterpret_cast<const char*>(blob.data());
  std::memcpy(head, p, sizeof head);
  LoopState s;
  s.column = static_cast<long>(head[0]);
  s.info = static_cast<long>(head[1]);
  const auto count = static_cast<std::size_t>(head[2]);
  if (head[2] < 0 || have < sizeof head + sizeof(PhaseTimes) + count * sizeof(IterationTimes))
    throw UsageError(fmt::format("{}: its record of {} iterations does not fit its {} bytes", what,
                                 head[2], have));
  std::memcpy(&s.times, p + sizeof head, sizeof(PhaseTimes));
  s.iterations.resize(count);
  if (count)
    std::memcpy(s.iterations.data(), p + sizeof head + sizeof(PhaseTimes),
                count * sizeof(IterationTimes));
  return s;
}

CheckpointMatrix checkpoint_view(LocalMatrix& a) {
  CheckpointMatrix m;
  m.data = a.data();
  m.element = sizeof(double);
  m.rows = a.mp();
  m.cols = a.nq();
  m.ld = a.lda();
  m.nb = a.nb();
  m.mycol = a.mycol();
  m.npcol = a.npcol();
  m.backend = &a.backend();
  return m;
}

Checkpointer::Checkpointer(const CheckpointPlan& plan, device::Device& dev,
                           const CheckpointMatrix& a, MPI_Comm comm, double solve_start)
    : plan_(plan), dev_(dev), a_(a), solve_start_(solve_start), last_(wall_time()) {
  HPLX_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
  MPI_Comm_rank(comm_, &rank_);
  // The world's rank names the folder: a resumed run checks it against the
  // same world.
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size_);
  make_folder(plan_.dir);
  rank_folder_name_ = rank_folder(world_rank_);
  folder_ = plan_.dir + "/" + rank_folder_name_;
  make_folder(folder_);
  // A resumed run's finished columns are in the checkpoint it read; its
  // manifests name those files again.
  done_local_ = a_.col_start(plan_.start_column);
  done_files_ = plan_.done_files;
}

Checkpointer::~Checkpointer() {
  if (writer_.joinable()) writer_.join();
  if (request_ != MPI_REQUEST_NULL) MPI_Request_free(&request_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

bool Checkpointer::due() {
  int reduced[2] = {0, 0};
  bool current = false;  // the reduction completed now was posted after the last save
  if (request_ != MPI_REQUEST_NULL) {
    HPLX_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
    reduced[0] = flags_[0], reduced[1] = flags_[1];
    current = posted_after_save_;
  }
  flags_[0] = wall_time() - last_ >= plan_.every_s ? 1 : 0;
  flags_[1] = writing_.load() ? 1 : 0;
  HPLX_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, flags_, 2, MPI_INT, MPI_MAX, comm_, &request_));
  posted_after_save_ = true;
  if (!current) return false;
  // Every rank's files of the checkpoint on its way are written: its
  // manifest now (every rank saw the same reduction).
  if (pending_ && reduced[1] == 0) commit();
  return reduced[0] != 0 && !pending_;
}

void Checkpointer::write_files(long column, const char* host, std::size_t pitch, long done_from,
                               long trailing_from, std::vector<double> state) {
  const double start = wall_time();
  const std::string prefix = rank_folder_name_ + "/";
  const long test = plan_.identity.test_index;
  long long bytes = 0;
  auto named = [&](FileDigest d) {
    d.name = prefix + d.name;
    bytes += d.bytes;
    return d;
  };
  const std::size_t column_bytes = a_.column_bytes();
  if (trailing_from > done_from)
    done_files_.push_back(named(
        write_columns(folder_, fmt::format("{}-done-{}-{}.bin", test + 1, done_from, trailing_from),
                      host + done_from * pitch, column_bytes, trailing_from - done_from, pitch)));
  std::vector<FileDigest> files = done_files_;
  files.push_back(
      named(write_columns(folder_, trailing_name(test, column), host + trailing_from * pitch,
                          column_bytes, a_.cols - trailing_from, pitch)));
  const std::size_t words = state.size() * sizeof(double);
  files.push_back(
      named(write_columns(folder_, state_name(test, column), state.data(), words, 1, words)));
  next_files_ = std::move(files);
  next_cost_.write_s = wall_time() - start;
  next_cost_.bytes = bytes;
}

void Checkpointer::save(const LoopState& s) {
  const double start = wall_time();
  if (pending_) commit();  // the previous one's files first (collective: pending_ is)
  const long trailing_from = a_.col_start(s.column);
  const long from = done_local_;
  next_ = plan_.identity;
  next_.column = s.column;
  next_.info = s.info;
  next_cost_ = CheckpointCost{};
  next_cost_.column = s.column;
  std::vector<double> state = pack(s);
  pending_ = true;
  if (a_.host_accessible()) {
    write_files(s.column, a_.column(0), a_.pitch(), from, trailing_from, std::move(state));
  } else {
    // The copy on the transfer queue after the update so far, the update
    // after it; the files written beside the next iterations.
    const std::size_t column_bytes = a_.column_bytes();
    if (!staging_.data())
      staging_ = device::Buffer<char>(*a_.backend, static_cast<long>(column_bytes) * a_.cols,
                                      device::MemorySpace::Pinned);
    device::Queue& transfer = dev_.transfer();
    transfer.wait(dev_.compute().record());
    char* host = staging_.data();
    if (a_.cols > from && column_bytes > 0)
      transfer.copy_columns(host + from * column_bytes, column_bytes, a_.column(from), a_.pitch(),
                            column_bytes, a_.cols - from);
    device::EventPtr copied = transfer.record();
    dev_.compute().wait(copied);
    writing_ = true;
    writer_ = std::thread([this, copied, host, column_bytes, from, trailing_from, column = s.column,
                           state = std::move(state)]() mutable {
      try {
        copied->synchronize();
        write_files(column, host, column_bytes, from, trailing_from, std::move(state));
      } catch (...) {
        writer_error_ = std::current_exception();
      }
      writing_ = false;
    });
  }
  done_local_ = trailing_from;
  next_seconds_ = wall_time() - solve_start_;
  next_cost_.stall_s = wall_time() - start;
  last_ = wall_time();
  posted_after_save_ = false;
  if (a_.host_accessible()) commit();
}

void Checkpointer::commit() {
  if (writer_.joinable()) writer_.join();
  // A rank that could not write stops every rank, naming why on itself.
  int failed = writer_error_ ? 1 : 0;
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm_));
  if (writer_error_) std::rethrow_exception(writer_error_);
  if (failed) throw Error("another rank could not write its checkpoint files (it says why)");
  double figures[3] = {next_seconds_, next_cost_.stall_s, next_cost_.write_s};
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, figures, 3, MPI_DOUBLE, MPI_MAX, comm_));
  long long bytes = next_cost_.bytes;
  HPLX_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_LONG_LONG, MPI_SUM, comm_));
  next_cost_.stall_s = figures[1];
  next_cost_.write_s = figures[2];
  next_cost_.bytes = bytes;
  // Every rank's file list, on rank 0, by world rank.
  std::vector<std::vector<FileDigest>> lists = gather_files();
  if (rank_ == 0) {
    next_.files = std::move(lists);
    next_.segments = plan_.segments_before;
    next_.segments.push_back({plan_.start_column, next_.column, figures[0]});
    next_.seconds = plan_.seconds_before + figures[0];
    next_.checkpoint_seconds = figures[1];
    write_manifest(plan_.dir, next_);
  }
  costs_.push_back(next_cost_);
  committed_.push_back(next_.column);
  pending_ = false;
  remove_old();
}

std::vector<std::vector<FileDigest>> Checkpointer::gather_files() const {
  const std::string mine =
      nlohmann::json{{"rank", world_rank_}, {"files", to_json(next_files_)}}.dump();
  int size = 1;
  MPI_Comm_size(comm_, &size);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  HPLX_MPI_CHECK(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_));
  long total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(total);
    total += counts[r];
  }
  std::string all(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  HPLX_MPI_CHECK(MPI_Gatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), displs.data(),
                             MPI_CHAR, 0, comm_));
  std::vector<std::vector<FileDigest>> lists;
  if (rank_ != 0) return lists;
  lists.resize(static_cast<std::size_t>(world_size_));
  for (int r = 0; r < size; ++r) {
    const nlohmann::json j = nlohmann::json::parse(all.substr(displs[r], counts[r]));
    lists.at(j.at("rank").get<std::size_t>()) = files_from_json(j.at("files"));
  }
  return lists;
}

// The files of the checkpoints older than the two newest (finished
// columns stay: the newer manifests name them).
void Checkpointer::remove_old() {
  while (committed_.size() > 2) {
    const long column = committed_.front(), test = plan_.identity.test_index;
    committed_.erase(committed_.begin());
    std::remove((folder_ + "/" + trailing_name(test, column)).c_str());
    std::remove((folder_ + "/" + state_name(test, column)).c_str());
    if (rank_ == 0) std::remove((plan_.dir + "/" + manifest_name(test, column)).c_str());
  }
}

void Checkpointer::remove_all() {
  const std::string test = fmt::format("{}-", plan_.identity.test_index + 1);
  const std::string manifests = manifest_name(plan_.identity.test_index, 0).substr(0, 16);
  std::error_code ec;
  auto remove_starting = [&](const std::string& dir, const std::string& start) {
    std::vector<std::filesystem::path> gone;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().filename().string().rfind(start, 0) == 0) gone.push_back(e.path());
    for (const auto& p : gone) std::filesystem::remove(p, ec);
  };
  remove_starting(folder_, test);
  if (rank_ == 0) remove_starting(plan_.dir, manifests);
}

void Checkpointer::finish() {
  if (request_ != MPI_REQUEST_NULL) HPLX_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
  if (pending_) commit();
}

}  // namespace hplx::lu
