#include "server/app/apply.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/resched/convert.h"
#include "server/app/call_helpers.h"
#include "server/app/planning_span.h"
#include "server/app/quota.h"
#include "server/trace/span.h"

namespace resched::server {

absl::Status ApplySubmitJob(ClusterState::Txn& txn, const pb::SubmitJobRequest& request,
                            pb::SubmitJobResponse* response, const auth::TenantLimit* quota) {
  ClusterPlan& plan = txn.plan;
  absl::StatusOr<Job> job;
  {
    trace::ScopedSpan validate(kValidateSpan);
    job = FromProto(request.job(), plan.now());
    RecordOutcome(validate, job.status());
  }
  if (!job.ok()) return job.status();
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "submit"));
  auto placed = quota != nullptr ? SubmitWithinQuota(plan, *std::move(job), *quota)
                                 : plan.Submit(*std::move(job));
  RecordOutcome(planning, placed);
  if (!placed.ok()) return placed.status();
  // The job placed, and the queued jobs this submission moved.
  *response->mutable_job() = ToProto(**placed, request.cluster());
  for (const JobRecord* moved : plan.PeekChangedJobs()) {
    if (moved != *placed && moved->state == JobState::kQueued) {
      *response->add_moved_jobs() = ToProto(*moved, request.cluster());
    }
  }
  return absl::OkStatus();
}

absl::Status ApplyCancelJob(ClusterState::Txn& txn, const pb::CancelJobRequest& request,
                            pb::Job* response) {
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "cancel"));
  auto job = txn.plan.Cancel(request.id());
  RecordOutcome(planning, job);
  if (!job.ok()) return job.status();
  *response = ToProto(**job, request.cluster());
  return absl::OkStatus();
}

absl::Status ApplyReportJobEvent(ClusterState::Txn& txn, const pb::ReportJobEventRequest& request,
                                 pb::Job* response) {
  auto t = TimeOr(request.has_time(), request.time(), "time", txn.plan.now());
  if (!t.ok()) return t.status();
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "report_event"));
  auto job = request.kind() == pb::STARTED
                 ? txn.plan.ReportStarted(request.id(), *t)
                 : txn.plan.ReportEnded(request.id(), *t, request.kind() == pb::FAILED_EVENT);
  RecordOutcome(planning, job);
  if (!job.ok()) return job.status();
  *response = ToProto(**job, request.cluster());
  return absl::OkStatus();
}

absl::Status ApplyAddReservation(ClusterState::Txn& txn, const pb::AddReservationRequest& request,
                                 pb::Reservation* response) {
  absl::StatusOr<Time> start;
  absl::StatusOr<Time> end;
  {
    trace::ScopedSpan validate(kValidateSpan);
    start = FromProto(request.start(), "start");
    if (start.ok()) end = FromProto(request.end(), "end");
    RecordOutcome(validate, start.ok() ? end.status() : start.status());
  }
  if (!start.ok()) return start.status();
  if (!end.ok()) return end.status();
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "add_reservation"));
  auto added = txn.plan.AddReservation(request.processors(), *start, *end, request.reason(),
                                       request.displace_queued(),
                                       request.has_group() ? request.group() : -1);
  RecordOutcome(planning, added.status());
  if (!added.ok()) return added.status();
  *response = ToProto(**added, request.cluster());
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::RESERVATION_ADDED);
  *event.mutable_reservation() = *response;
  txn.events.push_back(std::move(event));
  return absl::OkStatus();
}

absl::Status ApplyRemoveReservation(ClusterState::Txn& txn,
                                    const pb::RemoveReservationRequest& request) {
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::RESERVATION_REMOVED);
  for (const auto* r : txn.plan.Reservations()) {
    if (r->id == request.id()) *event.mutable_reservation() = ToProto(*r, request.cluster());
  }
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "remove_reservation"));
  absl::Status removed = txn.plan.RemoveReservation(request.id());
  RecordOutcome(planning, removed);
  if (!removed.ok()) return removed;
  txn.events.push_back(std::move(event));
  return absl::OkStatus();
}

absl::Status ApplyReleaseDag(ClusterState::Txn& txn, const pb::ReleaseDAGRequest& request) {
  const DagReservation* d = txn.plan.FindDag(request.id());
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::DAG_RELEASED);
  if (d != nullptr) *event.mutable_dag() = ToProto(*d, request.cluster());
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "release_dag"));
  absl::Status released = txn.plan.ReleaseDag(request.id());
  RecordOutcome(planning, released);
  if (!released.ok()) return released;
  txn.events.push_back(std::move(event));
  return absl::OkStatus();
}

absl::Status ApplyReportDagTaskEvent(ClusterState::Txn& txn,
                                     const pb::ReportDagTaskEventRequest& request,
                                     pb::DagReservation* response) {
  auto t = TimeOr(request.has_time(), request.time(), "time", txn.plan.now());
  if (!t.ok()) return t.status();
  const DagTaskEvent event = request.kind() == pb::STARTED          ? DagTaskEvent::kStarted
                             : request.kind() == pb::FINISHED_EVENT ? DagTaskEvent::kFinished
                                                                    : DagTaskEvent::kFailed;
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "report_dag_task"));
  auto dag = txn.plan.ReportDagTask(request.id(), request.task(), event, *t);
  RecordOutcome(planning, dag.status());
  if (!dag.ok()) return dag.status();
  *response = ToProto(**dag, request.cluster());
  pb::ScheduleEvent changed;
  changed.set_kind(pb::ScheduleEvent::DAG_TASK_CHANGED);
  *changed.mutable_dag() = *response;
  txn.events.push_back(std::move(changed));
  return absl::OkStatus();
}

absl::StatusOr<Time> AdvanceTarget(const ClusterPlan& plan,
                                   const pb::AdvanceClockRequest& request) {
  absl::StatusOr<Time> target = absl::InvalidArgumentError("to or by is required");
  if (request.has_to()) target = FromProto(request.to(), "to");
  if (request.has_by()) {
    auto by = FromProto(request.by(), "by");
    target = by.ok() ? absl::StatusOr<Time>(plan.now() + *by) : by.status();
  }
  return target;
}

absl::Status ApplyAdvanceClock(ClusterState::Txn& txn, const pb::AdvanceClockRequest& request,
                               pb::AdvanceClockResponse* response, PeriodicReplanner* replanner) {
  absl::StatusOr<Time> target = AdvanceTarget(txn.plan, request);
  if (!target.ok()) return target.status();
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "advance_clock"));
  absl::Status advanced = txn.plan.AdvanceTo(*target, replanner);
  RecordOutcome(planning, advanced);
  if (!advanced.ok()) return advanced;
  for (const JobRecord* job : txn.plan.PeekChangedJobs()) {
    if (job->state == JobState::kRunning) {
      *response->add_started() = ToProto(*job, request.cluster());
    } else if (job->state != JobState::kQueued) {
      *response->add_finished() = ToProto(*job, request.cluster());
    }
  }
  *response->mutable_now() = ToTimestamp(txn.plan.now());
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::CLOCK_ADVANCED);
  txn.events.push_back(std::move(event));
  return absl::OkStatus();
}

absl::Status CommitPlannedDag(ClusterState::Txn& txn, const Dag& dag, const DagPlan& plan,
                              const std::string& algorithm, const std::string& label,
                              const std::string& owner, Time release, const std::string& cluster,
                              std::string* dag_id) {
  absl::StatusOr<const DagReservation*> committed =
      txn.plan.CommitDag(dag, plan, algorithm, label, release, owner);
  if (!committed.ok()) return committed.status();
  *dag_id = (*committed)->id;
  pb::ScheduleEvent event;
  event.set_kind(pb::ScheduleEvent::DAG_RESERVED);
  *event.mutable_dag() = ToProto(**committed, cluster);
  txn.events.push_back(std::move(event));
  return absl::OkStatus();
}

absl::Status ApplyCommittedDag(ClusterState::Txn& txn, const pb::CommittedDag& committed,
                               const std::string& cluster) {
  absl::StatusOr<Dag> dag = FromProto(committed.dag());
  if (!dag.ok()) return dag.status();
  if (committed.placements_size() != static_cast<int>(dag->tasks.size())) {
    return absl::DataLossError(absl::StrFormat("a committed DAG has %d placements for %d tasks",
                                               committed.placements_size(), dag->tasks.size()));
  }
  DagPlan plan;
  for (const pb::TaskPlacement& p : committed.placements()) {
    auto start = FromProto(p.allocation().start(), "start");
    if (!start.ok()) return start.status();
    auto end = FromProto(p.allocation().end(), "end");
    if (!end.ok()) return end.status();
    plan.tasks.push_back(TaskReservation{
        p.allocation().processors(), *start, *end, {}, p.has_group() ? p.group() : -1});
  }
  auto completion = FromProto(committed.completion(), "completion");
  if (!completion.ok()) return completion.status();
  plan.completion = *completion;
  plan.cpu_hours = committed.cpu_hours();
  auto release = FromProto(committed.release(), "release");
  if (!release.ok()) return release.status();
  std::string dag_id;
  return CommitPlannedDag(txn, *dag, plan, committed.algorithm(), committed.label(),
                          committed.owner(), *release, cluster, &dag_id);
}

absl::Status ApplyCommittedReplan(ClusterState::Txn& txn, const pb::CommittedReplan& committed) {
  std::vector<PlannedJob> planned;
  planned.reserve(committed.jobs_size());
  for (const pb::ReplannedJob& job : committed.jobs()) {
    auto start = FromProto(job.allocation().start(), "start");
    if (!start.ok()) return start.status();
    auto end = FromProto(job.allocation().end(), "end");
    if (!end.ok()) return end.status();
    planned.push_back({job.job_id(), Allocation{job.allocation().processors(), *start, *end}});
  }
  trace::ScopedSpan planning(kPlanSpan, PolicyStepAttributes(txn, "replan"));
  absl::Status applied = txn.plan.ApplyReplan(planned);
  RecordOutcome(planning, applied);
  return applied;
}

}  // namespace resched::server
