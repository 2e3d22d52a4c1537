// The periodic Replan's timer: it ticks at its period, and Stop waits for a tick in progress and
// ends the ticks (also under ThreadSanitizer, make test-tsan).
#include "server/base/periodic_timer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace resched::server {
namespace {

using std::chrono::milliseconds;

TEST(PeriodicTimerTest, TicksAtItsPeriodUntilStopped) {
  std::atomic<int> ticks{0};
  PeriodicTimer timer(milliseconds(10), [&] { ++ticks; });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ticks < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_GE(ticks, 3);
  timer.Stop();
  const int stopped_at = ticks;
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(ticks, stopped_at) << "a tick after Stop";
  timer.Stop();  // again: nothing to do
}

TEST(PeriodicTimerTest, StopWaitsForATickInProgress) {
  std::atomic<bool> inside{false};
  std::atomic<bool> finished{false};
  PeriodicTimer timer(milliseconds(1), [&] {
    inside = true;
    std::this_thread::sleep_for(milliseconds(50));
    finished = true;
  });
  while (!inside) std::this_thread::sleep_for(milliseconds(1));
  timer.Stop();
  EXPECT_TRUE(finished);
}

TEST(PeriodicTimerTest, StopsAtOnceWithALongPeriod) {
  PeriodicTimer timer(std::chrono::hours(1), [] { FAIL() << "no tick within an hour"; });
  const auto started = std::chrono::steady_clock::now();
  timer.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

}  // namespace
}  // namespace resched::server
