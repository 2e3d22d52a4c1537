// Timeline::Image and FromImage: the restored timeline has the same free capacity everywhere,
// knows the same ids, forgets the same removed ones, and hands out the same next ids.
#include <random>
#include <tuple>
#include <vector>

#include "core/timeline/timeline.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

std::vector<std::tuple<Time, Time, int>> ImageSteps(const Timeline& t) {
  std::vector<std::tuple<Time, Time, int>> steps;
  t.ForEachStep(kTimeMin, kTimeMax,
                [&](const TimelineStep& s) { steps.emplace_back(s.start, s.end, s.free); });
  return steps;
}

TEST(TimelineImageTest, ARestoredTimelineAnswersAndNumbersAsTheOriginal) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    Timeline t(16);
    std::vector<ReservationId> live;
    std::vector<ReservationId> removed;
    for (int i = 0; i < 400; ++i) {
      if (live.empty() || rng() % 3 != 0) {
        const Time start = static_cast<Time>(rng() % 1000);
        const Time end = start + 1 + static_cast<Time>(rng() % 100);
        const int k = 1 + static_cast<int>(rng() % 20);  // beyond 16: forced, free goes negative
        auto id = rng() % 2 == 0 ? t.Add(start, end, k) : t.ForceAdd(start, end, k);
        if (id.ok()) live.push_back(*id);
      } else {
        const std::size_t at = rng() % live.size();
        ASSERT_OK(t.Remove(live[at]));
        removed.push_back(live[at]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
      }
    }
    auto restored = Timeline::FromImage(t.Image());
    ASSERT_OK(restored);
    EXPECT_OK(restored->CheckInvariants());
    EXPECT_EQ(ImageSteps(t), ImageSteps(*restored));
    EXPECT_EQ(t.reservation_count(), restored->reservation_count());
    for (const ReservationId id : live) {
      ASSERT_TRUE(restored->Get(id).has_value()) << id;
      EXPECT_EQ(t.Get(id)->start, restored->Get(id)->start);
    }
    for (const ReservationId id : removed) EXPECT_FALSE(restored->Get(id).has_value()) << id;
    for (int i = 0; i < 30; ++i) {
      auto a = t.ForceAdd(2000 + i, 2100 + i, 1);
      auto b = restored->ForceAdd(2000 + i, 2100 + i, 1);
      ASSERT_OK(a);
      ASSERT_OK(b);
      EXPECT_EQ(*a, *b);
      EXPECT_EQ(t.EarliestStart(0, 50, 16), restored->EarliestStart(0, 50, 16));
    }
  }
}

TEST(TimelineImageTest, AnInconsistentImageIsRefusedNamingTheSlot) {
  Timeline t(4);
  auto a = t.Add(0, 10, 1);
  auto b = t.Add(5, 20, 2);
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(t.Remove(*a));
  const TimelineImage good = t.Image();

  TimelineImage unlisted = good;
  unlisted.free_slots.clear();
  auto refused = Timeline::FromImage(unlisted);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find("slot 0"), std::string::npos) << refused.status();

  TimelineImage live_and_free = good;
  live_and_free.free_slots.push_back(1);
  EXPECT_EQ(Timeline::FromImage(live_and_free).status().code(), absl::StatusCode::kDataLoss);

  TimelineImage bad_window = good;
  bad_window.slots[1].reservation.end = bad_window.slots[1].reservation.start;
  refused = Timeline::FromImage(bad_window);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find("slot 1"), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace resched
