// A JSON run record that is on disk at every moment of a run, so that a
// run stopped at test 500 of 864 keeps its 499 results:
//   - after every test, update() writes it atomically with
//     "status": "running" and the tests so far;
//   - finish() writes it with "status": "complete";
//   - SIGINT or SIGTERM rewrites it with "status": "interrupted" and the
//     reason, from texts update() prepared beforehand (the signal handler
//     makes only async-signal-safe calls: open, write, rename, fsync, the
//     rename before the fsync so that the record is in place as soon as
//     possible), then lets the signal end the process as it would have; a
//     record another process has since replaced (another rank's watchdog)
//     is left alone;
//   - the other ranks of a run with a record put off their end on SIGINT
//     or SIGTERM, by up to kStopHoldOffMs: mpirun sends SIGTERM to every
//     rank at once and SIGKILL to those still alive as soon as one of them
//     has died, so a rank dying at once took the record's writer down in
//     the middle of its rewrite (the record then said "running").
// One per process at a time (the handlers are process-wide); every rank
// makes one, `writes` true on the rank that writes the record. Where ranks
// share a process (hplx sim) the writer's takes over from the others'.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hplx {

// How long a rank that does not write the record waits on SIGINT or
// SIGTERM before the signal ends it (the writer's own end, or the
// launcher's SIGKILL, usually comes first). Also how long a second stop
// signal waits for the first one's handler.
inline constexpr long kStopHoldOffMs = 3000;

class LiveRecord {
 public:
  // Installs the SIGINT and SIGTERM handlers when `path` is not empty: on
  // the rank that `writes` the record, the ones that rewrite it; on the
  // others, the ones that hold off.
  LiveRecord(std::string path, bool writes);
  ~LiveRecord();  // restores the previous handlers
  LiveRecord(const LiveRecord&) = delete;
  LiveRecord& operator=(const LiveRecord&) = delete;

  // The record after `done` of `planned` tests (its "status" and "progress"
  // are set here). Only on the rank that writes it.
  void update(nlohmann::json record, long done, long planned);
  void finish(nlohmann::json record, long done, long planned);

  // From now on SIGINT and SIGTERM leave the record on disk alone (the
  // watchdog has written its own reason there) and end this rank without
  // holding off. Any thread.
  static void stand_down();

 private:
  std::string path_;
  bool writes_;
};

// Marks the record at `path` "interrupted" with `reason`, as any rank of the
// run may when the one that writes it cannot (the watchdog: rank 0 may be
// the rank that stopped). Does nothing when there is no record there (not
// on this node's file system) or it is no longer "running"; never throws.
void mark_record_interrupted(const std::string& path, const std::string& reason);

}  // namespace hplx
