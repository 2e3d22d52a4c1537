// The application's calls on clusters, jobs, reservations, schedules and clocks (the DAG calls
// are in dag_calls.cc, Replan in replan_calls.cc).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/registry/registry.h"
#include "proto/resched/convert.h"
#include "server/app/application.h"
#include "server/app/apply.h"
#include "server/app/call_helpers.h"
#include "server/app/ownership.h"
#include "server/app/page_token.h"
#include "server/app/schedule_view.h"

namespace resched::server {
namespace {

constexpr int kMaxPageSize = 10'000;
constexpr int kDefaultPageSize = 1000;

}  // namespace

absl::Status Application::CreateCluster(CallContext& call, const pb::CreateClusterRequest& request,
                                        pb::Cluster* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  MutexLock lock(&create_mu_);
  if (auto replay =
          Replay<pb::Cluster>(call, cluster_replies_, request.request_id(), "CreateCluster")) {
    return *replay;
  }
  // Kept, and journaled, under the caller's tenant as every request id is (ReplyKey), so that a
  // retry finds it.
  pb::CreateClusterRequest keyed = request;
  keyed.set_request_id(ReplyKey(call, request.request_id()));
  auto created = Create(keyed);
  if (!created.ok()) return created.status();
  *response = *std::move(created);
  cluster_replies_.Remember(keyed.request_id(), "CreateCluster", response->SerializeAsString());
  return absl::OkStatus();
}

absl::Status Application::GetCluster(CallContext& call, const pb::GetClusterRequest& request,
                                     pb::Cluster* response) {
  auto state = Find(request.name());
  if (!state.ok()) return state.status();
  absl::StatusOr<pb::Cluster> described = Describe(call, **state);
  if (!described.ok()) return described.status();
  *response = *std::move(described);
  return absl::OkStatus();
}

absl::Status Application::ListClusters(CallContext& call, const pb::ListClustersRequest&,
                                       pb::ListClustersResponse* response) {
  // A token sees the clusters it is granted only: GetCluster would refuse the others.
  const auth::Principal* caller = call.principal();
  for (auto& state : AllClusters()) {
    if (caller != nullptr && !caller->MayUse(state->name())) continue;
    // A cluster deleted since the list was taken is left out.
    if (absl::StatusOr<pb::Cluster> described = Describe(call, *state); described.ok()) {
      *response->add_clusters() = *std::move(described);
    }
  }
  return absl::OkStatus();
}

absl::Status Application::DeleteCluster(CallContext&, const pb::DeleteClusterRequest& request,
                                        pb::DeleteClusterResponse*) {
  auto state = Find(request.name());
  if (!state.ok()) return state.status();
  // The check and the deletion are one step under the cluster's lock: a call that found the
  // cluster before it was dropped from the map then answers NOT_FOUND, unapplied.
  pb::JournalRecord record;
  *record.mutable_delete_cluster() = request;
  absl::Status deleted = (*state)->Delete(
      [&](const ClusterPlan& plan) {
        const int active = plan.queued_count() + plan.running_count();
        if (active > 0 && !request.force()) {
          return absl::FailedPreconditionError(absl::StrFormat(
              "cluster '%s' has %d queued or running jobs; set force to delete it anyway",
              request.name(), active));
        }
        return absl::OkStatus();
      },
      record);
  if (!deleted.ok()) return deleted;
  {
    WriterMutexLock lock(&clusters_mu_);
    if (auto it = clusters_.find(request.name()); it != clusters_.end() && it->second == *state) {
      clusters_.erase(it);
    }
  }
  if (claims_.forget) claims_.forget(request.name());
  (*state)->EndWatchers(
      absl::NotFoundError(absl::StrCat("cluster '", request.name(), "' was deleted")));
  return absl::OkStatus();
}

absl::Status Application::SubmitJob(CallContext& call, const pb::SubmitJobRequest& request,
                                    pb::SubmitJobResponse* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  const auth::Principal* caller = call.principal();
  // With tokens the job records its tenant; the journal keeps the request as applied.
  absl::Status status;
  if (caller != nullptr) {
    absl::StatusOr<std::string> owner = SubmissionOwner(caller, request.job().owner(), "job.owner");
    if (!owner.ok()) return owner.status();
    pb::SubmitJobRequest owned = request;
    owned.mutable_job()->set_owner(*owner);
    status = SubmitOwnedJob(call, owned, response);
  } else {
    status = SubmitOwnedJob(call, request, response);
  }
  for (pb::Job& moved : *response->mutable_moved_jobs()) RedactForCaller(caller, moved);
  return status;
}

absl::Status Application::SubmitOwnedJob(CallContext& call, const pb::SubmitJobRequest& request,
                                         pb::SubmitJobResponse* response) {
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  if (request.dry_run()) {
    // What-if on a private copy: the cluster's writers are blocked only for the copy.
    absl::StatusOr<std::unique_ptr<ClusterPlan>> copy = (*state)->CopyPlan(call);
    if (!copy.ok()) return copy.status();
    (void)(*copy)->TakeChangedJobs();  // the response reports the jobs this submission moves
    std::vector<pb::ScheduleEvent> events;
    ReplyCache replies(0);
    ClusterState::Txn txn{**copy, replies, events, (*state)->params(), 0};
    if (auto status = ApplySubmitJob(txn, request, response, QuotaOf(request.job().owner()));
        !status.ok()) {
      return status;
    }
    response->mutable_job()->clear_id();
    return absl::OkStatus();
  }
  return RunIdempotent(
      call, **state, request.request_id(), "SubmitJob", response, [&](ClusterState::Txn& txn) {
        return ApplySubmitJob(txn, request, response, QuotaOf(request.job().owner()));
      });
}

absl::Status Application::GetJob(CallContext& call, const pb::GetJobRequest& request,
                                 pb::Job* response) {
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  absl::Status result;
  absl::Status found = (*state)->Run(call, [&](ClusterState::Txn& txn) {
    const JobRecord* job = txn.plan.FindJob(request.id());
    if (job == nullptr) {
      result = absl::NotFoundError(absl::StrCat("job '", request.id(), "' not found"));
      return;
    }
    result = CheckOwner(call.principal(), job->job.owner, absl::StrCat("job '", job->job.id, "'"));
    if (result.ok()) *response = ToProto(*job, request.cluster());
  });
  return found.ok() ? result : found;
}

absl::Status Application::ListJobs(CallContext& call, const pb::ListJobsRequest& request,
                                   pb::ListJobsResponse* response) {
  if (request.page_size() < 0 || request.page_size() > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("page_size must be in [0, %d], got %d", kMaxPageSize, request.page_size()));
  }
  // Pages continue after the submission sequence of the last job returned.
  absl::StatusOr<std::int64_t> after = DecodePageToken(request.page_token(), "page_token");
  if (!after.ok()) return after.status();
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  const int page_size = request.page_size() == 0 ? kDefaultPageSize : request.page_size();
  const auth::Principal* caller = call.principal();
  return (*state)->Run(call, [&](ClusterState::Txn& txn) {
    std::int64_t last = *after;
    for (const JobRecord* job : txn.plan.Jobs()) {
      if (job->sequence <= *after) continue;
      if (!SeesAllTenants(caller) && job->job.owner != caller->tenant) continue;
      const pb::JobState s = ToProto(job->state);
      if (request.states_size() > 0 && std::find(request.states().begin(), request.states().end(),
                                                 s) == request.states().end()) {
        continue;
      }
      if (response->jobs_size() == page_size) {
        response->set_next_page_token(EncodePageToken(last));
        return;
      }
      *response->add_jobs() = ToProto(*job, request.cluster());
      last = job->sequence;
    }
  });
}

absl::Status Application::CancelJob(CallContext& call, const pb::CancelJobRequest& request,
                                    pb::Job* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  const auth::Principal* caller = call.principal();
  return RunIdempotent(
      call, **state, request.request_id(), "CancelJob", response, [&](ClusterState::Txn& txn) {
        if (const JobRecord* job = txn.plan.FindJob(request.id()); job != nullptr) {
          absl::Status owned =
              CheckOwner(caller, job->job.owner, absl::StrCat("job '", request.id(), "'"));
          if (!owned.ok()) return owned;
        }
        return ApplyCancelJob(txn, request, response);
      });
}

absl::Status Application::ReportJobEvent(CallContext& call,
                                         const pb::ReportJobEventRequest& request,
                                         pb::Job* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  if (request.kind() == pb::JOB_EVENT_KIND_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        "kind must be STARTED, FINISHED_EVENT or FAILED_EVENT, got JOB_EVENT_KIND_UNSPECIFIED");
  }
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  return RunIdempotent(
      call, **state, request.request_id(), "ReportJobEvent", response,
      [&](ClusterState::Txn& txn) { return ApplyReportJobEvent(txn, request, response); });
}

absl::Status Application::AddReservation(CallContext& call,
                                         const pb::AddReservationRequest& request,
                                         pb::Reservation* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  if (request.reason().size() > 256) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "reason must have at most 256 characters, got %d", request.reason().size()));
  }
  if (!request.has_start() || !request.has_end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(request.has_start() ? "end" : "start", " is required"));
  }
  auto start = FromProto(request.start(), "start");
  if (!start.ok()) return start.status();
  auto end = FromProto(request.end(), "end");
  if (!end.ok()) return end.status();
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  return RunIdempotent(
      call, **state, request.request_id(), "AddReservation", response,
      [&](ClusterState::Txn& txn) { return ApplyAddReservation(txn, request, response); });
}

absl::Status Application::RemoveReservation(CallContext& call,
                                            const pb::RemoveReservationRequest& request,
                                            pb::RemoveReservationResponse* response) {
  if (auto s = CheckRequestId(request.request_id()); !s.ok()) return s;
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  return RunIdempotent(
      call, **state, request.request_id(), "RemoveReservation", response,
      [&](ClusterState::Txn& txn) { return ApplyRemoveReservation(txn, request); });
}

absl::Status Application::GetSchedule(CallContext& call, const pb::GetScheduleRequest& request,
                                      pb::Schedule* response) {
  ScheduleWindow window;
  window.include_finished = request.include_finished();
  if (request.has_from()) {
    auto from = FromProto(request.from(), "from");
    if (!from.ok()) return from.status();
    window.from = *from;
  }
  if (request.has_to()) {
    auto to = FromProto(request.to(), "to");
    if (!to.ok()) return to.status();
    window.to = *to;
  }
  if (window.from && window.to && *window.to <= *window.from) {
    return absl::InvalidArgumentError("to must be after from");
  }
  auto state = Find(request.cluster());
  if (!state.ok()) return state.status();
  const auth::Principal* caller = call.principal();
  return (*state)->Run(call, [&](ClusterState::Txn& txn) {
    *response = BuildSchedule(txn.plan, window, txn.rows());
    RedactForCaller(caller, *response, txn.plan);
  });
}

absl::Status Application::ListAlgorithms(CallContext&, const pb::ListAlgorithmsRequest&,
                                         pb::ListAlgorithmsResponse* response) {
  for (const auto& info : AlgorithmRegistry()) {
    auto* a = response->add_algorithms();
    a->set_name(info.name);
    switch (info.kind) {
      case AlgorithmKind::kPolicy:
        a->set_kind(pb::AlgorithmInfo::POLICY);
        break;
      case AlgorithmKind::kPlanner:
        a->set_kind(pb::AlgorithmInfo::PLANNER);
        break;
      case AlgorithmKind::kDagPlanner:
        a->set_kind(pb::AlgorithmInfo::DAG_PLANNER);
        break;
    }
    a->set_description(info.description);
    a->set_paper(info.paper);
    for (const auto& p : info.params) {
      auto* param = a->add_params();
      param->set_name(p.name);
      param->set_description(p.description);
      param->set_default_value(p.default_value);
      param->set_min(p.min);
      param->set_max(p.max);
      param->set_integer(p.type != ParamType::kReal);
      for (const std::string& choice : p.choices) param->add_choices(choice);
    }
  }
  return absl::OkStatus();
}

}  // namespace resched::server
