// A cluster of processor groups of different speeds: each group of identical processors is a
// part of a Partition (partition.h), run by its own instance of the cluster's policy, and a job
// runs inside one group with its run time divided by the group's speed. This is the related-
// machines model of Barbosa & Monteiro §3 (a processor of speed s runs a task in t / s), applied
// to moldable jobs whose processors all come from one group: a job spread over processors of
// different speeds would wait for its slowest one, so it is not allowed.
//
// A new job is tried in every group its model fits, each group's policy placing it among that
// group's queue as it would on a cluster of its own, and it goes to the group whose plan ends it
// earliest; on a tie, the slower group, so fast processors stay free for the jobs that need them
// (then the group listed first). Once placed, a job stays in its group: when capacity is freed,
// at events and on a rebuild, each group re-plans its own queue.
//
// The groups' capacities sum to the cluster's, so without external holds the groups are exactly
// independent clusters. A hold that names a group counts in it like a running job (the plan
// passes them as PlanState::group_bookings); a hold of any group counts on the shared timeline
// only: where processors run short, it costs the group that books last.
//
// Cost: with FCFS or conservative backfilling in each group, each group's timeline is kept
// between calls (part_views.h) and a submission searches it once per group. Otherwise, or where
// a hold of any group is in the way of the job, every submission tries each group that fits the
// job, and each try builds the group's private timeline from the shared one (Partition::Try),
// so it grows with the bookings ahead of now (docs/timeline.md, "SubmitJob at any backlog").
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/model/group_order.h"
#include "core/online/partitioned_policy.h"
#include "core/online/policies.h"

namespace resched {
namespace {

class Grouped final : public PartitionedPolicy {
 public:
  Grouped(std::vector<ProcessorGroup> groups, InnerPolicyFactory make_inner,
          bool keep_group_timelines)
      : PartitionedPolicy(std::move(make_inner), keep_group_timelines),
        groups_(std::move(groups)),
        slowest_first_(GroupsSlowestFirst(groups_)) {}
  std::unique_ptr<OnlinePolicy> Copy() const override { return std::make_unique<Grouped>(*this); }

  void PlaceNew(PlanState& state, JobRecord& job) override {
    if (PlaceOnKeptTimelines(state, job, groups_, slowest_first_)) return;
    PlaceInEarliestGroup(state, job, groups_, slowest_first_);
  }

 private:
  std::vector<int> PartCapacities(int /*group*/, int /*capacity*/) override {
    std::vector<int> capacities;
    capacities.reserve(groups_.size());
    for (const ProcessorGroup& g : groups_) capacities.push_back(g.count);
    return capacities;
  }

  // Every job gets its group when it is placed; a record without one (never expected) is
  // counted in the first group rather than indexing out of range.
  int PartOf(const JobRecord& job) const override { return std::max(job.group, 0); }

  std::vector<ProcessorGroup> groups_;
  std::vector<int> slowest_first_;  // group indices by speed, ascending; ties in listed order
};

}  // namespace

std::unique_ptr<OnlinePolicy> MakeGroupedPolicy(std::vector<ProcessorGroup> groups,
                                                InnerPolicyFactory make_inner,
                                                bool keep_group_timelines) {
  return std::make_unique<Grouped>(std::move(groups), std::move(make_inner), keep_group_timelines);
}

}  // namespace resched
