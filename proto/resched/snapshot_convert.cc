#include "proto/resched/snapshot_convert.h"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/resched/convert.h"

namespace resched {
namespace {

void Put(const Allocation& a, pb::SnapshotAllocation* out) {
  out->set_k(a.k);
  out->set_start(a.start);
  out->set_end(a.end);
}

Allocation Get(const pb::SnapshotAllocation& a) { return Allocation{a.k(), a.start(), a.end()}; }

absl::StatusOr<JobState> FromSnapshot(pb::JobState state, const std::string& field) {
  switch (state) {
    case pb::QUEUED:
      return JobState::kQueued;
    case pb::RUNNING:
      return JobState::kRunning;
    case pb::FINISHED:
      return JobState::kFinished;
    case pb::FAILED:
      return JobState::kFailed;
    case pb::CANCELLED:
      return JobState::kCancelled;
    default:
      return absl::DataLossError(absl::StrCat(field, ": unknown job state ", state));
  }
}

void Put(const JobRecord& r, pb::SnapshotJob* out) {
  out->set_id(r.job.id);
  out->set_name(r.job.name);
  out->set_owner(r.job.owner);
  out->set_release(r.job.release);
  out->set_weight(r.job.weight);
  *out->mutable_model() = ToProto(r.job.model);
  if (r.job.deadline) out->set_deadline(*r.job.deadline);
  out->set_state(ToProto(r.state));
  Put(r.allocation, out->mutable_allocation());
  out->set_placed(r.placed);
  out->set_reservation(r.reservation);
  out->set_guaranteed(r.guaranteed);
  out->set_ended_early(r.ended_early);
  out->set_replanned(r.replanned);
  if (r.group >= 0) out->set_group(r.group);
  out->set_submitted(r.submitted);
  out->set_sequence(r.sequence);
}

absl::StatusOr<JobRecord> Get(const pb::SnapshotJob& j, const std::string& field) {
  JobRecord r;
  r.job.id = j.id();
  r.job.name = j.name();
  r.job.owner = j.owner();
  r.job.release = j.release();
  r.job.weight = j.weight();
  auto model = FromProto(j.model(), field + ".model");
  if (!model.ok()) return absl::DataLossError(model.status().message());
  r.job.model = *std::move(model);
  if (j.has_deadline()) r.job.deadline = j.deadline();
  auto state = FromSnapshot(j.state(), field + ".state");
  if (!state.ok()) return state.status();
  r.state = *state;
  r.allocation = Get(j.allocation());
  r.placed = j.placed();
  r.reservation = j.reservation();
  r.guaranteed = j.guaranteed();
  r.ended_early = j.ended_early();
  r.replanned = j.replanned();
  r.group = j.has_group() ? j.group() : -1;
  r.submitted = j.submitted();
  r.sequence = j.sequence();
  return r;
}

void Put(const DagReservation& d, pb::SnapshotDag* out) {
  out->set_id(d.id);
  out->set_algorithm(d.algorithm);
  out->set_label(d.label);
  out->set_owner(d.owner);
  out->set_release(d.release);
  for (const DagTaskBooking& t : d.tasks) {
    pb::SnapshotDagTask* task = out->add_tasks();
    task->set_task(t.task);
    Put(t.allocation, task->mutable_allocation());
    task->set_booking(t.booking);
    if (t.group >= 0) task->set_group(t.group);
    task->set_state(static_cast<int>(t.state));
    if (t.started) task->set_started(*t.started);
    if (t.ended) task->set_ended(*t.ended);
    if (t.released_at != kTimeMax) task->set_released_at(t.released_at);
  }
  for (const Edge& e : d.edges) {
    pb::SnapshotEdge* edge = out->add_edges();
    edge->set_from(e.from);
    edge->set_to(e.to);
    edge->set_transfer(e.transfer);
  }
  out->set_completion(d.completion);
  out->set_cpu_hours(d.cpu_hours);
}

DagReservation Get(const pb::SnapshotDag& d) {
  DagReservation r;
  r.id = d.id();
  r.algorithm = d.algorithm();
  r.label = d.label();
  r.owner = d.owner();
  r.release = d.release();
  r.tasks.reserve(d.tasks_size());
  for (const pb::SnapshotDagTask& t : d.tasks()) {
    DagTaskBooking task;
    task.task = t.task();
    task.allocation = Get(t.allocation());
    task.booking = t.booking();
    task.group = t.has_group() ? t.group() : -1;
    task.state = static_cast<DagTaskState>(
        std::clamp(t.state(), 0, static_cast<int>(DagTaskState::kReleased)));
    if (t.has_started()) task.started = t.started();
    if (t.has_ended()) task.ended = t.ended();
    if (t.has_released_at()) task.released_at = t.released_at();
    r.tasks.push_back(std::move(task));
  }
  for (const pb::SnapshotEdge& e : d.edges()) r.edges.push_back({e.from(), e.to(), e.transfer()});
  r.completion = d.completion();
  r.cpu_hours = d.cpu_hours();
  return r;
}

void Put(std::int64_t sequence, const ExternalReservation& r, pb::SnapshotReservation* out) {
  out->set_sequence(sequence);
  out->set_id(r.id);
  Put(Allocation{r.k, r.start, r.end}, out->mutable_window());
  out->set_reason(r.reason);
  out->set_booking(r.booking);
  if (r.group >= 0) out->set_group(r.group);
}

std::pair<std::int64_t, ExternalReservation> Get(const pb::SnapshotReservation& r) {
  const Allocation w = Get(r.window());
  return {r.sequence(), ExternalReservation{r.id(), w.k, w.start, w.end, r.reason(), r.booking(),
                                            r.has_group() ? r.group() : -1}};
}

void Put(const PolicyImage& image, pb::SnapshotPolicy* out) {
  for (const auto& [name, rows] : image.tables) {
    pb::SnapshotPolicyTable* table = out->add_tables();
    table->set_name(name);
    for (const PolicyImage::Row& row : rows) {
      pb::SnapshotPolicyRow* saved = table->add_rows();
      saved->set_job(row.job);
      saved->mutable_values()->Add(row.values.begin(), row.values.end());
    }
  }
}

// `field` names the message for errors. Fields this resched does not know (another version's:
// fields 1-4 held a few policies' state before it was tables) would be the policy's memory lost
// without a word: refused instead.
absl::StatusOr<PolicyImage> Get(const pb::SnapshotPolicy& policy, absl::string_view field) {
  const google::protobuf::UnknownFieldSet& unknown =
      policy.GetReflection()->GetUnknownFields(policy);
  if (!unknown.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        field, ": the policy's state has field ", unknown.field(0).number(),
        ", which this resched does not read (written by another version of resched); starting "
        "from it would lose what the policy remembers"));
  }
  PolicyImage image;
  for (const pb::SnapshotPolicyTable& table : policy.tables()) {
    PolicyImage::Table rows;
    rows.reserve(table.rows_size());
    for (const pb::SnapshotPolicyRow& row : table.rows()) {
      rows.push_back({row.job(), {row.values().begin(), row.values().end()}});
    }
    image.Put(table.name(), std::move(rows));
  }
  return image;
}

}  // namespace

pb::SnapshotPlan ToSnapshot(const ClusterPlanImage& image) {
  pb::SnapshotPlan out;
  out.set_now(image.now);
  out.set_created(image.created);
  out.set_last_start(image.last_start);
  out.set_next_dag_expiry(image.next_dag_expiry);
  out.set_next_replan(image.next_replan);
  out.set_next_job(image.next_job);
  out.set_next_reservation(image.next_reservation);
  out.set_next_dag(image.next_dag);
  out.mutable_jobs()->Reserve(static_cast<int>(image.jobs.size()));
  for (const JobRecord& job : image.jobs) Put(job, out.add_jobs());
  for (const JobId& id : image.running) out.add_running(id);
  for (const auto& [seq, r] : image.reservations) Put(seq, r, out.add_reservations());
  for (const auto& [seq, dag] : image.dags) {
    pb::SnapshotDag* saved = out.add_dags();
    Put(dag, saved);
    saved->set_sequence(seq);
  }
  for (const Allocation& a : image.past_holds) Put(a, out.add_past_holds());
  pb::SnapshotTimeline* timeline = out.mutable_timeline();
  timeline->set_capacity(image.timeline.capacity);
  timeline->mutable_slots()->Reserve(static_cast<int>(image.timeline.slots.size()));
  for (const TimelineImage::Slot& s : image.timeline.slots) {
    pb::SnapshotTimelineSlot* slot = timeline->add_slots();
    Put(s.reservation, slot->mutable_reservation());
    slot->set_generation(s.generation);
    slot->set_live(s.live);
  }
  timeline->mutable_free_slots()->Add(image.timeline.free_slots.begin(),
                                      image.timeline.free_slots.end());
  Put(image.policy, out.mutable_policy());
  return out;
}

absl::StatusOr<ClusterPlanImage> FromSnapshot(const pb::SnapshotPlan& plan) {
  ClusterPlanImage image;
  image.now = plan.now();
  image.created = plan.created();
  image.last_start = plan.last_start();
  image.next_dag_expiry = plan.next_dag_expiry();
  image.next_replan = plan.next_replan();
  image.next_job = plan.next_job();
  image.next_reservation = plan.next_reservation();
  image.next_dag = plan.next_dag();
  image.jobs.reserve(plan.jobs_size());
  for (int i = 0; i < plan.jobs_size(); ++i) {
    auto job = Get(plan.jobs(i), absl::StrCat("plan.jobs[", i, "]"));
    if (!job.ok()) return job.status();
    image.jobs.push_back(*std::move(job));
  }
  image.running.assign(plan.running().begin(), plan.running().end());
  for (const pb::SnapshotReservation& r : plan.reservations()) {
    image.reservations.push_back(Get(r));
  }
  for (const pb::SnapshotDag& d : plan.dags()) image.dags.emplace_back(d.sequence(), Get(d));
  for (const pb::SnapshotAllocation& a : plan.past_holds()) image.past_holds.push_back(Get(a));
  image.timeline.capacity = plan.timeline().capacity();
  image.timeline.slots.reserve(plan.timeline().slots_size());
  for (const pb::SnapshotTimelineSlot& s : plan.timeline().slots()) {
    image.timeline.slots.push_back({Get(s.reservation()), s.generation(), s.live()});
  }
  image.timeline.free_slots.assign(plan.timeline().free_slots().begin(),
                                   plan.timeline().free_slots().end());
  absl::StatusOr<PolicyImage> policy = Get(plan.policy(), "snapshot.policy");
  if (!policy.ok()) return policy.status();
  image.policy = *std::move(policy);
  return image;
}

pb::PlanChange ToJournal(const PlanChange& change) {
  pb::PlanChange out;
  out.set_now(change.now);
  out.set_last_start(change.last_start);
  out.set_next_dag_expiry(change.next_dag_expiry);
  out.set_next_replan(change.next_replan);
  out.set_next_job(change.next_job);
  out.set_next_reservation(change.next_reservation);
  out.set_next_dag(change.next_dag);
  out.mutable_timeline()->Reserve(static_cast<int>(change.timeline.size()));
  for (const TimelineChange& op : change.timeline) {
    pb::TimelineOp* saved = out.add_timeline();
    saved->set_id(op.id);
    Put(op.reservation, saved->mutable_reservation());
    saved->set_added(op.added);
    if (!op.added) saved->set_searches_from(op.searches_from);
  }
  out.mutable_jobs()->Reserve(static_cast<int>(change.jobs.size()));
  for (const JobRecord& job : change.jobs) Put(job, out.add_jobs());
  for (const JobId& id : change.forgotten_jobs) out.add_forgotten_jobs(id);
  for (const JobId& id : change.started) out.add_started(id);
  if (change.replanned_order) {
    out.set_replanned_order_changed(true);
    for (const JobId& id : *change.replanned_order) out.add_replanned_order(id);
  }
  for (const auto& [seq, r] : change.added_reservations) {
    Put(seq, r, out.add_added_reservations());
  }
  out.mutable_removed_reservations()->Add(change.removed_reservations.begin(),
                                          change.removed_reservations.end());
  for (const Allocation& a : change.added_past_holds) Put(a, out.add_added_past_holds());
  out.set_past_holds(change.past_holds);
  for (const auto& [seq, dag] : change.dags) {
    pb::SnapshotDag* saved = out.add_dags();
    Put(dag, saved);
    saved->set_sequence(seq);
  }
  out.mutable_removed_dags()->Add(change.removed_dags.begin(), change.removed_dags.end());
  if (change.policy) Put(*change.policy, out.mutable_policy());
  return out;
}

absl::StatusOr<PlanChange> FromJournal(const pb::PlanChange& change) {
  PlanChange out;
  out.now = change.now();
  out.last_start = change.last_start();
  out.next_dag_expiry = change.next_dag_expiry();
  out.next_replan = change.next_replan();
  out.next_job = change.next_job();
  out.next_reservation = change.next_reservation();
  out.next_dag = change.next_dag();
  out.timeline.reserve(change.timeline_size());
  for (const pb::TimelineOp& op : change.timeline()) {
    out.timeline.push_back(
        TimelineChange{op.id(), Get(op.reservation()), op.added(), op.searches_from()});
  }
  out.jobs.reserve(change.jobs_size());
  for (int i = 0; i < change.jobs_size(); ++i) {
    auto job = Get(change.jobs(i), absl::StrCat("plan_change.jobs[", i, "]"));
    if (!job.ok()) return job.status();
    out.jobs.push_back(*std::move(job));
  }
  out.forgotten_jobs.assign(change.forgotten_jobs().begin(), change.forgotten_jobs().end());
  out.started.assign(change.started().begin(), change.started().end());
  if (change.replanned_order_changed()) {
    out.replanned_order.emplace(change.replanned_order().begin(), change.replanned_order().end());
  }
  for (const pb::SnapshotReservation& r : change.added_reservations()) {
    out.added_reservations.push_back(Get(r));
  }
  out.removed_reservations.assign(change.removed_reservations().begin(),
                                  change.removed_reservations().end());
  for (const pb::SnapshotAllocation& a : change.added_past_holds()) {
    out.added_past_holds.push_back(Get(a));
  }
  out.past_holds = change.past_holds();
  for (const pb::SnapshotDag& d : change.dags()) out.dags.emplace_back(d.sequence(), Get(d));
  out.removed_dags.assign(change.removed_dags().begin(), change.removed_dags().end());
  if (change.has_policy()) {
    absl::StatusOr<PolicyImage> policy = Get(change.policy(), "plan_change.policy");
    if (!policy.ok()) return policy.status();
    out.policy = *std::move(policy);
  }
  return out;
}

}  // namespace resched
