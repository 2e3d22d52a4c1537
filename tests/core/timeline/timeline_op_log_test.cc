// Timeline::LogOps, TakeOps and ApplyOp: a follower that applies a timeline's logged ops in
// order, from the same state, holds the same reservations under the same ids (random adds and
// releases against a second timeline as the reference); a copy does not log; an op that does not
// fit is DATA_LOSS and changes nothing.
#include <random>
#include <vector>

#include "core/timeline/timeline.h"
#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

void ExpectSameSlots(const Timeline& a, const Timeline& b) {
  const TimelineImage x = a.Image();
  const TimelineImage y = b.Image();
  ASSERT_EQ(x.slots.size(), y.slots.size());
  for (std::size_t i = 0; i < x.slots.size(); ++i) {
    EXPECT_EQ(x.slots[i].live, y.slots[i].live) << i;
    EXPECT_EQ(x.slots[i].generation, y.slots[i].generation) << i;
    EXPECT_EQ(x.slots[i].reservation, y.slots[i].reservation) << i;
  }
  EXPECT_EQ(x.free_slots, y.free_slots);
}

TEST(TimelineOpLogTest, AFollowerApplyingTheLoggedOpsHoldsTheSameReservationsUnderTheSameIds) {
  std::mt19937_64 rng(29);
  Timeline leader(16);
  std::vector<ReservationId> live;
  for (int i = 0; i < 50; ++i) {
    const Time start = static_cast<Time>(rng() % 1000);
    if (auto id = leader.Add(start, start + 1 + static_cast<Time>(rng() % 100), 1); id.ok()) {
      live.push_back(*id);
    }
  }
  absl::StatusOr<Timeline> follower = Timeline::FromImage(leader.Image());
  ASSERT_OK(follower);
  leader.LogOps(true);
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 10; ++i) {
      if (rng() % 2 == 0 && !live.empty()) {
        const std::size_t at = rng() % live.size();
        leader.ReleaseHeld(live[at], static_cast<Time>(rng() % 500));
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
      } else {
        const Time start = static_cast<Time>(rng() % 1000);
        const int k = 1 + static_cast<int>(rng() % 4);
        if (auto id = leader.Add(start, start + 1 + static_cast<Time>(rng() % 100), k); id.ok()) {
          live.push_back(*id);
        }
      }
    }
    for (const TimelineChange& op : leader.TakeOps()) ASSERT_OK(follower->ApplyOp(op));
    ExpectSameSlots(leader, *follower);
    EXPECT_OK(follower->CheckInvariants());
    for (Time t = 0; t < 1200; t += 37) EXPECT_EQ(leader.FreeAt(t), follower->FreeAt(t)) << t;
  }
  EXPECT_TRUE(leader.TakeOps().empty());
  Timeline copy = leader;
  EXPECT_FALSE(copy.logs_ops());
  ASSERT_OK(copy.Add(0, 10, 1));
  EXPECT_TRUE(copy.TakeOps().empty());
}

TEST(TimelineOpLogTest, AnOpThatDoesNotFitIsDataLossAndChangesNothing) {
  Timeline leader(4);
  leader.LogOps(true);
  ASSERT_OK(leader.Add(0, 10, 2));
  const std::vector<TimelineChange> ops = leader.TakeOps();
  ASSERT_EQ(ops.size(), 1u);
  Timeline elsewhere(4);
  ASSERT_OK(elsewhere.Add(5, 6, 1));  // its next id is another one
  const int free_before = elsewhere.FreeAt(0);
  EXPECT_THAT(elsewhere.ApplyOp(ops[0]),
              testing::StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("gets id")));
  EXPECT_EQ(elsewhere.FreeAt(0), free_before);
  TimelineChange release = ops[0];
  release.added = false;
  release.id = 12345;
  EXPECT_THAT(elsewhere.ApplyOp(release),
              testing::StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("12345")));
}

}  // namespace
}  // namespace resched
