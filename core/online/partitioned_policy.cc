#include "core/online/partitioned_policy.h"

#include "core/model/group_order.h"

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
      groups_(other.groups_),
      slowest_first_(other.slowest_first_),
      first_part_(other.first_part_),
      partition_(other.partition_) {
  for (const auto& policy : other.policies_) policies_.push_back(policy->Copy());
}

bool PartitionedPolicy::RunInGroups(const std::vector<ProcessorGroup>& groups) {
  groups_ = groups;
  slowest_first_ = GroupsSlowestFirst(groups_);
  return true;
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
  if (absl::Status s =
          image.KeepsOnly({Partition::kLastStartTable, Partition::kBookingsTable}, "this policy");
      !s.ok()) {
    return s;
  }
  return LoadPartition(image, capacity);
}

absl::Status PartitionedPolicy::LoadPartition(const PolicyImage& image, int capacity) {
  // A partition is built at the policy's first decision; an image without one comes before it.
  if (image.Find(Partition::kLastStartTable) == nullptr &&
      image.Find(Partition::kBookingsTable) == nullptr) {
    return absl::OkStatus();
  }
  BuildPartition(capacity);
  return partition_->LoadFrom(image);
}

void PartitionedPolicy::BuildPartition(int capacity) {
  first_part_ = {0};
  if (groups_.empty()) {
    partition_.emplace(PartCapacities(0, capacity));
    first_part_.push_back(partition_->parts());
  } else {
    std::vector<int> capacities, group_of_part, group_capacities;
    for (int group = 0; group < static_cast<int>(groups_.size()); ++group) {
      const std::vector<int> parts = PartCapacities(group, groups_[group].count);
      capacities.insert(capacities.end(), parts.begin(), parts.end());
      group_of_part.insert(group_of_part.end(), parts.size(), group);
      group_capacities.push_back(groups_[group].count);
      first_part_.push_back(static_cast<int>(capacities.size()));
    }
    partition_.emplace(std::move(capacities), std::move(group_of_part),
                       std::move(group_capacities));
  }
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

Partition::Trial PartitionedPolicy::TryNew(PlanState& state, JobRecord& job, int /*group*/) {
  return TryNewIn(state, job, PartOf(job));
}

Partition::Trial PartitionedPolicy::TryNewIn(PlanState& state, JobRecord& job, int part) {
  return partition_->Try(
      state, part, QueueOf(state, part, &job),
      [&job, this, part](PlanState& sub) { policies_[part]->PlaceNew(sub, job); });
}

void PartitionedPolicy::CommitNew(PlanState& state, JobRecord& /*job*/,
                                  const Partition::Trial& trial) {
  partition_->Commit(state, trial);
}

void PartitionedPolicy::PlaceInEarliestGroup(PlanState& state, JobRecord& job,
                                             const std::vector<ProcessorGroup>& groups,
                                             const std::vector<int>& slowest_first) {
  const RuntimeModel reference = job.job.model.OnSpeed(1);
  job.job.model = reference;
  Prepare(state);
  std::optional<Partition::Trial> best;
  Time best_end = kTimeMax;
  int best_group = -1;
  for (int group : slowest_first) {
    if (reference.Widths(groups[group].count).empty()) continue;
    job.job.model = reference.OnSpeed(groups[group].speed);
    job.group = group;
    Partition::Trial trial = TryNew(state, job, group);
    const auto mine = std::find(trial.jobs.begin(), trial.jobs.end(), &job);
    const std::optional<Allocation>& placed = trial.allocations[mine - trial.jobs.begin()];
    // Strictly earlier only: on a tie the slower group, tried first, keeps the job.
    if (placed && placed->end < best_end) {
      best_end = placed->end;
      best_group = group;
      best = std::move(trial);
    }
  }
  if (!best) return;  // no group holds a width of the job: the plan refuses such jobs first
  job.job.model = reference.OnSpeed(groups[best_group].speed);
  job.group = best_group;
  CommitNew(state, job, *best);
}

bool PartitionedPolicy::PlaceOnKeptTimelines(PlanState& state, JobRecord& job,
                                             const std::vector<ProcessorGroup>& groups,
                                             const std::vector<int>& slowest_first) {
  if (!PrepareForNewJob(state)) return false;
  const RuntimeModel reference = job.job.model.OnSpeed(1);
  std::optional<NewPlacement> best;
  int best_group = -1;
  for (int group : slowest_first) {
    if (reference.Widths(groups[group].count).empty()) continue;
    job.job.model = reference.OnSpeed(groups[group].speed);
    job.group = group;
    const int part = PartOf(job);
    auto placement = partition_->PlacementOn(state, part, job, *policies_[part]);
    if (!placement) {
      job.job.model = reference;
      return false;  // the full way decides
    }
    // Strictly earlier only: on a tie the slower group, tried first, keeps the job.
    if (!best || placement->allocation.end < best->allocation.end) {
      best = placement;
      best_group = group;
    }
  }
  if (!best) {
    job.job.model = reference;
    return false;
  }
  job.job.model = reference.OnSpeed(groups[best_group].speed);
  job.group = best_group;
  partition_->CommitNew(state, PartOf(job), job, *best);
  return true;
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
