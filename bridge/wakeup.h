// Wakes the bridge's rounds early: set by the thread that watches resched's schedule (a change
// there is mirrored at once instead of at the next interval), waited on by the rounds.
#pragma once

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace resched::bridge {

class Wakeup {
 public:
  void Notify() {
    absl::MutexLock lock(&mu_);
    notified_ = true;
  }
  // Until notified or `timeout` passed; clears the notification.
  void WaitFor(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&notified_), timeout);
    notified_ = false;
  }

 private:
  absl::Mutex mu_;
  bool notified_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace resched::bridge
