#include "core/online/partitioned_policy.h"

namespace resched {

PartitionedPolicy::PartitionedPolicy(InnerPolicyFactory make_inner, bool keep_part_timelines)
    : make_inner_(std::move(make_inner)),
      decides_at_events_(make_inner_()->DecidesAtEvents()),
      places_on_kept_timelines_(keep_part_timelines && make_inner_()->PlacesNewJobAlone()) {}

PartitionedPolicy::PartitionedPolicy(const PartitionedPolicy& other)
    : OnlinePolicy(other),
      make_inner_(other.make_inner_),
      decides_at_events_(other.decides_at_events_),
      places_on_kept_timelines_(other.places_on_kept_timelines_),
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

PolicyImage PartitionedPolicy::Image() const {
  PolicyImage image;
  if (partition_) partition_->SaveTo(image);
  return image;
}

absl::Status PartitionedPolicy::LoadImage(const PolicyImage& image, int capacity) {
  if (!image.job_parts.empty()) {
    return absl::DataLossError("the policy image gives jobs parts this policy does not keep");
  }
  if (!image.partitioned) {
    return image.empty() ? absl::OkStatus()
                         : absl::DataLossError(
                               "the policy image has part bookings but no "
                               "partition");
  }
  BuildPartition(capacity);
  return partition_->LoadFrom(image);
}

void PartitionedPolicy::BuildPartition(int capacity) {
  partition_.emplace(PartCapacities(capacity));
  policies_.clear();
  for (int p = 0; p < partition_->parts(); ++p) policies_.push_back(make_inner_());
}

void PartitionedPolicy::Prepare(PlanState& state) {
  if (!partition_) BuildPartition(state.timeline().capacity());
  BeforeSync(state);
  partition_->Sync(state, [this](const JobRecord& job) { return PartOf(job); });
}

bool PartitionedPolicy::PrepareForNewJob(PlanState& state) {
  if (!places_on_kept_timelines_) return false;
  if (!partition_) BuildPartition(state.timeline().capacity());
  BeforeSync(state);
  const auto part_of = [this](const JobRecord& job) { return PartOf(job); };
  if (!partition_->CatchUpForNewJob(state, part_of)) partition_->Sync(state, part_of);
  return partition_->ViewsUsable(state);
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
