#include "server/base/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace resched::server {
namespace {

TEST(WorkerPoolTest, RefusesTasksBeyondTheWaitingLimitAndRunsTheOthers) {
  std::atomic<int> ran{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  {
    WorkerPool pool(1, 2);
    // The only worker is busy until `release`; two more tasks may wait, a third may not.
    ASSERT_TRUE(pool.TryPost([&] {
      started.set_value();
      released.wait();
      ++ran;
    }));
    started.get_future().wait();
    EXPECT_TRUE(pool.TryPost([&] { ++ran; }));
    EXPECT_TRUE(pool.TryPost([&] { ++ran; }));
    EXPECT_FALSE(pool.TryPost([&] { ++ran; }));
    release.set_value();
  }  // the destructor runs what is queued, then joins
  EXPECT_EQ(ran, 3);
}

TEST(WorkerPoolTest, RunsTasksOnSeveralThreadsAtOnce) {
  WorkerPool pool(2, 10);
  std::promise<void> a_started, b_started;
  std::promise<void> done_a, done_b;
  // Each task waits for the other to start: with one thread this would never finish.
  ASSERT_TRUE(pool.TryPost([&] {
    a_started.set_value();
    b_started.get_future().wait();
    done_a.set_value();
  }));
  ASSERT_TRUE(pool.TryPost([&] {
    b_started.set_value();
    a_started.get_future().wait();
    done_b.set_value();
  }));
  done_a.get_future().wait();
  done_b.get_future().wait();
}

}  // namespace
}  // namespace resched::server
