// A fixed set of threads running posted tasks in order of posting. The callback API runs the
// service's handlers on gRPC's own few threads, which must not block; handlers wait for a
// cluster's writer lock and may plan for a long time, so they run here instead.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "server/base/mutex.h"

namespace resched::server {

class WorkerPool {
 public:
  // `max_waiting` bounds the tasks posted and not yet started. The threads are named
  // `thread_name` (its first 15 characters, the kernel's limit), so that top, perf and
  // /proc/PID/task tell them from others.
  WorkerPool(const std::string& thread_name, int threads, size_t max_waiting);
  // Runs the tasks already posted, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`; false (and `task` dropped) when max_waiting tasks are already waiting.
  bool TryPost(std::function<void()> task);
  // Queues `task` whatever is waiting: for the answers of calls already admitted, which a bound
  // must not drop (there are at most as many as calls in flight).
  void Post(std::function<void()> task);

 private:
  void Work(const std::string& thread_name);

  Mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  const size_t max_waiting_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace resched::server
