// A wake-up one thread waits for while it also watches a socket: an eventfd that other threads
// raise, polled beside the socket, so that a thread serving a long answer (a page's event stream)
// wakes for new work or for its client leaving, and at no other time.
#pragma once

#include <chrono>

namespace resched::server {

class WakeSignal {
 public:
  WakeSignal();
  ~WakeSignal();
  WakeSignal(const WakeSignal&) = delete;
  WakeSignal& operator=(const WakeSignal&) = delete;

  // False when no eventfd could be made (the process is out of file descriptors): Raise does
  // nothing then and Wait sleeps out its timeout.
  bool ok() const { return fd_ >= 0; }

  // Wakes the waiter, or the next Wait if none waits now. From any thread.
  void Raise();

  enum class Woken {
    kRaised,    // Raise was called (once or more) since the last Wait that returned this
    kTimedOut,  // the timeout passed
    kHungUp,    // the watched socket's peer closed its side, the connection broke, or the
                // socket is no longer open
  };
  // Waits for Raise, for `watched_socket`'s peer to hang up (-1: no socket), or for `timeout`.
  // A socket's unread input does not wake it: only the peer's end of sending does.
  Woken Wait(std::chrono::nanoseconds timeout, int watched_socket = -1);

 private:
  int fd_;
};

}  // namespace resched::server
