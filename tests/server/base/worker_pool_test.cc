#include "server/base/worker_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <future>
#include <string>

namespace resched::server {
namespace {

TEST(WorkerPoolTest, RefusesTasksBeyondTheWaitingLimitAndRunsTheOthers) {
  std::atomic<int> ran{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  {
    WorkerPool pool("test-pool", 1, 2);
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
  WorkerPool pool("test-pool", 2, 10);
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

TEST(WorkerPoolTest, NamesItsThreadsCutToTheKernelsLimit) {
  std::promise<std::string> name;
  {
    WorkerPool pool("a-pool-with-a-long-name", 1, 1);
    ASSERT_TRUE(pool.TryPost([&] {
      char buffer[16] = {};
      (void)pthread_getname_np(pthread_self(), buffer, sizeof(buffer));
      name.set_value(buffer);
    }));
  }
  EXPECT_EQ(name.get_future().get(), "a-pool-with-a-l");
}

}  // namespace
}  // namespace resched::server
