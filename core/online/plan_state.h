// What an online policy sees and changes: the clock, the timeline and the queued jobs in
// submission order. Placing a job books its allocation in the timeline; the state records
// which jobs moved so callers can report them.
#pragma once

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/model/job.h"
#include "core/model/job_record.h"
#include "core/online/start_bounds.h"
#include "core/timeline/timeline.h"

namespace resched {

class PlanState {
 public:
  PlanState(Time now, Time last_start, Timeline& timeline, std::vector<JobRecord*>& queue,
            const std::vector<JobRecord*>* running = nullptr, StartBounds* start_bounds = nullptr)
      : now_(now),
        last_start_(last_start),
        timeline_(timeline),
        queue_(queue),
        running_(running),
        start_bounds_(start_bounds) {}

  Time now() const { return now_; }
  // The latest start among jobs already started (FCFS keeps starts in submission order).
  Time last_start() const { return last_start_; }
  Timeline& timeline() { return timeline_; }
  const Timeline& timeline() const { return timeline_; }
  // Queued jobs in submission order.
  std::vector<JobRecord*>& queue() { return queue_; }
  const std::vector<JobRecord*>& queue() const { return queue_; }
  // The jobs running now, when the caller gives them (the cluster's plan does): a batch policy
  // waits for its batch to end.
  const std::vector<JobRecord*>& running() const { return running_ ? *running_ : kNone; }
  // What earlier searches on this timeline proved, when the caller keeps it across decisions
  // (the cluster's plan does); nullptr otherwise.
  StartBounds* start_bounds() { return start_bounds_; }
  // Bookings other than jobs that hold one processor group's processors (holds naming a group
  // on a cluster of several speeds), by reservation id, with the group's index.
  const absl::flat_hash_map<ReservationId, int>& group_bookings() const {
    return group_bookings_ ? *group_bookings_ : kNoGroupBookings;
  }
  void set_group_bookings(const absl::flat_hash_map<ReservationId, int>* bookings) {
    group_bookings_ = bookings;
  }
  // Queued jobs out of the policy's queue that hold their group's processors (placed by a
  // Replan on a cluster of several speeds, each in its JobRecord::group); empty otherwise.
  const std::vector<JobRecord*>& group_jobs() const { return group_jobs_ ? *group_jobs_ : kNone; }
  void set_group_jobs(const std::vector<JobRecord*>* jobs) { group_jobs_ = jobs; }
  // Where the sequence of every job placed or unplaced goes, for a plan that records its changes
  // (ClusterPlan::TakeChange): a job re-booked at the same allocation gets a new reservation id.
  void set_touched(std::vector<std::int64_t>* touched) { touched_ = touched; }

  // Books `allocation` for `job`; the caller guarantees it fits (a policy computed it on this
  // timeline), so a failure here is a bug and aborts loudly in debug builds.
  void Place(JobRecord& job, const Allocation& allocation, bool guaranteed);
  void Unplace(JobRecord& job);

  // Jobs whose allocation changed, other than the one being submitted.
  const std::vector<JobRecord*>& moved() const { return moved_; }
  void ForgetMoves() { moved_.clear(); }

 private:
  Time now_;
  Time last_start_;
  Timeline& timeline_;
  std::vector<JobRecord*>& queue_;
  const std::vector<JobRecord*>* running_;
  StartBounds* start_bounds_;
  const absl::flat_hash_map<ReservationId, int>* group_bookings_ = nullptr;
  const std::vector<JobRecord*>* group_jobs_ = nullptr;
  std::vector<std::int64_t>* touched_ = nullptr;
  std::vector<JobRecord*> moved_;
  static inline const std::vector<JobRecord*> kNone;
  static inline const absl::flat_hash_map<ReservationId, int> kNoGroupBookings;
};

}  // namespace resched
