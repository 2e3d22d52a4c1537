// PartViews: each part's bookings mirrored from the shared timeline's change record. Adds and
// releases reach the owner's view in order; an unknown owner stops the catch-up where it is and
// a later call resumes there; a record not followed (a copy, a new timeline) asks for a
// rebuild; Usable() holds while the views follow and no Replan's job awaits adoption.
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
  // Every release, mirrored or not: the caller may know a booking no view holds.
  EXPECT_EQ(f.released, (std::vector<ReservationId>{job, hold, other}));
}

TEST(PartViews, AnUnknownOwnerStopsTheCatchUpAndALaterCallResumesThere) {
  ViewsOnFour f;
  // Three bookings of one processor; the second's owner is unknown.
  (void)testing::OkValue(f.shared.Add(0, 10, 1));
  const ReservationId unknown = testing::OkValue(f.shared.Add(0, 10, 1));
  (void)testing::OkValue(f.shared.Add(0, 10, 1));
  EXPECT_FALSE(f.CatchUp([&](ReservationId id) {
    return id == unknown ? ViewOwner{PartViews::kUnknown} : ViewOwner{0, ViewKind::kJob};
  }));
  EXPECT_EQ(f.views.view(0).FreeAt(5), 2);   // the first only
  EXPECT_EQ(f.shared.changes().size(), 2u);  // the unknown one and the last wait
  EXPECT_EQ(f.shared.changes()[0].id, unknown);
  EXPECT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{0, ViewKind::kJob}; }));
  EXPECT_EQ(f.views.view(0).FreeAt(5), 0);
}

TEST(PartViews, ARecordNotFollowedAsksForARebuildThatMirrorsTheGivenBookings) {
  ViewsOnFour f;
  const ReservationId job = testing::OkValue(f.shared.Add(0, 10, 2));
  PartViews copy = f.views;  // a copy follows nothing: it is rebuilt at its first sync
  EXPECT_FALSE(copy.Follows(f.shared));
  Timeline other = f.shared.Copy();  // records nothing
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
  EXPECT_TRUE(f.views.Usable(other));
}

TEST(PartViews, UsableWhileFollowingAndNoReplannedJobAwaitsAdoption) {
  ViewsOnFour f;
  EXPECT_TRUE(f.views.Usable(f.shared));
  // A booking of no part and a part over its count leave the views usable: a placement read
  // on a view is checked against the shared timeline (Partition::PlacementOn).
  const ReservationId of_no_part = testing::OkValue(f.shared.Add(0, 10, 1));
  (void)testing::OkValue(f.shared.Add(0, 10, 2));
  ASSERT_TRUE(f.CatchUp([&](ReservationId id) {
    return id == of_no_part ? ViewOwner{PartViews::kNoPart} : ViewOwner{1, ViewKind::kHold};
  }));
  EXPECT_TRUE(f.views.Usable(f.shared));
  EXPECT_EQ(f.views.view(1).FreeAt(5), -1);  // 2 on a part of 1: over its count
  // A Replan's job, until a part adopts it: the part's latest job start would miss it.
  const ReservationId replanned = testing::OkValue(f.shared.Add(5, 10, 1));
  ASSERT_TRUE(f.CatchUp([](ReservationId) { return ViewOwner{0, ViewKind::kReplanned}; }));
  EXPECT_FALSE(f.views.Usable(f.shared));
  EXPECT_EQ(f.views.LatestJobStart(0), kTimeMin);
  EXPECT_TRUE(f.views.MayHoldUnadoptedJobs(f.shared));
  f.views.Adopt(replanned, 0, Allocation{1, 5, 10});
  EXPECT_TRUE(f.views.Usable(f.shared));
  EXPECT_EQ(f.views.LatestJobStart(0), 5);
  // A running job booked as of no part, adopted: mirrored in the part as a job.
  EXPECT_TRUE(f.views.MayHoldUnadoptedJobs(f.shared));  // `of_no_part` is still live
  f.views.Adopt(of_no_part, 0, Allocation{1, 0, 10});
  EXPECT_FALSE(f.views.MayHoldUnadoptedJobs(f.shared));
  EXPECT_EQ(f.views.view(0).FreeAt(7), 1);  // 3 less the adopted one and the replanned one
  // Another timeline, or a copy of the views, is not followed.
  EXPECT_FALSE(f.views.Usable(f.shared.Copy()));
  EXPECT_FALSE(PartViews(f.views).Usable(f.shared));
}

// Parts inside groups: a part's booking is on its view and its group's, a hold of the group on
// the group's view alone; a release takes it off both; a copy and a rebuild keep the groups.
TEST(PartViews, InsideGroupsAPartsBookingIsAlsoOnItsGroupsView) {
  Timeline shared{6};
  // Parts 0 and 1 in group 0 (of 4), part 2 in group 1 (of 2); views 3 and 4 are the groups'.
  PartViews views({2, 4, 2}, {0, 0, 1}, {4, 2});
  views.Rebuild(shared, {});
  const ReservationId job = testing::OkValue(shared.Add(0, 10, 2));
  const ReservationId hold = testing::OkValue(shared.Add(0, 10, 1));
  auto owner_of = [&](ReservationId id) {
    return id == job ? ViewOwner{1, ViewKind::kJob} : ViewOwner{3, ViewKind::kHold};
  };
  auto ignore = [](ReservationId, const Allocation&) {};
  ASSERT_TRUE(views.CatchUp(shared, owner_of, ignore));
  EXPECT_EQ(views.view(1).FreeAt(5), 2);
  EXPECT_EQ(views.view(3).FreeAt(5), 1);  // the job's 2 and the hold's 1
  EXPECT_EQ(views.view(0).FreeAt(5), 2);  // the other part of the group: untouched
  EXPECT_EQ(views.view(4).FreeAt(5), 2);  // the other group: untouched
  shared.ReleaseHeld(job);
  ASSERT_TRUE(views.CatchUp(shared, owner_of, ignore));
  EXPECT_EQ(views.view(1).FreeAt(5), 4);
  EXPECT_EQ(views.view(3).FreeAt(5), 3);

  PartViews copy = views;
  copy.Rebuild(shared, {{hold, ViewOwner{3, ViewKind::kHold}}});
  (void)testing::OkValue(shared.Add(0, 10, 2));
  ASSERT_TRUE(copy.CatchUp(
      shared,
      [](ReservationId) {
        return ViewOwner{2, ViewKind::kJob};
      },
      ignore));
  EXPECT_EQ(copy.view(3).FreeAt(5), 3);
  EXPECT_EQ(copy.view(2).FreeAt(5), 0);
  EXPECT_EQ(copy.view(4).FreeAt(5), 0);
  EXPECT_EQ(copy.LatestJobStart(2), 0);
}

}  // namespace
}  // namespace resched
