// The scaffolding shared by the policies that run one inner policy per part of a Partition
// (Split, §3.3.2; the main/auxiliary reservation scheme, §4; the groups of a cluster of several
// speeds): the partition is built at the first call, when the cluster's capacity is known; on
// events every part re-plans its own queue with its own policy instance.
//
// Split and the reservation scheme also run on a cluster of several speeds (RunInGroups): each
// group is then cut into the scheme's parts as a cluster of its own would be, and a new job goes
// to the group whose plan ends it earliest, as the groups' policy decides (grouped_policy.cc).
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/model/cluster.h"
#include "core/online/partition.h"
#include "core/online/policies.h"
#include "core/online/policy.h"

namespace resched {

class PartitionedPolicy : public OnlinePolicy {
 public:
  // `keep_part_timelines` false: a new job always plans its part in full (the reference the
  // kept part timelines are tested against).
  explicit PartitionedPolicy(InnerPolicyFactory make_inner, bool keep_part_timelines = true);

  // Runs the scheme inside each of `groups` (speeds differing) instead of on one pool; call
  // before the first use. The groups' counts must sum to the cluster's capacity.
  bool RunInGroups(const std::vector<ProcessorGroup>& groups) override;

  void Reoptimize(PlanState& state, Time freed_from) override;
  void Rebuild(PlanState& state) override;
  bool DecidesAtEvents() const override { return decides_at_events_; }
  // The partition, if built. Subclasses that remember more extend both.
  PolicyImage Image() const override;
  absl::Status LoadImage(const PolicyImage& image, int capacity) override;

 protected:
  // Loads the partition's tables of `image`, if it has them, leaving its other tables to the
  // subclass.
  absl::Status LoadPartition(const PolicyImage& image, int capacity);
  // Copies the partition and copies each part's policy (for the subclasses' Copy).
  PartitionedPolicy(const PartitionedPolicy& other);
  PartitionedPolicy& operator=(const PartitionedPolicy&) = delete;

  // The capacity of each part of `group` (0 on one pool), a cluster of `capacity` processors;
  // called once per group when the partition is built.
  virtual std::vector<int> PartCapacities(int group, int capacity) = 0;
  // The job's part, counted over all groups (FirstPart).
  virtual int PartOf(const JobRecord& job) const = 0;
  // What placing a new job in `group` would do (its model already on the group's speed, its
  // group set): the trial of the part it goes to. By default the job's part (PartOf) re-planned
  // by its policy with the job.
  virtual Partition::Trial TryNew(PlanState& state, JobRecord& job, int group);
  // The trial of `part` re-planned by its policy with the new job.
  Partition::Trial TryNewIn(PlanState& state, JobRecord& job, int part);
  // Books the trial TryNew chose for a new job.
  virtual void CommitNew(PlanState& state, JobRecord& job, const Partition::Trial& trial);
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
  // Tries a new job in every group that holds one of its widths (`groups`, each tried in
  // `slowest_first` order, with the job's run times on its speed) and commits the trial that
  // ends it earliest; on a tie the slower group. Prepares the partition first.
  void PlaceInEarliestGroup(PlanState& state, JobRecord& job,
                            const std::vector<ProcessorGroup>& groups,
                            const std::vector<int>& slowest_first);
  // The same choice where the parts' policy places a new job alone (FCFS, conservative): the
  // job's part in each group is searched once on its kept timeline (Partition::PlacementOn),
  // instead of building its private one and re-booking its queue. False, with
  // nothing changed but the partition's sync, where that does not apply: another policy, or a
  // part whose answer the cluster or its group has no room for (a hold of any group in the
  // way); call PlaceInEarliestGroup then.
  bool PlaceOnKeptTimelines(PlanState& state, JobRecord& job,
                            const std::vector<ProcessorGroup>& groups,
                            const std::vector<int>& slowest_first);

  // Groups set by RunInGroups; empty on one pool.
  const std::vector<ProcessorGroup>& groups() const { return groups_; }
  const std::vector<int>& groups_slowest_first() const { return slowest_first_; }
  // The group a job's part lies in: its group inside groups, else 0.
  int GroupOf(const JobRecord& job) const { return groups_.empty() ? 0 : std::max(job.group, 0); }
  // The index of the first part of `group`; FirstPart(group + 1) is one past its last.
  int FirstPart(int group) const { return first_part_[group]; }
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
  std::vector<ProcessorGroup> groups_;
  std::vector<int> slowest_first_;
  std::vector<int> first_part_;  // per group, then the number of parts
  std::optional<Partition> partition_;
  std::vector<std::unique_ptr<OnlinePolicy>> policies_;  // one per part
};

}  // namespace resched
