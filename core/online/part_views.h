// Each part's bookings (partition.h) mirrored on a timeline of the part's capacity, kept between
// calls: what the shared timeline adds or releases is added to or released from its part's view,
// read from the shared timeline's change record (Timeline::RecordChanges) instead of rescanning
// every booking.
//
// When the parts' capacities sum to the cluster's and every booking belongs to some part (no
// hold of any group), a part's private timeline (Partition::Try) is its view from now on: its
// free(t) = min(capacity - own(t), shared free(t)), and the shared term never binds while every
// other part stays within its capacity. The groups' policy then tries a new job in each group
// on the group's view (issue 12 §1), without copying the shared timeline or re-booking the
// group's queue.
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
  // Called for every released booking of kind kJob or kReplanned.
  using OnJobReleased = std::function<void(ReservationId, const Allocation&)>;

  explicit PartViews(const std::vector<int>& capacities);
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
  bool CatchUp(Timeline& shared, const OwnerOf& owner_of, const OnJobReleased& released);
  // Rebuilds every view from `owned` (live bookings of `shared` and their owners) and starts a
  // fresh change record on `shared`.
  void Rebuild(Timeline& shared, const std::vector<std::pair<ReservationId, Owner>>& owned);
  // A mirrored booking of kind kReplanned becomes kJob (its job started and a part adopted it).
  void Adopt(ReservationId id);
  bool Follows(const Timeline& shared) const {
    return stream_ != 0 && shared.change_stream() == stream_;
  }

  // True when each view is its part's private timeline from `now` on: the views follow
  // `shared`, the capacities sum to its capacity, every booking of `shared` belongs to a part,
  // no Replan's job is among them, and no view is over its capacity after `now`.
  bool Exact(const Timeline& shared, Time now) const;

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
  };
  void Mirror(ReservationId id, const Allocation& a, const Owner& owner);

  std::vector<int> capacities_;
  std::vector<Timeline> views_;
  std::vector<StartBounds> bounds_;
  std::vector<std::multiset<Time>> job_starts_;  // per part, of its kJob bookings
  absl::flat_hash_map<ReservationId, Mirrored> mirrored_;
  std::size_t replanned_ = 0;  // mirrored bookings of kind kReplanned
  std::uint64_t stream_ = 0;   // the shared record followed; 0: none
  int capacity_sum_ = 0;
};

}  // namespace resched
