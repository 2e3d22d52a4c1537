// Replan: the offline planners (core/offline) over a cluster's queued jobs. The planner runs on a
// copy of the cluster, off its lock, so SubmitJob and the rest go on meanwhile; the commit then
// tries the plan on the cluster as it is by then, under the lock (a copy of the plan and the
// policy placing what was submitted meanwhile: no planner), and plans again when the cluster
// changed so much that the plan no longer applies (core/plan/replan.h,
// server/app/plan_then_commit.h).
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "server/app/application.h"
#include "server/app/apply.h"
#include "server/app/call_helpers.h"
#include "server/app/plan_then_commit.h"
#include "server/app/planning_span.h"
#include "server/base/log.h"
#include "server/trace/span.h"

namespace resched::server {
namespace {

pb::ScheduleFigures ToProto(const QueueFigures& f) {
  pb::ScheduleFigures out;
  if (f.jobs > 0) *out.mutable_makespan() = ToTimestamp(f.makespan);
  out.set_weighted_completion(f.weighted_completion);
  out.set_mean_stretch(f.mean_stretch);
  out.set_max_stretch(f.max_stretch);
  out.set_jobs(f.jobs);
  return out;
}

void FillTrial(const ReplanTrial& trial, pb::ReplanResponse* response) {
  *response->mutable_before() = ToProto(trial.before);
  *response->mutable_after() = ToProto(trial.after);
  response->clear_moves();
  for (const JobMove& move : trial.moves) {
    pb::JobMove* out = response->add_moves();
    out->set_job_id(move.id);
    *out->mutable_before() = ToProto(move.before);
    *out->mutable_after() = ToProto(move.after);
  }
}

// The figure the objective judges, before -> after, for the refusal's message.
std::string Comparison(ReplanObjective objective, const ReplanTrial& trial) {
  const QueueFigures& b = trial.before;
  const QueueFigures& a = trial.after;
  std::string makespan =
      absl::StrFormat("makespan %s -> %s", FormatInstant(b.makespan), FormatInstant(a.makespan));
  std::string weighted = absl::StrFormat("weighted completion %.6g -> %.6g", b.weighted_completion,
                                         a.weighted_completion);
  switch (objective) {
    case ReplanObjective::kMakespan:
      return makespan;
    case ReplanObjective::kWeightedCompletion:
      return weighted;
    case ReplanObjective::kMaxStretch:
      return absl::StrFormat("max stretch %.6g -> %.6g", b.max_stretch, a.max_stretch);
    case ReplanObjective::kBicriteria:
      return absl::StrCat(makespan, ", ", weighted);
  }
  return "";
}

pb::CommittedReplan DescribeReplan(const std::string& algorithm,
                                   const std::vector<PlannedJob>& planned) {
  pb::CommittedReplan out;
  out.set_algorithm(algorithm);
  for (const PlannedJob& job : planned) {
    pb::ReplannedJob* j = out.add_jobs();
    j->set_job_id(job.id);
    *j->mutable_allocation() = ToProto(job.allocation);
  }
  return out;
}

// The plan as it applies to the cluster at commit: fitted to the present when the clock moved on
// while it was planned (a WALL cluster), else as planned.
absl::StatusOr<std::vector<PlannedJob>> ForCommit(const ClusterPlan& cluster,
                                                  const ClusterPlan& copy,
                                                  std::vector<PlannedJob> planned) {
  if (cluster.now() == copy.now()) return planned;
  return FittedToNow(cluster, std::move(planned));
}

}  // namespace

absl::Status Application::Replan(CallContext& call, const pb::ReplanRequest& request,
                                 pb::ReplanResponse* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  const std::string name = request.algorithm().name().empty() ? "mrt" : request.algorithm().name();
  absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner =
      MakeOfflinePlanner(name, FromProto(request.algorithm()));
  if (!planner.ok()) return planner.status();
  absl::StatusOr<ReplanObjective> objective = FromProto(request.objective(), name, "objective");
  if (!objective.ok()) return objective.status();
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  ReplanOptions options;
  options.dry_run = request.dry_run();
  options.force = request.force();
  options.request_id = request.request_id();
  return ReplanCluster(call, **state, request.cluster(), name, **planner, *objective, options,
                       response);
}

absl::Status Application::ReplanCluster(CallContext& call, ClusterState& state,
                                        const std::string& cluster, const std::string& name,
                                        const OfflinePlanner& planner, ReplanObjective objective,
                                        const ReplanOptions& options,
                                        pb::ReplanResponse* response) {
  response->set_objective(ToProto(objective));
  const PlanControl control = PlanningControl(call, state);
  // A periodic Replan applies only a strictly better plan; a requested one anything not worse.
  auto refused = [&](const ReplanTrial& trial) {
    if (options.force) return false;
    return options.only_if_better ? !IsBetter(objective, trial.before, trial.after) : trial.worse;
  };

  if (!options.dry_run) {
    if (auto replay =
            AnsweredBefore<pb::ReplanResponse>(call, state, options.request_id, "Replan")) {
      return *replay;
    }
  }
  auto attempt = [&](const ClusterPlan& copy, int number) -> AttemptOutcome {
    response->set_attempts(number);
    trace::ScopedSpan planning(kPlanSpan);
    if (planning.recording()) {
      planning.SetAttribute("resched.algorithm", name);
      planning.SetAttribute("resched.jobs.queued", std::int64_t{copy.queued_count()});
    }
    absl::StatusOr<ReplanProposal> proposal =
        ProposeReplan(copy, planner, objective, control, !options.only_if_better);
    RecordOutcome(planning, proposal.status());
    planning.End();
    if (!proposal.ok()) return {PlannerFailed(call, state, proposal.status())};
    metrics_.ObservePlanning(name, proposal->planner_seconds);
    *response->mutable_planner_time() =
        ToDurationProto(static_cast<Duration>(proposal->planner_seconds * kMicrosPerSecond));
    if (proposal->makespan_lower_bound) {
      *response->mutable_makespan_lower_bound() = ToTimestamp(*proposal->makespan_lower_bound);
    }
    if (proposal->weighted_completion_lower_bound) {
      response->set_weighted_completion_lower_bound(*proposal->weighted_completion_lower_bound);
    }
    FillTrial(proposal->trial, response);
    if (options.dry_run || refused(proposal->trial)) {
      response->set_applied(false);
      response->set_outcome(
          options.dry_run
              ? "dry run: nothing was changed"
              : absl::StrCat("not applied: the plan is ",
                             proposal->trial.worse ? "worse" : "not better", " on the objective (",
                             Comparison(objective, proposal->trial),
                             options.only_if_better ? ")" : "); force applies it"));
      for (const JobMove& move : proposal->trial.moves) {
        const JobRecord* job = copy.FindJob(move.id);
        pb::Job* out = response->add_moved_jobs();
        *out = ToProto(*job, cluster);
        *out->mutable_allocation() = ToProto(move.after);
      }
      return {absl::OkStatus()};
    }

    AttemptOutcome outcome;
    std::vector<PlannedJob> committed;
    outcome.status = RunIdempotent(
        call, state, options.request_id, "Replan", response,
        [&](ClusterState::Txn& txn) -> absl::Status {
          absl::StatusOr<std::vector<PlannedJob>> fitted =
              ForCommit(txn.plan, copy, proposal->planned);
          if (!fitted.ok()) {
            outcome.stale = true;  // FittedToNow's FAILED_PRECONDITION: the cluster changed
            return fitted.status();
          }
          committed = *std::move(fitted);
          absl::StatusOr<ReplanTrial> trial = TryReplan(txn.plan, committed, objective);
          if (!trial.ok()) {
            outcome.stale = trial.status().code() == absl::StatusCode::kFailedPrecondition;
            return trial.status();
          }
          FillTrial(*trial, response);
          if (refused(*trial)) {
            // Judged on the cluster as it is now (it changed since the copy): nothing changes.
            response->set_applied(false);
            response->set_outcome(absl::StrCat(
                "not applied: the cluster changed while planning and the plan is no longer good "
                "enough on the objective (",
                Comparison(objective, *trial), ")"));
            return absl::OkStatus();
          }
          pb::CommittedReplan record = DescribeReplan(name, committed);
          if (absl::Status s = ApplyCommittedReplan(txn, record); !s.ok()) return s;
          response->set_applied(true);
          response->set_outcome(
              trial->worse ? "applied (forced: the plan is worse on the objective)" : "applied");
          response->clear_moved_jobs();
          for (const JobMove& move : trial->moves) {
            *response->add_moved_jobs() = ToProto(*txn.plan.FindJob(move.id), cluster);
          }
          return absl::OkStatus();
        });
    return outcome;
  };
  return PlanThenCommit(call, state,
                        "planned jobs started, ended or were cancelled, or capacity they needed "
                        "was taken",
                        attempt);
}

void Application::ReplanDueWallClusters() {
  const Time now = WallNow();
  std::set<std::string> seen;
  for (const std::shared_ptr<ClusterState>& state : AllClusters()) {
    if (shutting_down_) return;
    std::optional<ClusterSpec> spec;
    state->Peek([&](const ClusterPlan& plan) { spec = plan.spec(); });
    if (!spec || spec->clock != ClockKind::kWall || spec->replan.every == 0) continue;
    seen.insert(state->name());
    // A cluster seen for the first time (created, or restored at start-up) waits one period.
    auto [due, first] = wall_replan_due_.try_emplace(state->name(), now + spec->replan.every);
    if (first || now < due->second) continue;
    due->second = now + spec->replan.every;
    absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner =
        MakeOfflinePlanner(spec->replan.algorithm, spec->replan.params);
    if (!planner.ok()) continue;  // checked when the cluster was created
    ReplanOptions options;
    options.only_if_better = true;
    pb::ReplanResponse response;
    CallContext own;  // the server's own call: nobody's, with no deadline
    const absl::Status status =
        ReplanCluster(own, *state, state->name(), spec->replan.algorithm, **planner,
                      spec->replan.objective, options, &response);
    if (!status.ok()) {
      Log(LogLevel::kWarning, "periodic_replan_failed",
          absl::StrCat("periodic Replan of cluster '", state->name(),
                       "' failed: ", status.message()),
          {{"cluster", state->name()}, {"algorithm", spec->replan.algorithm}});
    } else if (response.applied()) {
      Log(LogLevel::kInfo, "periodic_replan",
          absl::StrCat("periodic Replan of cluster '", state->name(), "' moved ",
                       response.moves_size(), " job(s)"),
          {{"cluster", state->name()},
           {"algorithm", spec->replan.algorithm},
           {"moved", absl::StrCat(response.moves_size())}});
    }
  }
  // Deleted clusters are forgotten.
  std::erase_if(wall_replan_due_, [&](const auto& entry) { return !seen.contains(entry.first); });
}

}  // namespace resched::server
