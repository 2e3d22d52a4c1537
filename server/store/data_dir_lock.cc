#include "server/store/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace resched::server {

absl::StatusOr<std::unique_ptr<DataDirLock>> DataDirLock::Acquire(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/LOCK");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("data directory ", dir, ": cannot open ", path, ": ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char holder[32] = {};
    const ssize_t n = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    if (error == EWOULDBLOCK) {
      const std::string pid(absl::StripAsciiWhitespace(std::string(holder, n > 0 ? n : 0)));
      return absl::FailedPreconditionError(absl::StrCat(
          "data directory ", dir, " is in use by another resched-server",
          pid.empty() ? "" : absl::StrCat(" (pid ", pid, ")"), "; one server per data directory"));
    }
    return absl::UnavailableError(
        absl::StrCat("data directory ", dir, ": cannot lock ", path, ": ", std::strerror(error)));
  }
  // The holder's pid, for the message a second server prints; the lock itself is the flock.
  const std::string pid = absl::StrCat(::getpid(), "\n");
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat("data directory ", dir, ": cannot write ", path, ": ", std::strerror(error)));
  }
  return std::unique_ptr<DataDirLock>(new DataDirLock(fd));
}

DataDirLock::~DataDirLock() { ::close(fd_); }

}  // namespace resched::server
