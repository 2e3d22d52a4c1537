// One server per data directory: an advisory lock (flock) on DIR/LOCK, held for the server's
// life and released by the kernel when the process dies, even by SIGKILL, so a crash never
// leaves a stale lock behind.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace resched::server {

class DataDirLock {
 public:
  // FAILED_PRECONDITION naming the directory (and the holder's pid) when another process holds
  // it; UNAVAILABLE when the lock file cannot be created.
  static absl::StatusOr<std::unique_ptr<DataDirLock>> Acquire(const std::string& dir);
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace resched::server
