#include "server/base/wake_signal.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <ctime>

namespace resched::server {

WakeSignal::WakeSignal() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

WakeSignal::~WakeSignal() {
  if (fd_ >= 0) close(fd_);
}

void WakeSignal::Raise() {
  if (fd_ < 0) return;
  const std::uint64_t one = 1;
  // Fails only when the counter would overflow: it is raised then anyway.
  while (write(fd_, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

WakeSignal::Woken WakeSignal::Wait(std::chrono::nanoseconds timeout, int watched_socket) {
  // POLLRDHUP alone for the socket: its unread input would wake every poll until read, while
  // POLLHUP, POLLERR (a broken connection) and POLLNVAL (a socket closed here) are reported
  // without being asked for, and each ends the wait for good.
  std::array<pollfd, 2> entries{pollfd{fd_, POLLIN, 0}, pollfd{watched_socket, POLLRDHUP, 0}};
  const nfds_t count = watched_socket >= 0 ? 2 : 1;
  const auto wait = std::max(timeout, std::chrono::nanoseconds(0));
  const timespec limit{
      .tv_sec = static_cast<time_t>(std::chrono::duration_cast<std::chrono::seconds>(wait).count()),
      .tv_nsec = static_cast<long>((wait % std::chrono::seconds(1)).count())};
  int ready;
  do {
    ready = ppoll(entries.data(), count, &limit, nullptr);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return Woken::kTimedOut;
  if (count == 2 && (entries[1].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0) {
    return Woken::kHungUp;
  }
  if ((entries[0].revents & POLLIN) != 0) {
    std::uint64_t raised = 0;
    (void)read(fd_, &raised, sizeof raised);  // back to unraised: the next Wait waits
    return Woken::kRaised;
  }
  return Woken::kTimedOut;
}

}  // namespace resched::server
