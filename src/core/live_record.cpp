#include "core/live_record.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "core/atomic_file.hpp"
#include "core/json_record.hpp"

namespace hplx {
namespace {

// What the signal handler may touch. Signal handlers are process-wide, so
// this is the one place hplx keeps state outside its Context: two slots of
// prepared texts (one per signal each), update() filling the idle slot and
// then publishing it with one atomic store.
struct Prepared {
  std::string on_sigint, on_sigterm;
};
Prepared g_slots[2];
std::atomic<int> g_ready{-1};  // the slot the handler may write, -1: none
std::string g_path, g_tmp;
// The inode of the record this process wrote last: another inode at the
// path means another rank has since replaced it (the watchdog's reason),
// which a signal must not overwrite.
std::atomic<ino_t> g_inode{0};
struct sigaction g_old_int {
}, g_old_term{};
// The LiveRecord whose handlers are installed, null when none; a writer's
// takes over from a non-writer's (ranks sharing one process).
const LiveRecord* g_owner = nullptr;
bool g_owner_writes = false;
// This rank writes no record: a stop signal waits for the writer's end.
std::atomic<bool> g_hold_off{false};
// A handler is under way: a second stop signal (on another thread) waits
// for it rather than ending the process in the middle of its rewrite.
std::atomic<bool> g_stopping{false};

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void sleep_ms(long ms) {
  timespec left{ms / 1000, (ms % 1000) * 1000000L};
  while (::nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

extern "C" void on_stop_signal(int sig) {
  const int saved_errno = errno;
  if (g_stopping.exchange(true) || g_hold_off.load()) {
    // Another handler is rewriting the record, or another rank is: the
    // end comes from it (mpirun kills every rank once one has died), or
    // from the signal once the wait is over.
    sleep_ms(kStopHoldOffMs);
  } else if (const int slot = g_ready.exchange(-1); slot >= 0) {
    struct stat now {};
    const ino_t mine = g_inode.load();
    const bool replaced = mine != 0 && ::stat(g_path.c_str(), &now) == 0 && now.st_ino != mine;
    if (!replaced) {
      const std::string& text = sig == SIGINT ? g_slots[slot].on_sigint : g_slots[slot].on_sigterm;
      const int fd = ::open(g_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd >= 0) {
        write_all(fd, text.data(), text.size());
        // In place first, then on disk: a SIGKILL may follow at any moment.
        ::rename(g_tmp.c_str(), g_path.c_str());
        ::fsync(fd);
        ::close(fd);
      }
    }
  }
  // The signal then does what it would have done without us, once this
  // handler has returned (it is blocked here till then).
  sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, nullptr);
  raise(sig);
  g_stopping = false;
  errno = saved_errno;
}

std::string render(const nlohmann::json& record) {
  return record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

LiveRecord::LiveRecord(std::string path, bool writes) : path_(std::move(path)), writes_(writes) {
  if (path_.empty() || (g_owner && (g_owner_writes || !writes_))) return;
  if (writes_) {
    g_path = path_;
    g_tmp = path_ + ".signal.tmp";  // not the atomic writer's own temporary
  }
  g_hold_off = !writes_;
  g_owner_writes = writes_;
  const bool installed = g_owner != nullptr;
  g_owner = this;
  if (installed) return;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  // One stop signal at a time on the thread that handles it.
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  // A signal the process was started ignoring (SIGINT for a background
  // job) stays ignored.
  for (auto [sig, old] : {std::pair{SIGINT, &g_old_int}, std::pair{SIGTERM, &g_old_term}}) {
    sigaction(sig, nullptr, old);
    if (old->sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
  }
}

LiveRecord::~LiveRecord() {
  if (g_owner != this) return;
  g_ready = -1;
  g_hold_off = false;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  g_owner = nullptr;
}

void LiveRecord::update(nlohmann::json record, long done, long planned) {
  if (path_.empty() || !writes_) return;
  record["progress"] = {{"done", done}, {"planned", planned}};
  auto stopped = [&](const char* signal) {
    nlohmann::json r = record;
    r["status"] = "interrupted";
    r["reason"] = fmt::format("{} received after {} of {} tests; the test in progress was lost",
                              signal, done, planned);
    return render(r);
  };
  const int idle = g_ready.load() == 0 ? 1 : 0;
  g_slots[idle].on_sigint = stopped("SIGINT");
  g_slots[idle].on_sigterm = stopped("SIGTERM");
  g_ready = idle;
  record["status"] = "running";
  g_inode = 0;  // unknown while the new record is written: a signal writes its own
  write_json_atomically(path_, record);
  struct stat written {};
  if (::stat(path_.c_str(), &written) == 0) g_inode = written.st_ino;
}

void LiveRecord::finish(nlohmann::json record, long done, long planned) {
  if (path_.empty() || !writes_) return;
  g_ready = -1;
  record["progress"] = {
      {"done", done},
      {"planned", planned}};  // a signal from now on leaves the complete record alone
  record["status"] = "complete";
  write_json_atomically(path_, record);
}

void LiveRecord::stand_down() {
  g_ready = -1;
  g_hold_off = false;
}

void mark_record_interrupted(const std::string& path, const std::string& reason) {
  try {
    std::ifstream in(path);
    if (!in) return;
    nlohmann::json record = nlohmann::json::parse(in);
    if (record.value("status", "") != "running") return;
    record["status"] = "interrupted";
    record["reason"] = reason;
    // Several ranks of a node may do this at once: one temporary each.
    write_text_atomically(path, render(record), fmt::format(".{}.tmp", ::getpid()));
  } catch (const std::exception&) {
    // A record this rank cannot read or rewrite stays as it is.
  }
}

}  // namespace hplx
