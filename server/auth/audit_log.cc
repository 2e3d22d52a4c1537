#include "server/auth/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "server/base/log.h"

namespace resched::server::auth {
namespace {

int OpenForAppend(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

// `text` cut to `limit` bytes, saying so; the cut may split a UTF-8 sequence, which Format's
// dump writes as U+FFFD.
std::string Bounded(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  return absl::StrCat(text.substr(0, limit), "... (", text.size(), " bytes)");
}

}  // namespace

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(const AuditLogOptions& options) {
  if (options.max_bytes < 4096 || options.max_files < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("audit log '", options.path,
                     "': audit_log_max_bytes must be 4096 or more and "
                     "audit_log_max_files 1 or more, got ",
                     options.max_bytes, " and ", options.max_files));
  }
  if (options.path == "-") {
    return std::unique_ptr<AuditLog>(new AuditLog(STDERR_FILENO, false, options, 0));
  }
  const int fd = OpenForAppend(options.path);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open audit log '", options.path, "': ", std::strerror(errno)));
  }
  struct stat status {};
  const std::int64_t size = ::fstat(fd, &status) == 0 ? status.st_size : 0;
  return std::unique_ptr<AuditLog>(new AuditLog(fd, true, options, size));
}

AuditLog::AuditLog(int fd, bool owned, AuditLogOptions options, std::int64_t size)
    : fd_(fd), owned_(owned), options_(std::move(options)), size_(size) {}

AuditLog::~AuditLog() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

std::string AuditLog::Format(const AuditEntry& entry) {
  const auto field = [](const std::string& text) { return Bounded(text, kMaxAuditFieldBytes); };
  nlohmann::json line = {
      {"time", absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", entry.time, absl::UTCTimeZone())},
      {"tenant", field(entry.tenant)},
      {"role", field(entry.role)},
      {"method", field(entry.method)},
      {"cluster", field(entry.cluster)},
      {"request_id", field(entry.request_id)},
      {"trace_id", field(entry.trace_id)},
      {"peer", field(entry.peer)},
      {"code", field(entry.code)}};
  for (const auto& [name, value] : entry.targets) line[field(name)] = field(value);
  if (!entry.error.empty()) line["error"] = Bounded(entry.error, kMaxAuditErrorBytes);
  if (entry.suppressed > 0) line["suppressed_before"] = entry.suppressed;
  // Requests are checked for UTF-8 by protobuf, but an error may quote a byte of anything.
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void AuditLog::ReportFailureLocked(const std::string& what) {
  if (reported_failure_) return;
  reported_failure_ = true;
  Log(LogLevel::kError, "audit_write_failed",
      absl::StrCat("cannot ", what, " the audit log '", options_.path,
                   "': ", std::strerror(errno)));
}

void AuditLog::RotateLocked() {
  for (int k = options_.max_files - 1; k >= 1; --k) {
    const std::string from = absl::StrCat(options_.path, ".", k);
    const std::string to = absl::StrCat(options_.path, ".", k + 1);
    if (::rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) ReportFailureLocked("rotate");
  }
  const std::string first = absl::StrCat(options_.path, ".1");
  if (::rename(options_.path.c_str(), first.c_str()) != 0 && errno != ENOENT) {
    ReportFailureLocked("rotate");
    return;  // keep writing where we are: a full file beats a lost line
  }
  const int fd = OpenForAppend(options_.path);
  if (fd < 0) {
    ReportFailureLocked("reopen");
    return;
  }
  ::close(fd_);
  fd_ = fd;
  size_ = 0;
}

void AuditLog::Record(const AuditEntry& entry) {
  const std::string line = Format(entry) + "\n";
  std::lock_guard lock(mu_);
  if (owned_ && size_ > 0 && size_ + static_cast<std::int64_t>(line.size()) > options_.max_bytes) {
    RotateLocked();
  }
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ReportFailureLocked("write");
      return;
    }
    written += static_cast<std::size_t>(n);
  }
  size_ += static_cast<std::int64_t>(line.size());
}

}  // namespace resched::server::auth
