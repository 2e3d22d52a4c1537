// Each part's bookings (partition.h) mirrored on a timeline of the part's capacity, kept between
// calls: what the shared timeline adds or releases is added to or released from its part's view,
// read from the shared timeline's change record (Timeline::RecordChanges) instead of rescanning
// every booking.
//
// A part's private timeline (Partition::Try) has free(t) = min(view free(t), shared free(t)):
// it allows a subset of the allocations its view allows. So the earliest-completion allocation
// on the view, when the shared timeline has room for it, is also the one on the private
// timeline. A policy that places a new job alone then places it on the part's view, checked
// against the shared timeline (Partition::PlacementOn), without copying the shared timeline or
// re-booking the part's queue; where the check fails, the part is planned in full.
//
// Parts inside processor groups (partition.h) have one more view per group, after the parts'
// views: a part's booking is mirrored on its part's view and on its group's, a hold naming the
// group on the group's alone. An answer read on a part's view is then checked against its
// group's view as well as the shared timeline.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/model/time.h"
#include "core/online/start_bounds.h"
#include "core/timeline/timeline.h"

namespace resched {

class PartViews {
 public:
  static constexpr int kNoPart = -1;   // a booking of no part (a hold of any group)
  static constexpr int kUnknown = -2;  // the caller cannot tell yet
  enum class Kind {
    kJob,        // a job the parts' policies placed or adopted: its start counts in JobStart*
    kHold,       // a hold or DAG task naming the part
    kReplanned,  // a job a Replan placed in the part, out of the policies' queues
  };
  struct Owner {
    int part = kNoPart;
    Kind kind = Kind::kHold;
  };
  using OwnerOf = std::function<Owner(ReservationId)>;
  // Called for every booking the shared timeline released, mirrored or not.
  using OnReleased = std::function<void(ReservationId, const Allocation&)>;

  explicit PartViews(const std::vector<int>& capacities);
  // Parts inside groups: view capacities.size() + g is group g's, of group_capacities[g];
  // an owner's part may name it (a hold of the group).
  PartViews(const std::vector<int>& capacities, const std::vector<int>& group_of_part,
            const std::vector<int>& group_capacities);
  // A copy (a plan's copy for a dry run) follows no record: the copied shared timeline records
  // nothing, so the copy's first sync rebuilds it, and copying the views would be wasted.
  PartViews(const PartViews& other);
  PartViews& operator=(const PartViews&) = delete;
  PartViews(PartViews&&) = default;
  PartViews& operator=(PartViews&&) = default;
  ~PartViews() = default;

  // Applies, in order, the changes `shared` recorded since the last call. False when the views
  // do not follow `shared`'s record (Rebuild them), or at an added booking whose owner is
  // kUnknown: the changes from that one on stay recorded for a later call.
  bool CatchUp(Timeline& shared, const OwnerOf& owner_of, const OnReleased& released);
  // Rebuilds every view from `owned` (live bookings of `shared` and their owners) and starts a
  // fresh change record on `shared`.
  void Rebuild(Timeline& shared, const std::vector<std::pair<ReservationId, Owner>>& owned);
  // A part adopted the job of booking `id` (it started, booked by someone else): a booking of
  // kind kReplanned becomes kJob, one of no part is mirrored in `part` as kJob.
  void Adopt(ReservationId id, int part, const Allocation& booking);
  // True when a running job may await adoption: a booking of no part or of kind kReplanned is
  // live (on `shared`, followed).
  bool MayHoldUnadoptedJobs(const Timeline& shared) const {
    return replanned_ != 0 || mirrored_.size() < shared.reservation_count();
  }
  bool Follows(const Timeline& shared) const {
    return stream_ != 0 && shared.change_stream() == stream_;
  }

  // True when the views follow `shared` and no Replan's job is among them (a part's latest job
  // start would miss it): PlacementOn may read them.
  bool Usable(const Timeline& shared) const { return Follows(shared) && replanned_ == 0; }

  Timeline& view(int part) { return views_[part]; }
  StartBounds& bounds(int part) { return bounds_[part]; }
  // The latest start among the part's kJob bookings, kTimeMin when there is none; the second
  // counts only those starting at or before `t`.
  Time LatestJobStart(int part) const;
  Time LatestJobStartBy(int part, Time t) const;

 private:
  struct Mirrored {
    int part = 0;
    ReservationId view_booking = 0;
    Kind kind = Kind::kHold;
    ReservationId group_view_booking = -1;  // on its group's view, for a part's booking
  };
  // The group view that also mirrors a booking of `view`, or -1.
  int GroupViewOf(int view) const {
    return view < static_cast<int>(group_of_part_.size())
               ? static_cast<int>(group_of_part_.size()) + group_of_part_[view]
               : -1;
  }
  void Mirror(ReservationId id, const Allocation& a, const Owner& owner);

  std::vector<int> capacities_;     // per view: the parts', then the groups'
  std::vector<int> group_of_part_;  // empty: no groups
  std::vector<Timeline> views_;
  std::vector<StartBounds> bounds_;
  std::vector<std::multiset<Time>> job_starts_;  // per part, of its kJob bookings
  absl::flat_hash_map<ReservationId, Mirrored> mirrored_;
  std::size_t replanned_ = 0;  // mirrored bookings of kind kReplanned
  std::uint64_t stream_ = 0;   // the shared record followed; 0: none
};

}  // namespace resched
