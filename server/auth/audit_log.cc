#include "server/auth/audit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "server/log.h"

namespace resched::server::auth {

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const std::string& path) {
  if (path == "-") return std::unique_ptr<AuditLog>(new AuditLog(STDERR_FILENO, false, path));
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open audit log '", path, "': ", std::strerror(errno)));
  }
  return std::unique_ptr<AuditLog>(new AuditLog(fd, true, path));
}

AuditLog::AuditLog(int fd, bool owned, std::string path)
    : fd_(fd), owned_(owned), path_(std::move(path)) {}

AuditLog::~AuditLog() {
  if (owned_) ::close(fd_);
}

std::string AuditLog::Format(const AuditEntry& entry) {
  nlohmann::json line = {
      {"time", absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", entry.time, absl::UTCTimeZone())},
      {"tenant", entry.tenant},
      {"role", entry.role},
      {"method", entry.method},
      {"cluster", entry.cluster},
      {"request_id", entry.request_id},
      {"trace_id", entry.trace_id},
      {"peer", entry.peer},
      {"code", entry.code}};
  if (!entry.error.empty()) line["error"] = entry.error;
  // Requests are checked for UTF-8 by protobuf, but an error may quote a byte of anything.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void AuditLog::Record(const AuditEntry& entry) {
  const std::string line = Format(entry) + "\n";
  std::lock_guard lock(mu_);
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!reported_failure_) {
        reported_failure_ = true;
        Log(LogLevel::kError, "audit_write_failed",
            absl::StrCat("cannot write the audit log '", path_, "': ", std::strerror(errno)));
      }
      return;
    }
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace resched::server::auth
