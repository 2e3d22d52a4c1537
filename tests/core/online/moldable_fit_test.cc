// EarliestCompletion (bounded searches, pruned widths) against the definition: every allowed
// width searched without a bound, the earliest end kept, ties to fewer processors.
#include "core/online/moldable_fit.h"

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "core/model/runtime_model.h"
#include "core/online/start_bounds.h"
#include "core/timeline/timeline.h"
#include "gtest/gtest.h"

namespace resched {
namespace {

std::optional<Allocation> EarliestCompletionByDefinition(const Timeline& timeline,
                                                         const RuntimeModel& model, Time not_before,
                                                         Time start_limit) {
  std::optional<Allocation> best;
  for (int k : model.Widths(timeline.capacity())) {
    const Duration d = model.TimeOn(k);
    const auto start = timeline.EarliestStart(not_before, d, k);
    if (!start || *start > start_limit) continue;
    const Time end = *start + d;
    if (!best || end < best->end || (end == best->end && k < best->k)) {
      best = Allocation{k, *start, end};
    }
  }
  return best;
}

RuntimeModel RandomModel(std::mt19937_64& rng, int capacity) {
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  switch (uniform(0, 2)) {
    case 0:
      return RuntimeModel(AmdahlModel{uniform(1, 4'000), static_cast<double>(uniform(0, 10)) / 10,
                                      static_cast<int>(uniform(1, 3)),
                                      static_cast<int>(uniform(3, capacity))});
    case 1: {
      // Not monotone: a wider entry may be slower, and equal times give ties.
      TableModel table;
      for (int k = 1; k <= capacity; k += static_cast<int>(uniform(1, 4))) {
        table.entries.push_back({k, uniform(1, 40) * 10});
      }
      return RuntimeModel(table);
    }
    default:
      PowerOfTwoModel powers;
      for (int k = 1; k <= capacity; k *= 2) powers.times.push_back(uniform(1, 2'000));
      return RuntimeModel(powers);
  }
}

TEST(EarliestCompletion, MatchesEveryWidthSearchedWithoutBound) {
  std::mt19937_64 rng(7);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int round = 0; round < 40; ++round) {
    const int capacity = static_cast<int>(uniform(4, 48));
    Timeline timeline(capacity);
    const int reservations = static_cast<int>(uniform(0, 400));
    for (int i = 0; i < reservations; ++i) {
      const Time start = uniform(0, 20'000);
      (void)timeline.Add(start, start + uniform(1, 1'500), static_cast<int>(uniform(1, capacity)));
    }
    for (int query = 0; query < 200; ++query) {
      const RuntimeModel model = RandomModel(rng, capacity);
      const Time not_before = uniform(-100, 20'000);
      const Time start_limit = uniform(0, 3) == 0 ? kTimeMax : not_before + uniform(0, 10'000);
      ASSERT_EQ(EarliestCompletion(timeline, model, not_before, start_limit),
                EarliestCompletionByDefinition(timeline, model, not_before, start_limit))
          << "round " << round << " query " << query;
    }
  }
}

// A cluster's life as the policies see it: bookings added (placed answers among them), removed
// (cancellations, early ends), bookings that ended released as the clock passes them, and the
// clock moving; one StartBounds kept throughout, as ClusterPlan keeps it. Every answer with the
// bounds equals the definition's.
TEST(EarliestCompletion, KeptStartBoundsNeverChangeTheAnswer) {
  std::mt19937_64 rng(11);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int bounded_searches_skipped = 0;
  for (int round = 0; round < 20; ++round) {
    const int capacity = static_cast<int>(uniform(4, 40));
    Timeline timeline(capacity);
    StartBounds bounds;
    std::vector<ReservationId> live;
    Time now = 0;
    for (int op = 0; op < 600; ++op) {
      const int dice = static_cast<int>(uniform(0, 99));
      if (dice < 35) {
        const Time start = now + uniform(0, 15'000);
        if (auto id = timeline.Add(start, start + uniform(1, 1'500),
                                   static_cast<int>(uniform(1, capacity)));
            id.ok()) {
          live.push_back(*id);
        }
      } else if (dice < 40 && !live.empty()) {
        const std::size_t i = static_cast<std::size_t>(uniform(0, live.size() - 1));
        timeline.ReleaseHeld(live[i], now);
        live[i] = live.back();
        live.pop_back();
      } else if (dice < 45) {
        now += uniform(0, 300);
        // Bookings that ended by now are released, as a cluster releases what has run.
        for (std::size_t i = 0; i < live.size();) {
          if (timeline.Get(live[i])->end <= now) {
            timeline.ReleaseHeld(live[i], now);
            live[i] = live.back();
            live.pop_back();
          } else {
            ++i;
          }
        }
      } else {
        const RuntimeModel model = RandomModel(rng, capacity);
        const Time not_before = now + (uniform(0, 3) == 0 ? uniform(0, 5'000) : 0);
        const Time start_limit = uniform(0, 3) == 0 ? not_before + uniform(0, 8'000) : kTimeMax;
        const auto expected =
            EarliestCompletionByDefinition(timeline, model, not_before, start_limit);
        const auto got = EarliestCompletion(timeline, model, not_before, start_limit, &bounds);
        ASSERT_EQ(got, expected) << "round " << round << " op " << op;
        if (got && uniform(0, 1) == 0) {
          auto id = timeline.Add(got->start, got->end, got->k);
          ASSERT_TRUE(id.ok());
          live.push_back(*id);
        }
        if (got && bounds.SearchFrom(timeline, got->k, kTimeMax / 8, now) > now) {
          ++bounded_searches_skipped;
        }
      }
    }
  }
  // The bounds did shorten searches (else this test would not exercise them).
  EXPECT_GT(bounded_searches_skipped, 100);
}

}  // namespace
}  // namespace resched
