// StartBounds: which facts it keeps, where a search may begin, and when it forgets.
#include "core/online/start_bounds.h"

#include "core/timeline/timeline.h"
#include "gtest/gtest.h"

namespace resched {
namespace {

TEST(StartBounds, AFactHoldsForItsWidthAndEveryLongerRun) {
  Timeline timeline(4);
  StartBounds bounds;
  EXPECT_EQ(bounds.SearchFrom(timeline, 2, 10, 0), 0);  // nothing known
  bounds.Learn(timeline, 2, 10, 0, 500);                // nothing of 10 fits 2 in [0, 500)
  EXPECT_EQ(bounds.SearchFrom(timeline, 2, 10, 0), 500);
  EXPECT_EQ(bounds.SearchFrom(timeline, 2, 30, 0), 500);  // a longer run fits no earlier
  EXPECT_EQ(bounds.SearchFrom(timeline, 2, 9, 0), 0);     // a shorter one may
  EXPECT_EQ(bounds.SearchFrom(timeline, 3, 10, 0), 0);    // another width: not known
  EXPECT_EQ(bounds.SearchFrom(timeline, 2, 10, 700), 700);
}

TEST(StartBounds, KeepsTheBestFactsPerLength) {
  Timeline timeline(4);
  StartBounds bounds;
  bounds.Learn(timeline, 1, 10, 0, 100);
  bounds.Learn(timeline, 1, 20, 0, 300);
  bounds.Learn(timeline, 1, 15, 0, 50);  // says less than (10, 100): dropped
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 15, 0), 100);
  bounds.Learn(timeline, 1, 12, 0, 400);  // says more than (20, 300)
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 12, 0), 400);
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 20, 0), 400);
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 11, 0), 100);
  // A search that began at a known bound extends the fact; one that began past what is known
  // leaves a gap and is not kept.
  bounds.Learn(timeline, 1, 12, 400, 900);
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 12, 0), 900);
  bounds.Learn(timeline, 1, 10, 2'000, 5'000);
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 10, 0), 100);
}

TEST(StartBounds, FactsReachBackToTheFirstSearchOnly) {
  Timeline timeline(4);
  StartBounds bounds;
  bounds.Learn(timeline, 1, 10, 100, 300);  // the anchor is 100
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 10, 100), 300);
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 10, 50), 50);  // [50, 100) was never searched
}

TEST(StartBounds, ARemovalForgetsEverythingAnAddNothing) {
  Timeline timeline(4);
  StartBounds bounds;
  const ReservationId future = *timeline.Add(200, 400, 4);
  bounds.Learn(timeline, 1, 10, 0, 400);
  ASSERT_TRUE(timeline.Add(500, 600, 1).ok());
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 10, 0), 400);
  timeline.ReleaseHeld(future, 0);  // frees [200, 400), which a search from 0 may use
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 10, 0), 0);
}

TEST(StartBounds, ReleasingWhatEndedBeforeTheSearchesKeepsTheFacts) {
  Timeline timeline(4);
  StartBounds bounds;
  const ReservationId past = *timeline.Add(0, 100, 4);
  ASSERT_TRUE(timeline.Add(100, 400, 4).ok());
  bounds.Learn(timeline, 1, 10, 100, 400);
  timeline.ReleaseHeld(past, 100);  // searches begin at 100 or later: nothing they see changed
  EXPECT_EQ(bounds.SearchFrom(timeline, 1, 10, 100), 400);
}

TEST(StartBounds, AnotherTimelineOrACopyStartsAfresh) {
  Timeline timeline(4);
  StartBounds bounds;
  bounds.Learn(timeline, 1, 10, 0, 400);
  const Timeline copy = timeline.Copy();
  EXPECT_NE(copy.capacity_version(), timeline.capacity_version());
  EXPECT_EQ(bounds.SearchFrom(copy, 1, 10, 0), 0);
}

}  // namespace
}  // namespace resched
