// PartViews: each part's bookings mirrored from the shared timeline's change record. Adds and
// releases reach the owner's view in order; an unknown owner stops the catch-up where it is and
// a later call resumes there; a record not followed (a copy, a new timeline) asks for a
// rebuild; Exact() holds only where each view is its part's private timeline.
#include "core/online/part_views.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/timeline/timeline.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using ViewKind = PartViews::Kind;
using ViewOwner = PartViews::Owner;

// Two parts of 3 and 1 processors on a shared timeline of 4, following its record.
struct ViewsOnFour {
  Timeline shared{4};
  PartViews views{{3, 1}};
  std::vector<ReservationId> released;
  ViewsOnFour() { views.Rebuild(shared, {}); }
  bool CatchUp(const std::function<ViewOwner(ReservationId)>& owner_of) {
    return views.CatchUp(shared, owner_of,
                         [&](ReservationId id, const Allocation&) { released.push_back(id); });
  }
};

TEST(PartViews, AddsAndReleasesReachTheOwnersViewInOrder) {
  ViewsOnFour f;
  const ReservationId job = testing::OkValue(f.shared.Add(10, 20, 2));
  const ReservationId hold = testing::OkValue(f.shared.Add(0, 30, 1));
  const ReservationId other = testing::OkValue(f.shared.Add(0, 5, 1));
  ASSERT_TRUE(f.CatchUp([&](ReservationId id) {
    if (id == job) return ViewOwner{0, ViewKind::kJob};
    if (id == hold) return ViewOwner{1, ViewKind::kHold};
    return ViewOwner{PartViews::kNoPart};
  }));
  EXPECT_TRUE(f.shared.changes().empty());  // read and dropped
  EXPECT_EQ(f.views.view(0).FreeAt(15), 1);
  EXPECT_EQ(f.views.view(1).FreeAt(15), 0);
  EXPECT_EQ(f.views.view(0).FreeAt(2), 3);  // a booking of no part is in no view
  EXPECT_EQ(f.views.LatestJobStart(0), 10);
  EXPECT_EQ(f.views.LatestJobStartBy(0, 9), kTimeMin);
  EXPECT_EQ(f.views.LatestJobStartBy(0, 10), 10);
  EXPECT_EQ(f.views.LatestJobStart(1), kTimeMin);  // a hold is not a job
  f.shared.ReleaseHeld(job);
  f.shared.ReleaseHeld(hold);
  f.shared.ReleaseHeld(other);
  ASSERT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{PartViews::kUnknown}; }));
  EXPECT_EQ(f.views.view(0).FreeAt(15), 3);
  EXPECT_EQ(f.views.view(1).FreeAt(15), 1);
  EXPECT_EQ(f.views.LatestJobStart(0), kTimeMin);
  EXPECT_EQ(f.released, std::vector<ReservationId>{job});  // jobs only, not holds
}

TEST(PartViews, AnUnknownOwnerStopsTheCatchUpAndALaterCallResumesThere) {
  ViewsOnFour f;
  const ReservationId first = testing::OkValue(f.shared.Add(0, 10, 1));
  const ReservationId unknown = testing::OkValue(f.shared.Add(0, 10, 1));
  const ReservationId last = testing::OkValue(f.shared.Add(0, 10, 1));
  EXPECT_FALSE(f.CatchUp([&](ReservationId id) {
    return id == unknown ? ViewOwner{PartViews::kUnknown} : ViewOwner{0, ViewKind::kJob};
  }));
  EXPECT_EQ(f.views.view(0).FreeAt(5), 2);   // `first` only
  EXPECT_EQ(f.shared.changes().size(), 2u);  // `unknown` and `last` wait
  EXPECT_EQ(f.shared.changes()[0].id, unknown);
  EXPECT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{0, ViewKind::kJob}; }));
  EXPECT_EQ(f.views.view(0).FreeAt(5), 0);
  (void)first;
  (void)last;
}

TEST(PartViews, ARecordNotFollowedAsksForARebuildThatMirrorsTheGivenBookings) {
  ViewsOnFour f;
  const ReservationId job = testing::OkValue(f.shared.Add(0, 10, 2));
  PartViews copy = f.views;  // a copy follows nothing: it is rebuilt at its first sync
  EXPECT_FALSE(copy.Follows(f.shared));
  Timeline other = f.shared.Snapshot();  // records nothing
  EXPECT_FALSE(f.views.Follows(other));
  EXPECT_FALSE(f.views.CatchUp(
      other,
      [](ReservationId) {
        return ViewOwner{0, ViewKind::kJob};
      },
      [](ReservationId, const Allocation&) {}));
  f.views.Rebuild(other, {{job, ViewOwner{0, ViewKind::kJob}}});
  EXPECT_TRUE(f.views.Follows(other));
  EXPECT_NE(other.change_stream(), 0u);
  EXPECT_EQ(f.views.view(0).FreeAt(5), 1);
  EXPECT_EQ(f.views.LatestJobStart(0), 0);
  EXPECT_TRUE(f.views.Exact(other, 0));
}

TEST(PartViews, ExactOnlyWhereEachViewIsItsPartsPrivateTimeline) {
  {
    ViewsOnFour f;
    EXPECT_TRUE(f.views.Exact(f.shared, 0));
    // A booking of no part: the shared timeline may bind below a part's own count.
    (void)testing::OkValue(f.shared.Add(0, 10, 1));
    ASSERT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{PartViews::kNoPart}; }));
    EXPECT_FALSE(f.views.Exact(f.shared, 0));
  }
  {
    ViewsOnFour f;
    // A part over its count (the plan booked more than the part holds) ...
    (void)testing::OkValue(f.shared.Add(0, 10, 2));
    ASSERT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{1, ViewKind::kHold}; }));
    EXPECT_FALSE(f.views.Exact(f.shared, 0));
    EXPECT_TRUE(f.views.Exact(f.shared, 10));  // ... only before now does not matter
  }
  {
    ViewsOnFour f;
    // A Replan's job until a part adopts it.
    const ReservationId replanned = testing::OkValue(f.shared.Add(5, 10, 1));
    ASSERT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{0, ViewKind::kReplanned}; }));
    EXPECT_FALSE(f.views.Exact(f.shared, 0));
    EXPECT_EQ(f.views.LatestJobStart(0), kTimeMin);
    f.views.Adopt(replanned);
    EXPECT_TRUE(f.views.Exact(f.shared, 0));
    EXPECT_EQ(f.views.LatestJobStart(0), 5);
  }
  {
    // Parts whose counts do not sum to the cluster's (Split's whole-cluster part).
    Timeline shared(4);
    PartViews views({4, 4});
    views.Rebuild(shared, {});
    EXPECT_FALSE(views.Exact(shared, 0));
  }
}

}  // namespace
}  // namespace resched
