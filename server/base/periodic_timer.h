// A thread that calls a function at a fixed period until stopped: the server's periodic
// Replan of WALL clusters (docs/algorithms.md, "Replan").
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <thread>

#include "server/base/mutex.h"

namespace resched::server {

class PeriodicTimer {
 public:
  PeriodicTimer(std::chrono::milliseconds period, std::function<void()> tick);
  // Stops and joins.
  ~PeriodicTimer();
  PeriodicTimer(const PeriodicTimer&) = delete;
  PeriodicTimer& operator=(const PeriodicTimer&) = delete;

  // Waits for a tick in progress, then no more ticks run. Not from inside a tick.
  void Stop();

 private:
  void Run();

  const std::chrono::milliseconds period_;
  const std::function<void()> tick_;
  Mutex mu_;
  std::condition_variable wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace resched::server
