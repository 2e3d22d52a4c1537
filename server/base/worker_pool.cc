#include "server/base/worker_pool.h"

#include <pthread.h>

#include <utility>

namespace resched::server {

WorkerPool::WorkerPool(const std::string& thread_name, int threads, size_t max_waiting)
    : max_waiting_(max_waiting) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this, thread_name] { Work(thread_name); });
  }
}

WorkerPool::~WorkerPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

bool WorkerPool::TryPost(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    if (tasks_.size() >= max_waiting_) return false;
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::Post(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
}

void WorkerPool::Work(const std::string& thread_name) {
  constexpr size_t kMaxThreadName = 15;
  (void)pthread_setname_np(pthread_self(), thread_name.substr(0, kMaxThreadName).c_str());
  for (;;) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && tasks_.empty()) mu_.Wait(ready_);
      if (tasks_.empty()) return;  // stopping, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace resched::server
