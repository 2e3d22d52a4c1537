// The interface of an online policy (FCFS, EASY, DASEDF, ...; docs/algorithms.md, "Built"): it
// places each submitted job and may move jobs that have not started yet.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/model/cluster.h"
#include "core/online/plan_state.h"
#include "core/online/policy_image.h"

namespace resched {

// Where a policy's PlaceNew would book a new job (OnlinePolicy::PlacementOfNew).
struct NewPlacement {
  Allocation allocation;
  bool guaranteed = true;
};

class OnlinePolicy {
 public:
  virtual ~OnlinePolicy() = default;

  // Plans `job`, already appended to state.queue() and not placed. May move queued jobs.
  virtual void PlaceNew(PlanState& state, JobRecord& job) = 0;
  // Capacity was freed from `freed_from` on (cancel, early finish, reservation removed), or an
  // event happened at `freed_from`: queued jobs may move earlier. Guaranteed allocations never
  // move later.
  virtual void Reoptimize(PlanState& state, Time freed_from) = 0;
  // Places every queued job from scratch, in submission order (after a forced change such as
  // a reservation that displaces queued work). Nothing is placed on entry.
  virtual void Rebuild(PlanState& state) = 0;
  // True when PlaceNew books the new job and moves no other, at an allocation that depends on
  // the queue only through the latest start among the other jobs (FCFS, conservative
  // backfilling). Such a policy answers PlacementOfNew, so a job can be tried in several places
  // without booking it (the groups' policy, grouped_policy.cc).
  virtual bool PlacesNewJobAlone() const { return false; }
  // Only when PlacesNewJobAlone(): where PlaceNew would book `job`, computed without booking
  // it, among the starts at or after `not_before` (kTimeMin: PlaceNew's own answer); nullopt
  // when no width fits. The answer is the earliest-completion allocation from the later of
  // `not_before` and the policy's own earliest start. The caller may pass a state whose queue
  // holds `job` alone and whose last_start() is the latest start among all the other jobs,
  // queued ones included.
  virtual std::optional<NewPlacement> PlacementOfNew(PlanState& /*state*/, const JobRecord& /*job*/,
                                                     Time /*not_before*/) {
    return std::nullopt;
  }
  // True when the policy decides at every event (job ends, releases), as EASY does; false when
  // its plan only changes on submissions and freed capacity.
  virtual bool DecidesAtEvents() const { return false; }
  // On a cluster of several speeds: a policy that cuts the cluster into parts of its own cuts
  // them inside each of `groups` instead (partitioned_policy.h) and returns true; call before the
  // first use. The others return false, and the cluster runs one of them per group
  // (grouped_policy.h).
  virtual bool RunInGroups(const std::vector<ProcessorGroup>& /*groups*/) { return false; }
  // A copy for a what-if copy of the plan (dry runs): it keeps what changes the policy's
  // decisions (a partition's bookings, the part of each queued job) and drops memoized work,
  // which points into the original plan's records.
  virtual std::unique_ptr<OnlinePolicy> Copy() const = 0;
  // What Copy keeps, saved for a restart; LoadImage restores it into a policy made afresh with
  // the same parameters for a cluster of `capacity` processors, which then decides as this one
  // would. DATA_LOSS when the image does not fit the policy.
  virtual PolicyImage Image() const { return {}; }
  virtual absl::Status LoadImage(const PolicyImage& image, int /*capacity*/) {
    return image.KeepsOnly({}, "this policy");
  }
};

}  // namespace resched
