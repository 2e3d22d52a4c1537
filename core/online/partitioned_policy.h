// The scaffolding shared by the policies that run one inner policy per part of a Partition
// (Split, §3.3.2; the main/auxiliary reservation scheme, §4): the partition is built at the
// first call, when the cluster's capacity is known; on events every part re-plans its own
// queue with its own policy instance.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/online/partition.h"
#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {

class PartitionedPolicy : public OnlinePolicy {
 public:
  // `keep_part_timelines` false: a new job always plans its part in full (the reference the
  // kept part timelines are tested against).
  explicit PartitionedPolicy(InnerPolicyFactory make_inner, bool keep_part_timelines = true);

  void Reoptimize(PlanState& state, Time freed_from) override;
  void Rebuild(PlanState& state) override;
  bool DecidesAtEvents() const override { return decides_at_events_; }
  // The partition, if built. Subclasses that remember more extend both.
  PolicyImage Image() const override;
  absl::Status LoadImage(const PolicyImage& image, int capacity) override;

 protected:
  // Copies the partition and clones each part's policy (for the subclasses' Clone).
  PartitionedPolicy(const PartitionedPolicy& other);
  PartitionedPolicy& operator=(const PartitionedPolicy&) = delete;

  // The capacity of each part on a cluster of `capacity` processors; called once.
  virtual std::vector<int> PartCapacities(int capacity) = 0;
  virtual int PartOf(const JobRecord& job) const = 0;
  // Called by Prepare before the partition syncs with the queue.
  virtual void BeforeSync(PlanState& /*state*/) {}

  // Builds the partition on first use, then syncs it; call first in every entry point.
  void Prepare(PlanState& state);
  // Prepare for a new job's placement on the parts' kept timelines (Partition::PlacementOn),
  // from the shared timeline's recorded changes when they suffice (CatchUpForNewJob). True when
  // they may be used: the policy keeps them, the parts' policy places a new job alone and the
  // views are usable (Partition::ViewsUsable). False: call Prepare and plan the part in full.
  bool PrepareForNewJob(PlanState& state);
  // Builds the partition and the parts' policies.
  void BuildPartition(int capacity);
  // The part's queued jobs in submission order; `extra` (a new job) is included when given.
  std::vector<JobRecord*> QueueOf(PlanState& state, int part, const JobRecord* extra) const;
  // Re-plans the part's queue with `decide` (its policy on the part's sub-state) and books it.
  void RunPart(PlanState& state, int part, const std::function<void(PlanState&)>& decide);

  Partition& partition() { return *partition_; }
  const Partition& partition() const { return *partition_; }
  OnlinePolicy& inner(int part) { return *policies_[part]; }

 private:
  InnerPolicyFactory make_inner_;
  bool decides_at_events_;
  bool places_on_kept_timelines_;  // kept, and the parts' policy places a new job alone
  std::optional<Partition> partition_;
  std::vector<std::unique_ptr<OnlinePolicy>> policies_;  // one per part
};

}  // namespace resched
