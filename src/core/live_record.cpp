#include "core/live_record.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
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
bool g_installed = false;

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

extern "C" void on_stop_signal(int sig) {
  const int slot = g_ready.exchange(-1);
  struct stat now {};
  const ino_t mine = g_inode.load();
  const bool replaced = mine != 0 && ::stat(g_path.c_str(), &now) == 0 && now.st_ino != mine;
  if (slot >= 0 && !replaced) {
    const std::string& text = sig == SIGINT ? g_slots[slot].on_sigint : g_slots[slot].on_sigterm;
    const int fd = ::open(g_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      write_all(fd, text.data(), text.size());
      ::fsync(fd);
      ::close(fd);
      ::rename(g_tmp.c_str(), g_path.c_str());
    }
  }
  // The signal then does what it would have done without us.
  sigaction(sig, sig == SIGINT ? &g_old_int : &g_old_term, nullptr);
  raise(sig);
}

std::string render(const nlohmann::json& record) {
  return record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

LiveRecord::LiveRecord(std::string path) : path_(std::move(path)) {
  if (path_.empty() || g_installed) return;
  g_path = path_;
  g_tmp = path_ + ".signal.tmp";  // not the atomic writer's own temporary
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  // A signal the process was started ignoring (SIGINT for a background
  // job) stays ignored.
  for (auto [sig, old] : {std::pair{SIGINT, &g_old_int}, std::pair{SIGTERM, &g_old_term}}) {
    sigaction(sig, nullptr, old);
    if (old->sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
  }
  g_installed = true;
}

LiveRecord::~LiveRecord() {
  if (path_.empty() || !g_installed) return;
  g_ready = -1;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  g_installed = false;
}

void LiveRecord::update(nlohmann::json record, long done, long planned) {
  if (path_.empty()) return;
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
  if (path_.empty()) return;
  g_ready = -1;
  record["progress"] = {
      {"done", done},
      {"planned", planned}};  // a signal from now on leaves the complete record alone
  record["status"] = "complete";
  write_json_atomically(path_, record);
}

void LiveRecord::stand_down() {
  g_ready = -1;
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
