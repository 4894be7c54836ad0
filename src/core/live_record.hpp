// A JSON run record that is on disk at every moment of a run, so that a
// run stopped at test 500 of 864 keeps its 499 results:
//   - after every test, update() writes it atomically with
//     "status": "running" and the tests so far;
//   - finish() writes it with "status": "complete";
//   - SIGINT or SIGTERM rewrites it with "status": "interrupted" and the
//     reason, from texts update() prepared beforehand (the signal handler
//     makes only async-signal-safe calls: open, write, fsync, rename), then
//     lets the signal end the process as it would have; a record another
//     process has since replaced (another rank's watchdog) is left alone.
// One per process at a time (the handlers are process-wide); the rank that
// writes the record makes one, the others none.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hplx {

class LiveRecord {
 public:
  // Installs the SIGINT and SIGTERM handlers when `path` is not empty.
  explicit LiveRecord(std::string path);
  ~LiveRecord();  // restores the previous handlers
  LiveRecord(const LiveRecord&) = delete;
  LiveRecord& operator=(const LiveRecord&) = delete;

  // The record after `done` of `planned` tests (its "status" and "progress"
  // are set here).
  void update(nlohmann::json record, long done, long planned);
  void finish(nlohmann::json record, long done, long planned);

  // From now on SIGINT and SIGTERM leave the record on disk alone (the
  // watchdog has written its own reason there). Any thread.
  static void stand_down();

 private:
  std::string path_;
};

// Marks the record at `path` "interrupted" with `reason`, as any rank of the
// run may when the one that writes it cannot (the watchdog: rank 0 may be
// the rank that stopped). Does nothing when there is no record there (not
// on this node's file system) or it is no longer "running"; never throws.
void mark_record_interrupted(const std::string& path, const std::string& reason);

}  // namespace hplx
