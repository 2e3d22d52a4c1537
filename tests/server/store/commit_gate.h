// Holds a journal's thread in its commit observer (Journal::SetCommitObserver) until opened, so
// that a test can queue records that are not yet durable: observer = [gate] { gate->Hold(); }.
#pragma once

#include <condition_variable>

#include "server/base/mutex.h"

namespace resched::server::testing {

class CommitGate {
 public:
  // Called by the observer after each commit: waits until Open.
  void Hold() {
    MutexLock lock(&mu_);
    ++held_;
    changed_.notify_all();
    while (!open_) mu_.Wait(changed_);
  }
  // Waits until a commit is held (the journal's thread is stuck after it).
  void WaitHeld() {
    MutexLock lock(&mu_);
    while (held_ == 0) mu_.Wait(changed_);
  }
  void Open() {
    MutexLock lock(&mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  Mutex mu_;
  std::condition_variable changed_;
  int held_ ABSL_GUARDED_BY(mu_) = 0;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace resched::server::testing
