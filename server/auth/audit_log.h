// The audit log: one JSON object per line for every call that may change state (its method's
// access rule says so, server/auth/access.cc), whether it was applied or refused: when, who
// (tenant and role, from the bearer token), what (method, cluster, request id), the trace it
// belongs to and the outcome. Tokens never reach it: only the tenant they map to.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace resched::server::auth {

struct AuditEntry {
  absl::Time time;
  std::string tenant;  // empty: no tokens file, or the call presented no valid token
  std::string role;    // "admin", "operator", "user"; empty with the tenant
  std::string method;  // e.g. "SubmitJob"
  std::string cluster;
  std::string request_id;
  std::string trace_id;  // hex; empty when the call was neither traced nor carried a traceparent
  std::string peer;      // the caller's address as gRPC reports it
  std::string code;      // "OK", "PERMISSION_DENIED", ...
  std::string error;     // the error message of a failed call
};

class AuditLog {
 public:
  // Appends to `path` (created with mode 0600 when missing); "-" writes to standard error.
  // The error names the path.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(const std::string& path);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Writes the entry as one line, whole, before returning (one write per line, so lines of
  // concurrent calls never interleave); a write error is reported on the server's log once.
  void Record(const AuditEntry& entry);

  // The line Record writes for `entry`, without its newline.
  static std::string Format(const AuditEntry& entry);

 private:
  AuditLog(int fd, bool owned, std::string path);
  const int fd_;
  const bool owned_;
  const std::string path_;
  std::mutex mu_;
  bool reported_failure_ = false;
};

}  // namespace resched::server::auth
