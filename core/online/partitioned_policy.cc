#include "core/online/partitioned_policy.h"

namespace resched {

PartitionedPolicy::PartitionedPolicy(InnerPolicyFactory make_inner)
    : make_inner_(std::move(make_inner)), decides_at_events_(make_inner_()->DecidesAtEvents()) {}

PartitionedPolicy::PartitionedPolicy(const PartitionedPolicy& other)
    : OnlinePolicy(other),
      make_inner_(other.make_inner_),
      decides_at_events_(other.decides_at_events_),
      partition_(other.partition_) {
  for (const auto& policy : other.policies_) policies_.push_back(policy->Clone());
}

void PartitionedPolicy::Reoptimize(PlanState& state, Time freed_from) {
  Prepare(state);
  for (int part = 0; part < partition_->parts(); ++part) {
    RunPart(state, part, [&](PlanState& sub) { policies_[part]->Reoptimize(sub, freed_from); });
  }
}

void PartitionedPolicy::Rebuild(PlanState& state) {
  Prepare(state);
  for (int part = 0; part < partition_->parts(); ++part) {
    RunPart(state, part, [&](PlanState& sub) { policies_[part]->Rebuild(sub); });
  }
}

void PartitionedPolicy::Prepare(PlanState& state) {
  if (!partition_) {
    partition_.emplace(PartCapacities(state.timeline().capacity()));
    for (int p = 0; p < partition_->parts(); ++p) policies_.push_back(make_inner_());
  }
  BeforeSync(state);
  partition_->Sync(state, [this](const JobRecord& job) { return PartOf(job); });
}

std::vector<JobRecord*> PartitionedPolicy::QueueOf(PlanState& state, int part,
                                                   const JobRecord* extra) const {
  std::vector<JobRecord*> jobs;
  for (JobRecord* job : state.queue()) {
    if (job == extra || PartOf(*job) == part) jobs.push_back(job);
  }
  return jobs;
}

void PartitionedPolicy::RunPart(PlanState& state, int part,
                                const std::function<void(PlanState&)>& decide) {
  std::vector<JobRecord*> jobs = QueueOf(state, part, nullptr);
  if (jobs.empty()) return;
  partition_->Commit(state, partition_->Try(state, part, std::move(jobs), decide));
}

}  // namespace resched
