#include "core/plan/cluster_plan.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/dag/group_free.h"
#include "core/online/policies.h"
#include "core/plan/periodic_replan.h"

namespace resched {
namespace {

// Reservation ids are "r<n>"; anything else is unknown.
std::optional<std::int64_t> ParseReservationId(const std::string& id) {
  std::int64_t n = 0;
  if (id.size() < 2 || id[0] != 'r' || !absl::SimpleAtoi(id.substr(1), &n)) return std::nullopt;
  return n;
}

// On groups of several speeds: the cluster's policy run once per group (grouped_policy.cc),
// unless it runs in the groups itself (OnlinePolicy::RunInGroups).
std::unique_ptr<OnlinePolicy> RunInGroups(const ClusterSpec& spec, const AlgorithmParams& params,
                                          std::unique_ptr<OnlinePolicy> policy) {
  if (policy->RunInGroups(spec.groups)) return policy;
  return MakeGroupedPolicy(spec.groups, [name = spec.policy, params] {
    // Built once already with these parameters, so it cannot fail here.
    return *MakePolicy(name, params);
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<ClusterPlan>> ClusterPlan::Create(const ClusterSpec& spec,
                                                                 const AlgorithmParams& params,
                                                                 Time now, ClusterLimits limits) {
  if (auto status = ValidateClusterSpec(spec); !status.ok()) return status;
  auto policy = MakePolicy(spec.policy, params);
  if (!policy.ok()) return policy.status();
  if (!spec.homogeneous()) policy = RunInGroups(spec, params, *std::move(policy));
  return CreateWithPolicy(spec, params, now, *std::move(policy), limits);
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> ClusterPlan::CreateWithPolicy(
    const ClusterSpec& spec, const AlgorithmParams& params, Time now,
    std::unique_ptr<OnlinePolicy> policy, ClusterLimits limits) {
  if (auto status = ValidateClusterSpec(spec); !status.ok()) return status;
  if (spec.replan.every > 0) {
    if (auto status = CheckAlgorithm("cluster.replan_algorithm", spec.replan.algorithm,
                                     AlgorithmKind::kPlanner, spec.replan.params);
        !status.ok()) {
      return status;
    }
    if (auto planner = MakeOfflinePlanner(spec.replan.algorithm, spec.replan.params);
        !planner.ok()) {
      return planner.status();
    }
  }
  auto plan = std::unique_ptr<ClusterPlan>(new ClusterPlan(spec, std::move(policy), now, limits));
  plan->params_ = params;
  if (spec.replan.every > 0 && spec.clock == ClockKind::kSimulated) {
    plan->next_replan_ = now + spec.replan.every;
  }
  return plan;
}

ClusterPlan::ClusterPlan(const ClusterSpec& spec, std::unique_ptr<OnlinePolicy> policy, Time now,
                         ClusterLimits limits)
    : spec_(spec),
      policy_(std::move(policy)),
      limits_(limits),
      timeline_(spec.capacity()),
      now_(now),
      created_(now) {}

std::unique_ptr<ClusterPlan> ClusterPlan::Copy() const {
  // The policy's copy keeps what it remembers (a partition's parts), so a dry run on the copy
  // places as the plan itself would.
  auto copy = std::unique_ptr<ClusterPlan>(new ClusterPlan(spec_, policy_->Copy(), now_, limits_));
  copy->params_ = params_;
  copy->timeline_ = timeline_.Copy();
  copy->last_start_ = last_start_;
  copy->next_job_ = next_job_;
  copy->next_reservation_ = next_reservation_;
  copy->reservations_ = reservations_;
  copy->group_bookings_ = group_bookings_;
  copy->next_dag_ = next_dag_;
  copy->created_ = created_;
  copy->dags_ = dags_;
  copy->next_dag_expiry_ = next_dag_expiry_;
  copy->next_replan_ = next_replan_;
  copy->past_holds_ = past_holds_;
  copy->ended_count_ = ended_count_;
  copy->ledger_ = ledger_;  // by sequence, which the copies keep
  for (const auto& [seq, job] : jobs_) {
    auto record = std::make_unique<JobRecord>(*job);
    JobRecord* raw = record.get();
    copy->by_id_[raw->job.id] = raw;
    copy->jobs_[seq] = std::move(record);
  }
  for (JobRecord* job : queue_) copy->queue_.push_back(copy->by_id_[job->job.id]);
  for (JobRecord* job : replanned_) copy->replanned_.push_back(copy->by_id_[job->job.id]);
  for (JobRecord* job : running_) copy->running_.push_back(copy->by_id_[job->job.id]);
  return copy;
}

PlanState ClusterPlan::MakeState() {
  PlanState state(now_, last_start_, timeline_, queue_, &running_, &start_bounds_);
  state.set_group_bookings(&group_bookings_);
  // On one speed replanned jobs are bookings no part made, as on a cluster without groups.
  if (!spec_.homogeneous()) state.set_group_jobs(&replanned_);
  if (tracker_.on) state.set_touched(&tracker_.jobs);
  return state;
}

void ClusterPlan::AbsorbMoves(const PlanState& state) {
  for (JobRecord* job : state.moved()) MarkChanged(job);
}

void ClusterPlan::MarkChanged(JobRecord* job) {
  // Bounded for callers that never read the sums nor take the changes (the simulator).
  if (unaccounted_.size() >= kMaxUnaccounted) AccountChangedJobs();
  unaccounted_.push_back(job);
  if (changed_set_.insert(job).second) changed_.push_back(job);
  TouchJob(*job);
}

void ClusterPlan::AccountChangedJobs() {
  for (const JobRecord* job : unaccounted_) ledger_.Account(*job);
  unaccounted_.clear();
}

std::vector<const JobRecord*> ClusterPlan::TakeChangedJobs() {
  std::vector<const JobRecord*> out(changed_.begin(), changed_.end());
  changed_.clear();
  changed_set_.clear();
  return out;
}

JobRecord* ClusterPlan::Mutable(const JobId& id) {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

const JobRecord* ClusterPlan::FindJob(const JobId& id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<const JobRecord*> ClusterPlan::Jobs() const {
  std::vector<const JobRecord*> out;
  out.reserve(jobs_.size());
  for (const auto& [seq, job] : jobs_) out.push_back(job.get());
  return out;
}

std::vector<const ExternalReservation*> ClusterPlan::Reservations() const {
  std::vector<const ExternalReservation*> out;
  for (const auto& [n, r] : reservations_) out.push_back(&r);
  return out;
}

absl::StatusOr<const JobRecord*> ClusterPlan::Submit(Job job) {
  const AccountOnReturn account(*this);
  if (job.release < now_) job.release = now_;  // a job cannot start in the past
  if (auto status = ValidateJob(job, capacity()); !status.ok()) return status;
  if (auto status = CheckFitsOneGroup(job); !status.ok()) return status;
  if (queued_count() + running_count() >= limits_.max_active_jobs) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cluster '%s' holds %d queued and running jobs, the limit", spec_.name,
                        limits_.max_active_jobs));
  }
  const std::int64_t seq = next_job_++;
  job.id = absl::StrCat("j", seq);
  auto record = std::make_unique<JobRecord>();
  record->job = std::move(job);
  record->submitted = now_;
  record->sequence = seq;
  JobRecord* raw = record.get();
  jobs_[seq] = std::move(record);
  by_id_[raw->job.id] = raw;
  queue_.push_back(raw);
  PlanState state = MakeState();
  policy_->PlaceNew(state, *raw);
  AbsorbMoves(state);
  MarkChanged(raw);
  // The plan was settled at now before this call (every operation ends so), so nothing came due
  // but what this placement put at now: the new job and the jobs it moved (the whole queue is
  // not scanned at every submission). A policy that decides at events has just decided at now,
  // and would decide the same again. In queue order, as ProcessInstant starts them; a job moved
  // twice is listed once.
  std::vector<JobRecord*> starting;
  auto start_if_due = [&](JobRecord* job) {
    if (job->placed && job->allocation.start <= now_ &&
        std::find(starting.begin(), starting.end(), job) == starting.end()) {
      starting.push_back(job);
    }
  };
  for (JobRecord* job : state.moved()) start_if_due(job);
  start_if_due(raw);
  std::sort(starting.begin(), starting.end(),
            [](const JobRecord* a, const JobRecord* b) { return a->sequence < b->sequence; });
  Start(starting);
  return raw;
}

absl::StatusOr<const JobRecord*> ClusterPlan::Cancel(const JobId& id) {
  const AccountOnReturn account(*this);
  JobRecord* job = Mutable(id);
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("job '", id, "' not found"));
  if (IsEnded(job->state)) {
    return absl::FailedPreconditionError(
        absl::StrFormat("job '%s' has already ended (%s)", id, JobStateName(job->state)));
  }
  const Time freed_from = std::max(now_, job->allocation.start);
  if (job->state == JobState::kQueued) {
    PlanState state = MakeState();
    state.Unplace(*job);
    RemoveFromQueue(job);
    job->state = JobState::kCancelled;
    job->allocation = Allocation{};
    ++ended_count_;
  } else {
    EndJob(job, JobState::kCancelled, now_);
  }
  MarkChanged(job);
  Reoptimize(freed_from);
  ProcessInstant();
  PruneEnded();
  return job;
}

absl::StatusOr<const JobRecord*> ClusterPlan::ReportStarted(const JobId& id, Time t) {
  const AccountOnReturn account(*this);
  JobRecord* job = Mutable(id);
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("job '", id, "' not found"));
  if (job->state == JobState::kRunning) return job;  // the plan already started it
  if (job->state == JobState::kQueued) {
    if (t > now_) {
      return absl::InvalidArgumentError(
          absl::StrFormat("time must not be after the cluster's now %s, got %s",
                          FormatInstant(now_), FormatInstant(t)));
    }
    // A queued job's planned start is always after now: the plan starts it when the clock
    // reaches it, and a start before its reservation would take capacity promised to others.
    return absl::FailedPreconditionError(absl::StrFormat(
        "job '%s' is QUEUED, planned to start at %s; a job starts at its planned start, when the "
        "cluster's clock reaches it, so a start reported at %s is refused",
        id, FormatInstant(job->allocation.start), FormatInstant(t)));
  }
  return absl::FailedPreconditionError(
      absl::StrFormat("job '%s' has already ended (%s)", id, JobStateName(job->state)));
}

absl::StatusOr<const JobRecord*> ClusterPlan::ReportEnded(const JobId& id, Time t, bool failed) {
  const AccountOnReturn account(*this);
  JobRecord* job = Mutable(id);
  if (job == nullptr) return absl::NotFoundError(absl::StrCat("job '", id, "' not found"));
  if (job->state != JobState::kRunning) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "job '%s' is %s; only a RUNNING job can finish or fail", id, JobStateName(job->state)));
  }
  if (t > now_ || t < job->allocation.start) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "time must be in [job start %s, cluster now %s], got %s",
        FormatInstant(job->allocation.start), FormatInstant(now_), FormatInstant(t)));
  }
  EndJob(job, failed ? JobState::kFailed : JobState::kFinished, t);
  MarkChanged(job);
  Reoptimize(t);
  ProcessInstant();
  PruneEnded();
  return job;
}

void ClusterPlan::EndJob(JobRecord* job, JobState state, Time t) {
  PlanState plan = MakeState();
  plan.Unplace(*job);  // the past needs no booking: searches never look before now
  if (t < job->allocation.end) {
    job->allocation.end = t;
    job->ended_early = true;
  }
  job->state = state;
  running_.erase(std::find(running_.begin(), running_.end(), job));
  ++ended_count_;
}

void ClusterPlan::RemoveFromQueue(JobRecord* job) {
  if (job->replanned) tracker_.replanned_order = true;
  std::vector<JobRecord*>& list = job->replanned ? replanned_ : queue_;
  list.erase(std::find(list.begin(), list.end(), job));
}

absl::StatusOr<const ExternalReservation*> ClusterPlan::AddReservation(int k, Time start, Time end,
                                                                       std::string reason,
                                                                       bool displace_queued,
                                                                       int group) {
  const AccountOnReturn account(*this);
  start = std::max(start, now_);
  if (k < 1 || k > capacity()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("processors must be in [1, %d], got %d", capacity(), k));
  }
  if (auto status = CheckHoldGroup(group, k); !status.ok()) return status;
  // Far enough from kTimeMax that every search result and end time stays representable.
  if (end > kTimeMax / 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end must be at most %s, got %d us", FormatInstant(kTimeMax / 2), end));
  }
  if (end <= start) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end must be after start and after the cluster's now (%s), got %s",
                        FormatInstant(start), FormatInstant(end)));
  }
  if (static_cast<int>(reservations_.size()) >= limits_.max_reservations) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cluster '%s' holds %d reservations, the limit", spec_.name, limits_.max_reservations));
  }
  std::vector<Allocation> previous;
  if (displace_queued) {
    PlanState state = MakeState();
    for (std::vector<JobRecord*>* list : {&queue_, &replanned_}) {
      for (JobRecord* job : *list) {
        previous.push_back(job->allocation);
        state.Unplace(*job);
      }
    }
  }
  // A group's hold must also leave its group's jobs and holds their processors.
  const int group_free = group >= 0 ? GroupMinFree(group, start, end) : k;
  auto booking = group_free >= k ? timeline_.Add(start, end, k)
                                 : absl::ResourceExhaustedError("the group is full");
  if (!booking.ok()) {
    if (displace_queued) {  // put every queued job back exactly where it was
      PlanState state = MakeState();
      std::size_t i = 0;
      for (std::vector<JobRecord*>* list : {&queue_, &replanned_}) {
        for (JobRecord* job : *list) state.Place(*job, previous[i++], job->guaranteed);
      }
    }
    return absl::ResourceExhaustedError(absl::StrFormat(
        "%d processors%s are not free over [%s, %s)%s; at least %d are free there", k,
        group >= 0 ? absl::StrFormat(" of group %d ('%s')", group, spec_.groups[group].name) : "",
        FormatInstant(start), FormatInstant(end),
        displace_queued ? " even without queued jobs" : " (set displace_queued to move jobs)",
        std::max(0, std::min(group_free, timeline_.MinFree(start, end)))));
  }
  const std::int64_t n = next_reservation_++;
  ExternalReservation& r = reservations_[n];
  r = ExternalReservation{absl::StrCat("r", n), k, start, end, std::move(reason), *booking, group};
  if (group >= 0) group_bookings_[*booking] = group;
  if (displace_queued) {
    ReturnReplannedToPolicy();
    PlanState state = MakeState();
    policy_->Rebuild(state);
    AbsorbMoves(state);
    ProcessInstant();
  }
  return &r;
}

absl::Status ClusterPlan::RemoveReservation(const std::string& id) {
  const AccountOnReturn account(*this);
  const auto n = ParseReservationId(id);
  auto it = n ? reservations_.find(*n) : reservations_.end();
  if (it == reservations_.end()) {
    return absl::NotFoundError(absl::StrCat("reservation '", id, "' not found"));
  }
  const Time freed_from = std::max(now_, it->second.start);
  timeline_.ReleaseHeld(it->second.booking);
  group_bookings_.erase(it->second.booking);
  if (tracker_.on && it->first < tracker_.first_new_reservation) {
    tracker_.removed_reservations.push_back(it->first);
  }
  reservations_.erase(it);
  Reoptimize(freed_from);
  ProcessInstant();
  return absl::OkStatus();
}

std::optional<Time> ClusterPlan::NextEventAfterNow() const {
  std::optional<Time> next;
  auto consider = [&](Time t) {
    if (t > now_ && (!next || t < *next)) next = t;
  };
  for (const JobRecord* job : running_) consider(job->allocation.end);
  for (const JobRecord* job : queue_) {
    if (job->placed) consider(job->allocation.start);
    if (policy_->DecidesAtEvents()) consider(job->job.release);
  }
  for (const JobRecord* job : replanned_) consider(job->allocation.start);
  for (const auto& [n, r] : reservations_) consider(r.end);
  // With nothing queued there is nothing to replan.
  if (spec_.replan.every > 0 && queued_count() > 0) consider(next_replan_);
  return next;
}

bool ClusterPlan::PeriodicReplanDueBy(Time t) const {
  return spec_.clock == ClockKind::kSimulated && spec_.replan.every > 0 && queued_count() > 0 &&
         next_replan_ <= t;
}

absl::Status ClusterPlan::AdvanceTo(Time t, PeriodicReplanner* replanner) {
  const AccountOnReturn account(*this);
  PlanningReplanner in_place;
  PeriodicReplanner& periodic = replanner != nullptr ? *replanner : in_place;
  if (t < now_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "time must be >= the cluster's now (%s), got %s", FormatInstant(now_), FormatInstant(t)));
  }
  while (true) {
    const auto next = NextEventAfterNow();
    if (!next || *next > t) break;
    now_ = *next;
    ProcessInstant();
    ReplanIfDue(periodic);
  }
  now_ = t;
  ProcessInstant();
  ReplanIfDue(periodic);
  PruneEnded();
  return absl::OkStatus();
}

// Settles the plan at now_: ends what is due, lets an event-driven policy decide, then starts
// what is due.
void ClusterPlan::ProcessInstant() {
  // DAG tasks that ended are released before the policy decides, as ended jobs and holds are:
  // a policy that follows the timeline's change record (easy.cc) then sees the capacity back.
  ExpireDags();
  std::vector<JobRecord*> due;
  for (JobRecord* job : running_) {
    if (job->allocation.end <= now_) due.push_back(job);
  }
  for (JobRecord* job : due) {
    EndJob(job, JobState::kFinished, job->allocation.end);
    MarkChanged(job);
  }
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    if (it->second.end <= now_) {
      timeline_.ReleaseHeld(it->second.booking, now_);
      group_bookings_.erase(it->second.booking);
      // Kept for the historical q of the DAG planners; the oldest go first.
      past_holds_.push_back({it->second.k, it->second.start, it->second.end});
      if (static_cast<int>(past_holds_.size()) > limits_.max_retained_ended)
        past_holds_.pop_front();
      if (tracker_.on) {
        tracker_.added_past_holds.push_back(past_holds_.back());
        if (it->first < tracker_.first_new_reservation) {
          tracker_.removed_reservations.push_back(it->first);
        }
      }
      it = reservations_.erase(it);
    } else {
      ++it;
    }
  }
  if (policy_->DecidesAtEvents()) {
    PlanState state = MakeState();
    policy_->Reoptimize(state, now_);
    AbsorbMoves(state);
  }
  std::vector<JobRecord*> starting;
  for (std::vector<JobRecord*>* list : {&queue_, &replanned_}) {
    for (JobRecord* job : *list) {
      if (job->placed && job->allocation.start <= now_) starting.push_back(job);
    }
  }
  Start(starting);
}

void ClusterPlan::Start(const std::vector<JobRecord*>& starting) {
  for (JobRecord* job : starting) {
    RemoveFromQueue(job);
    job->replanned = false;
    job->state = JobState::kRunning;
    job->guaranteed = true;
    running_.push_back(job);
    if (tracker_.on) tracker_.started.push_back(job->job.id);
    last_start_ = std::max(last_start_, job->allocation.start);
    MarkChanged(job);
  }
}

void ClusterPlan::PruneEnded() {
  for (auto it = jobs_.begin(); it != jobs_.end() && ended_count_ > limits_.max_retained_ended;) {
    if (IsEnded(it->second->state)) {
      if (changed_set_.erase(it->second.get()) > 0) {
        changed_.erase(std::find(changed_.begin(), changed_.end(), it->second.get()));
      }
      if (tracker_.on && it->first < tracker_.first_new_job) {
        tracker_.forgotten.push_back(it->second->job.id);
      }
      by_id_.erase(it->second->job.id);
      AccountChangedJobs();  // nothing pending may point at the job
      ledger_.Forget(*it->second);
      it = jobs_.erase(it);
      --ended_count_;
    } else {
      ++it;
    }
  }
}

absl::Status ClusterPlan::CheckFitsOneGroup(const Job& job) const {
  if (spec_.homogeneous()) return absl::OkStatus();
  const auto largest = std::max_element(
      spec_.groups.begin(), spec_.groups.end(),
      [](const ProcessorGroup& a, const ProcessorGroup& b) { return a.count < b.count; });
  if (!job.model.Widths(largest->count).empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "job.model: no allowed width fits one processor group of cluster '%s' (the largest, "
      "'%s', has %d processors); on groups of different speeds a job runs inside one group",
      spec_.name, largest->name, largest->count));
}

absl::Status ClusterPlan::CheckHoldGroup(int group, int k) const {
  if (group == -1) return absl::OkStatus();
  if (spec_.homogeneous()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "group must be unset: the processors of cluster '%s' all have one speed, got %d",
        spec_.name, group));
  }
  const int groups = static_cast<int>(spec_.groups.size());
  if (group < 0 || group >= groups) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "group must be unset (any group) or in [0, %d), the cluster's groups; got %d", groups,
        group));
  }
  if (k > spec_.groups[group].count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("processors must be in [1, %d], the count of group %d ('%s'); got %d",
                        spec_.groups[group].count, group, spec_.groups[group].name, k));
  }
  return absl::OkStatus();
}

int ClusterPlan::GroupMinFree(int group, Time start, Time end) const {
  const std::vector<Timeline> own = OwnBookingsByGroup(start, end, QueuedJobsIn::kAll);
  return std::min(own[group].MinFree(start, end), timeline_.MinFree(start, end));
}

std::vector<Timeline> ClusterPlan::OwnBookingsByGroup(Time from, Time to,
                                                      QueuedJobsIn queued) const {
  std::vector<Timeline> own;
  for (const ProcessorGroup& g : spec_.groups) own.emplace_back(g.count);
  auto book = [&](int group, const Allocation& a) {
    const Time start = std::max(a.start, from);
    const Time end = std::min(a.end, to);
    if (group < 0 || group >= static_cast<int>(own.size()) || start >= end) return;
    (void)own[group].ForceAdd(start, end, a.k);  // never empty nor k < 1 here
  };
  for (const auto& [seq, job] : jobs_) {
    if (!job->placed) continue;
    if (job->state == JobState::kQueued && queued != QueuedJobsIn::kAll &&
        (queued == QueuedJobsIn::kNone || job->replanned)) {
      continue;
    }
    book(job->group, job->allocation);
  }
  for (const auto& [n, r] : reservations_) book(r.group, {r.k, r.start, r.end});
  for (const auto& [n, d] : dags_) {
    for (const DagTaskBooking& t : d.tasks) {
      if (t.booking >= 0) book(t.group, t.allocation);
    }
  }
  return own;
}

std::vector<Timeline> ClusterPlan::FreeByGroup() const {
  if (spec_.homogeneous()) return {};
  return SplitFreeAmongGroups(timeline_, OwnBookingsByGroup(now_, kTimeMax, QueuedJobsIn::kAll),
                              spec_.groups, now_);
}

std::vector<Timeline> ClusterPlan::FreeByGroupForQueued() const {
  if (spec_.homogeneous()) return {};
  return SplitFreeAmongGroups(
      FreeForQueued(), OwnBookingsByGroup(now_, kTimeMax, QueuedJobsIn::kNone), spec_.groups, now_);
}

ScheduleToValidate ClusterPlan::ToValidate() const {
  ScheduleToValidate s;
  s.capacity = capacity();
  if (!spec_.homogeneous()) s.groups = spec_.groups;
  for (const auto& [seq, job] : jobs_) {
    if (job->allocation.k == 0) continue;  // cancelled before it was ever placed
    ScheduledItem item;
    item.id = job->job.id;
    item.allocation = job->allocation;
    item.release = job->job.release;
    item.model = &job->job.model;
    item.ended_early = job->ended_early;
    item.group = job->group;
    s.items.push_back(item);
  }
  for (const auto& [n, r] : reservations_) {
    s.holds.push_back({r.k, r.start, r.end});
    s.hold_groups.push_back(r.group);
  }
  for (const auto& [n, d] : dags_) {
    for (const DagTaskBooking& t : d.tasks) {
      const Allocation held = t.Held();
      if (held.end <= held.start) continue;  // released before its start
      s.holds.push_back(held);
      s.hold_groups.push_back(t.group);
    }
  }
  return s;
}

double ClusterPlan::PastUtilization() const {
  const JobLedger& ledger = Ledger();
  const std::optional<Time> first = ledger.first_start();
  if (!first || *first >= now_) return 0;
  absl::int128 busy = ledger.ended_area();
  for (const JobRecord* job : running_) {
    const Allocation& a = job->allocation;
    if (a.k == 0 || a.start >= now_) continue;
    busy += absl::int128(a.k) * absl::int128(std::min(a.end, now_) - a.start);
  }
  const double span = static_cast<double>(now_ - *first) * capacity();
  return static_cast<double>(busy) / span;
}

ClusterPlan::OwnerUsage ClusterPlan::UsageOf(const std::string& owner) const {
  const JobLedger::OwnerTotals totals = Ledger().Owner(owner);
  OwnerUsage usage{totals.active_jobs, totals.queued_area};
  for (const JobRecord* job : running_) {
    const Allocation& a = job->allocation;
    if (job->job.owner != owner || a.end <= now_) continue;
    usage.processor_micros_ahead +=
        absl::int128(a.k) * absl::int128(a.end - std::max(a.start, now_));
  }
  return usage;
}

}  // namespace resched
