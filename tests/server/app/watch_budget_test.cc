// WatchBudget against a plain count: TryTake takes only what fits under the limit, Take and
// Give always; threads taking at once never pass the limit together.
#include "server/app/watch_budget.h"

#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace resched::server {
namespace {

TEST(WatchBudget, RandomTakesAndGivesMatchAPlainCount) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 50; ++round) {
    const std::size_t max = 1 + rng() % 10'000;
    const int streams = 1 + static_cast<int>(rng() % 8);
    WatchBudget budget(max, streams);
    EXPECT_EQ(budget.share(), max / static_cast<std::size_t>(streams));
    std::size_t held = 0;
    std::vector<std::size_t> taken;
    for (int step = 0; step < 500; ++step) {
      const std::size_t bytes = rng() % (max / 4 + 2);
      switch (rng() % 3) {
        case 0: {
          const bool fits = held + bytes <= max;
          ASSERT_EQ(budget.TryTake(bytes), fits) << held << " + " << bytes << " / " << max;
          if (fits) {
            held += bytes;
            taken.push_back(bytes);
          }
          break;
        }
        case 1:
          budget.Take(bytes);
          held += bytes;
          taken.push_back(bytes);
          break;
        default:
          if (taken.empty()) break;
          budget.Give(taken.back());
          held -= taken.back();
          taken.pop_back();
      }
      ASSERT_EQ(budget.held(), held);
    }
  }
}

TEST(WatchBudget, ConcurrentTakesNeverPassTheLimit) {
  constexpr std::size_t kMax = 100'000;
  WatchBudget budget(kMax, 4);
  EXPECT_EQ(budget.share(), kMax / 4);
  std::vector<std::thread> threads;
  std::vector<std::size_t> took(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10'000; ++i) {
        if (budget.TryTake(7)) took[t] += 7;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::size_t total = took[0] + took[1] + took[2] + took[3];
  EXPECT_LE(total, kMax);
  EXPECT_GT(total, kMax - 7);  // it filled up: 40,000 tries of 7 bytes offer far more
  EXPECT_EQ(budget.held(), total);
}

}  // namespace
}  // namespace resched::server
