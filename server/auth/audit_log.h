// The audit log: one JSON object per line for every call that may change state (its method's
// access rule says so, server/auth/access.cc), whether it was applied or refused: when, who
// (tenant and role, from the bearer token), what (method, cluster, request id, and the ids the
// call named or made), the trace it belongs to and the outcome. Tokens never reach it: only the
// tenant they map to.
//
// A line is bounded whatever the caller sent: each field is cut at kMaxAuditFieldBytes (the
// error at kMaxAuditErrorBytes) and says how long it was. The file rotates by size: at
// max_bytes it becomes PATH.1 (PATH.1 becomes PATH.2, ...), and max_files rotated files are kept.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace resched::server::auth {

inline constexpr std::size_t kMaxAuditFieldBytes = 256;
inline constexpr std::size_t kMaxAuditErrorBytes = 1024;

struct AuditEntry {
  absl::Time time;
  std::string tenant;  // empty: no tokens file, or the call presented no valid token
  std::string role;    // "admin", "operator", "user"; empty with the tenant
  std::string method;  // e.g. "SubmitJob"
  std::string cluster;
  std::string request_id;
  // What the call acted on: e.g. {"job", "j7"}, {"force", "true"}; what it made: {"made", "j8"}.
  std::vector<std::pair<std::string, std::string>> targets;
  std::string trace_id;  // hex; empty when the call was neither traced nor carried a traceparent
  std::string peer;      // the caller's address as gRPC reports it, or "web PEER" for the view's
  std::string code;      // "OK", "PERMISSION_DENIED", ...
  std::string error;     // the error message of a failed call
  // Lines of this peer's refused calls left out before this one (see AuditLog::Record).
  std::int64_t suppressed = 0;
};

struct AuditLogOptions {
  std::string path;  // "-": standard error, never rotated
  std::int64_t max_bytes = 64 << 20;
  int max_files = 4;
};

class AuditLog {
 public:
  // Appends to options.path (created with mode 0600 when missing). The error names the path.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(const AuditLogOptions& options);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Writes the entry as one line, whole, before returning (one write per line, so lines of
  // concurrent calls never interleave), rotating the file first when the line would take it
  // past max_bytes. A write or rotation error is reported on the server's log once.
  void Record(const AuditEntry& entry);

  // The line Record writes for `entry`, without its newline.
  static std::string Format(const AuditEntry& entry);

 private:
  AuditLog(int fd, bool owned, AuditLogOptions options, std::int64_t size);
  void RotateLocked();  // mu_ held
  void ReportFailureLocked(const std::string& what);

  int fd_;
  const bool owned_;
  const AuditLogOptions options_;
  std::mutex mu_;
  std::int64_t size_ = 0;  // bytes in the current file
  bool reported_failure_ = false;
};

}  // namespace resched::server::auth
