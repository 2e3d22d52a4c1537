// The server's locks: std::mutex and std::shared_mutex carrying Abseil's thread-safety
// annotations, so that clang's -Wthread-safety (run by clang-tidy) checks what each lock guards.
// Not absl::Mutex: Debian's Abseil is built without ThreadSanitizer, which then cannot see
// absl::Mutex and reports false races, while it intercepts the pthread locks under these.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"

namespace resched::server {

class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  // Takes the lock only if it is free at once.
  bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) { return mu_.try_lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Tells the thread-safety analysis that the caller holds the lock (a callback run under it);
  // std::mutex cannot check.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}
  // Releases the lock while waiting for `cv` to be notified, and holds it again on return.
  void Wait(std::condition_variable& cv) ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    cv.wait(lock);
    lock.release();
  }
  // The same, returning after `timeout` at the latest.
  template <class Rep, class Period>
  void WaitFor(std::condition_variable& cv, std::chrono::duration<Rep, Period> timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    std::unique_lock<std::mutex> lock(mu_, std::adopt_lock);
    cv.wait_for(lock, timeout);
    lock.release();
  }

 private:
  std::mutex mu_;
};

// A lock that readers may share.
class ABSL_LOCKABLE SharedMutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Tags a ScopedLock that takes over a lock its caller already holds.
struct AdoptLock {};

// Holds a Mutex, or a SharedMutex exclusively, for its scope.
template <typename M>
class ABSL_SCOPED_LOCKABLE ScopedLock {
 public:
  explicit ScopedLock(M* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ScopedLock(M* mu, AdoptLock) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) : mu_(mu) {}
  ~ScopedLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;

 private:
  M* const mu_;
};
using MutexLock = ScopedLock<Mutex>;
using WriterMutexLock = ScopedLock<SharedMutex>;

// Holds a SharedMutex shared for its scope.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
  }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

}  // namespace resched::server
