// ReserveDAG, QueryDeadline and the DAG reservation resource (Aida & Casanova's RESSCHED and
// RESSCHEDDL, HEFT and Barbosa, built by the registry). Planning runs on a copy of the cluster,
// off its lock, so a slow planner blocks no other call; the commit then books the plan under the
// lock if it still fits (CommitDag checks every task), else plans again
// (server/app/plan_then_commit.h).
#include <algorithm>
#include <chrono>
#include <optional>

#include "absl/strings/str_format.h"
#include "core/dag/dag_planner.h"
#include "core/registry/registry.h"
#include "server/app/application.h"
#include "server/app/apply.h"
#include "server/app/call_helpers.h"
#include "server/app/ownership.h"
#include "server/app/plan_then_commit.h"
#include "server/app/planning_span.h"
#include "server/app/quota.h"
#include "server/trace/span.h"

namespace resched::server {
namespace {

constexpr std::size_t kMaxLabel = 256;

DagPlanningInput InputFor(const CallContext& call, const ClusterState& state,
                          const ClusterPlan& plan, const Dag& dag, const DagPlanner& planner,
                          Time release) {
  DagPlanningInput input;
  input.dag = &dag;
  input.timeline = &plan.timeline();
  input.release = std::max(release, plan.now());
  input.historical_q = plan.HistoricalAvailable(planner.HistoryWindow());
  // The call's deadline and cancellation, or the cluster's deletion, stop a tightest-deadline
  // search between probes.
  input.control = PlanningControl(call, state);
  if (!plan.spec().homogeneous()) {
    input.groups = plan.spec().groups;
    input.group_free = plan.FreeByGroup();
  }
  return input;
}

// What makes a DAG's plan stale, for the call that gives up.
constexpr char kDagPlanWentStale[] =
    "capacity the DAG's tasks needed was taken while they were planned";

// Books a DAG's plan under the cluster's lock, within its owner's quota (`limit`; null: none),
// every task checked (CommitPlannedDag). `stale`: the plan no longer fits; plan again.
absl::Status BookPlannedDag(ClusterState::Txn& txn, const Dag& dag, const DagPlan& booked,
                            Time release, const std::string& algorithm, const std::string& label,
                            const std::string& owner, const auth::TenantLimit* limit,
                            const std::string& cluster, std::string* dag_id, bool& stale) {
  if (limit != nullptr) {
    absl::Status quota = CheckQuota(txn.plan, owner, *limit, 0, booked.cpu_hours);
    if (!quota.ok()) return quota;
  }
  absl::Status committed = CommitPlannedDag(txn, dag, booked, algorithm, label, owner,
                                            std::max(release, txn.plan.now()), cluster, dag_id);
  stale = committed.code() == absl::StatusCode::kFailedPrecondition;
  return committed;
}

void AddPlacements(const Dag& dag, const DagPlan& plan,
                   google::protobuf::RepeatedPtrField<pb::TaskPlacement>* out) {
  out->Clear();
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const TaskReservation& t = plan.tasks[i];
    *out->Add() = ToProto(dag.tasks[i].name, Allocation{t.k, t.start, t.end}, t.group);
  }
}

void DescribePlan(const Dag& dag, const DagPlan& plan, Time now, pb::ReserveDAGResponse* out) {
  AddPlacements(dag, plan, out->mutable_placements());
  *out->mutable_completion() = ToTimestamp(plan.completion);
  *out->mutable_turnaround() = ToDurationProto(plan.completion - now);
  out->set_cpu_hours(plan.cpu_hours);
}

void DescribeAnswer(const Dag& dag, const DeadlineAnswer& answer, pb::QueryDeadlineResponse* out) {
  out->set_feasible(answer.feasible);
  if (answer.tightest) *out->mutable_tightest_deadline() = ToTimestamp(*answer.tightest);
  if (answer.plan) {
    AddPlacements(dag, *answer.plan, out->mutable_placements());
    out->set_cpu_hours(answer.plan->cpu_hours);
    *out->mutable_completion() = ToTimestamp(answer.plan->completion);
    out->set_plan_from_tightest_search(answer.from_tightest_search);
    out->set_fallback_tasks(answer.fallback_tasks);
  }
}

}  // namespace

absl::StatusOr<Dag> Application::CheckDagRequest(const pb::Dag& dag, const std::string& request_id,
                                                 const std::string& label) const {
  trace::ScopedSpan validate(kValidateSpan);
  absl::StatusOr<Dag> checked = [&]() -> absl::StatusOr<Dag> {
    if (absl::Status s = CheckRequestId(request_id); !s.ok()) return s;
    if (label.size() > kMaxLabel) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "label must have at most %d characters, got %d", kMaxLabel, label.size()));
    }
    if (dag.tasks_size() > limits_.max_dag_tasks) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.tasks must have at most %d tasks, got %d", limits_.max_dag_tasks, dag.tasks_size()));
    }
    if (dag.edges_size() > limits_.max_dag_edges) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.edges must have at most %d edges, got %d", limits_.max_dag_edges, dag.edges_size()));
    }
    return FromProto(dag);
  }();
  RecordOutcome(validate, checked.status());
  return checked;
}

absl::Status Application::ReserveDAG(CallContext& call, const pb::ReserveDAGRequest& request,
                                     pb::ReserveDAGResponse* response) {
  absl::StatusOr<Dag> dag = CheckDagRequest(request.dag(), request.request_id(), request.label());
  if (!dag.ok()) return dag.status();
  // The tenant the reservation is recorded for (server/app/ownership.h).
  const std::string owner = call.tenant();
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  const std::string name = request.algorithm().name().empty()
                               ? std::string(kDefaultReserveDagPlanner)
                               : request.algorithm().name();
  const AlgorithmParams params = FromProto(request.algorithm());
  absl::StatusOr<std::unique_ptr<DagPlanner>> planner = MakeDagPlanner(name, params);
  if (!planner.ok()) return planner.status();

  auto plan_on = [&](const ClusterPlan& cluster, Time& release) -> absl::StatusOr<DagPlan> {
    absl::StatusOr<Time> asked =
        TimeOr(request.has_release(), request.release(), "release", cluster.now());
    if (!asked.ok()) return asked.status();
    const DagPlanningInput input = InputFor(call, **state, cluster, *dag, **planner, *asked);
    release = input.release;
    trace::ScopedSpan planning(kPlanSpan, DagPlannerAttributes(name, params, *dag));
    const auto started = std::chrono::steady_clock::now();
    absl::StatusOr<DagPlan> plan = (*planner)->Plan(input);
    metrics_.ObservePlanning(
        name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    RecordOutcome(planning, plan.status());
    if (!plan.ok()) return plan.status();
    if (planning.recording()) {
      planning.SetAttribute("resched.dag.completion_us", std::int64_t{plan->completion});
      planning.SetAttribute("resched.dag.cpu_hours", plan->cpu_hours);
    }
    planning.End();
    return plan;
  };
  if (!request.dry_run()) {
    if (auto replay = AnsweredBefore<pb::ReserveDAGResponse>(call, **state, request.request_id(),
                                                             "ReserveDAG")) {
      return *replay;
    }
  }
  return PlanThenCommit(
      call, **state, kDagPlanWentStale, [&](const ClusterPlan& copy, int) -> AttemptOutcome {
        response->Clear();  // what a stale attempt described
        Time release = 0;
        absl::StatusOr<DagPlan> plan = plan_on(copy, release);
        if (!plan.ok()) return {PlannerFailed(call, **state, plan.status())};
        if (request.dry_run()) {
          DescribePlan(*dag, *plan, copy.now(), response);
          return {absl::OkStatus()};
        }
        AttemptOutcome outcome;
        outcome.status = RunIdempotent(
            call, **state, request.request_id(), "ReserveDAG", response,
            [&](ClusterState::Txn& txn) -> absl::Status {
              const DagPlan booked = ShiftedBy(*plan, txn.plan.now() - copy.now());
              absl::Status committed = BookPlannedDag(
                  txn, *dag, booked, release, name, request.label(), owner, QuotaOf(owner),
                  request.cluster(), response->mutable_dag_id(), outcome.stale);
              if (!committed.ok()) return committed;
              DescribePlan(*dag, booked, txn.plan.now(), response);
              return absl::OkStatus();
            });
        return outcome;
      });
}

absl::Status Application::QueryDeadline(CallContext& call, const pb::QueryDeadlineRequest& request,
                                        pb::QueryDeadlineResponse* response) {
  absl::StatusOr<Dag> dag = CheckDagRequest(request.dag(), request.request_id(), request.label());
  if (!dag.ok()) return dag.status();
  // The tenant the reservation is recorded for (server/app/ownership.h).
  const std::string owner = call.tenant();
  std::optional<Time> deadline;
  if (request.has_deadline()) {
    absl::StatusOr<Time> d = FromProto(request.deadline(), "deadline");
    if (!d.ok()) return d.status();
    deadline = *d;
  }
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  // Unset: for "how tight can it be", the planner with the tightest deadlines (DL_BD_CPAR, within
  // 0.5 % of the best in docs/experiments.md); for "can it finish by K", the one that meets K
  // with the fewest CPU-hours (DL_RC_CPAR).
  const std::string name =
      !request.algorithm().name().empty()
          ? request.algorithm().name()
          : std::string(deadline ? kDefaultDeadlinePlanner : kDefaultTightestDeadlinePlanner);
  const AlgorithmParams params = FromProto(request.algorithm());
  absl::StatusOr<std::unique_ptr<DagPlanner>> planner = MakeDagPlanner(name, params);
  if (!planner.ok()) return planner.status();

  auto answer_on = [&](const ClusterPlan& cluster,
                       Time& release) -> absl::StatusOr<DeadlineAnswer> {
    absl::StatusOr<Time> asked =
        TimeOr(request.has_release(), request.release(), "release", cluster.now());
    if (!asked.ok()) return asked.status();
    const DagPlanningInput input = InputFor(call, **state, cluster, *dag, **planner, *asked);
    release = input.release;
    trace::ScopedSpan planning(kPlanSpan, DagPlannerAttributes(name, params, *dag));
    const auto started = std::chrono::steady_clock::now();
    absl::StatusOr<DeadlineAnswer> answer = (*planner)->AnswerDeadline(input, deadline);
    metrics_.ObservePlanning(
        name, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    RecordOutcome(planning, answer.status());
    if (!answer.ok()) return answer.status();
    if (planning.recording()) {
      planning.SetAttribute("resched.deadline.feasible", answer->feasible);
      if (answer->tightest) {
        planning.SetAttribute("resched.deadline.tightest_us", std::int64_t{*answer->tightest});
      }
    }
    planning.End();
    return answer;
  };
  if (request.commit()) {
    if (auto replay = AnsweredBefore<pb::QueryDeadlineResponse>(call, **state, request.request_id(),
                                                                "QueryDeadline")) {
      return *replay;
    }
  }
  return PlanThenCommit(
      call, **state, kDagPlanWentStale, [&](const ClusterPlan& copy, int) -> AttemptOutcome {
        response->Clear();  // what a stale attempt described
        Time release = 0;
        absl::StatusOr<DeadlineAnswer> answer = answer_on(copy, release);
        if (!answer.ok()) return {PlannerFailed(call, **state, answer.status())};
        if (!request.commit()) {
          DescribeAnswer(*dag, *answer, response);
          return {absl::OkStatus()};
        }
        AttemptOutcome outcome;
        outcome.status = RunIdempotent(
            call, **state, request.request_id(), "QueryDeadline", response,
            [&](ClusterState::Txn& txn) -> absl::Status {
              const Duration moved = txn.plan.now() - copy.now();
              DeadlineAnswer shifted = *answer;
              if (shifted.plan) shifted.plan = ShiftedBy(*shifted.plan, moved);
              if (shifted.tightest) *shifted.tightest += moved;
              if (shifted.plan && deadline && shifted.plan->completion > *deadline) {
                // The clock moved past the slack the plan had: plan again from the present.
                outcome.stale = true;
                return absl::FailedPreconditionError("the plan no longer meets the deadline");
              }
              DescribeAnswer(*dag, shifted, response);
              if (!shifted.plan) return absl::OkStatus();  // infeasible: nothing to book
              return BookPlannedDag(txn, *dag, *shifted.plan, release, name, request.label(), owner,
                                    QuotaOf(owner), request.cluster(), response->mutable_dag_id(),
                                    outcome.stale);
            });
        return outcome;
      });
}

absl::Status Application::GetDagReservation(CallContext& call,
                                            const pb::GetDagReservationRequest& request,
                                            pb::DagReservation* response) {
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  absl::Status status;
  absl::Status found = (*state)->Run(call, [&](ClusterState::Txn& txn) {
    const DagReservation* d = txn.plan.FindDag(request.id());
    if (d == nullptr) {
      status = absl::NotFoundError(absl::StrFormat("DAG reservation '%s' not found", request.id()));
      return;
    }
    status = CheckOwner(call.principal(), d->owner,
                        absl::StrFormat("DAG reservation '%s'", request.id()));
    if (status.ok()) *response = ToProto(*d, request.cluster());
  });
  return found.ok() ? status : found;
}

absl::Status Application::ListDagReservations(CallContext& call,
                                              const pb::ListDagReservationsRequest& request,
                                              pb::ListDagReservationsResponse* response) {
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  const auth::Principal* caller = call.principal();
  return (*state)->Run(call, [&](ClusterState::Txn& txn) {
    for (const DagReservation* d : txn.plan.Dags()) {
      if (!SeesAllTenants(caller) && d->owner != caller->tenant) continue;
      *response->add_dags() = ToProto(*d, request.cluster());
    }
  });
}

absl::Status Application::ReleaseDAG(CallContext& call, const pb::ReleaseDAGRequest& request,
                                     pb::ReleaseDAGResponse* response) {
  if (absl::Status s = CheckRequestId(request.request_id()); !s.ok()) return s;
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  const auth::Principal* caller = call.principal();
  return RunIdempotent(
      call, **state, request.request_id(), "ReleaseDAG", response, [&](ClusterState::Txn& txn) {
        if (const DagReservation* d = txn.plan.FindDag(request.id()); d != nullptr) {
          absl::Status owned =
              CheckOwner(caller, d->owner, absl::StrFormat("DAG reservation '%s'", request.id()));
          if (!owned.ok()) return owned;
        }
        return ApplyReleaseDag(txn, request);
      });
}

absl::Status Application::ReportDagTaskEvent(CallContext& call,
                                             const pb::ReportDagTaskEventRequest& request,
                                             pb::DagReservation* response) {
  if (absl::Status s = CheckRequestId(request.request_id()); !s.ok()) return s;
  if (request.kind() == pb::JOB_EVENT_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        "kind must be STARTED, FINISHED_EVENT or FAILED_EVENT, got JOB_EVENT_KIND_UNSPECIFIED");
  }
  if (request.task().empty()) {
    return absl::InvalidArgumentError("task is required: a task's name in the DAG reservation");
  }
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  return RunIdempotent(
      call, **state, request.request_id(), "ReportDagTaskEvent", response,
      [&](ClusterState::Txn& txn) { return ApplyReportDagTaskEvent(txn, request, response); });
}

}  // namespace resched::server
