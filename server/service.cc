#include "server/service.h"

#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/registry/registry.h"
#include "proto/resched/convert.h"
#include "server/errors.h"
#include "server/ownership.h"
#include "server/page_token.h"
#include "server/schedule_view.h"
#include "server/service_apply.h"
#include "server/service_util.h"

namespace resched::server {
namespace {

constexpr int kMaxPageSize = 10'000;
constexpr int kDefaultPageSize = 1000;

absl::Status ShuttingDown() { return absl::UnavailableError("the server is shutting down"); }

}  // namespace

ReschedService::ReschedService(ServiceLimits limits)
    : limits_(limits),
      cluster_metrics_(std::make_shared<ClusterCollector>([this] { return AllClusters(); })) {
  replan_timer_ =
      std::make_unique<PeriodicTimer>(std::chrono::seconds(1), [this] { ReplanDueWallClusters(); });
}

std::vector<std::shared_ptr<ClusterState>> ReschedService::AllClusters() {
  std::vector<std::shared_ptr<ClusterState>> states;
  ReaderMutexLock lock(&clusters_mu_);
  states.reserve(clusters_.size());
  for (auto& [name, state] : clusters_) states.push_back(state);
  return states;
}

std::vector<std::shared_ptr<prometheus::Collectable>> ReschedService::MetricsCollectables() const {
  return {metrics_.registry(), cluster_metrics_, watch_budget_};
}

void ReschedService::Observe(ClusterState& state) {
  state.SetPlanningObserver([this](const std::string& policy, double seconds) {
    metrics_.ObservePlanning(policy, seconds);
  });
}
ReschedService::~ReschedService() {
  BeginShutdown();
  // The journal's last commits may answer calls through the workers, which the members'
  // order would destroy first.
  snapshotter_.reset();
  journal_.reset();
}

void ReschedService::EnableTracing(std::unique_ptr<trace::SpanExporter> exporter,
                                   trace::TracerOptions options) {
  trace::TraceCounters counters;
  counters.exported = [this](std::int64_t spans) { metrics_.CountSpansExported(spans); };
  counters.dropped = [this](std::int64_t spans) { metrics_.CountSpansDropped(spans); };
  tracer_ = std::make_unique<trace::Tracer>(options, std::move(exporter), std::move(counters));
}

void ReschedService::FlushTraces() {
  if (tracer_) tracer_->Flush();
}

void ReschedService::BeginShutdown() {
  shutting_down_ = true;
  replan_timer_->Stop();
  ReaderMutexLock lock(&clusters_mu_);
  for (auto& [name, state] : clusters_) state->EndWatchers(ShuttingDown());
}

int ReschedService::ClusterCount() {
  ReaderMutexLock lock(&clusters_mu_);
  return static_cast<int>(clusters_.size());
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> ReschedService::CopyPlan(const std::string& cluster) {
  auto state = Find(cluster);
  if (!state.ok()) return state.status();
  CallContext own;
  return (*state)->Snapshot(own);
}

absl::StatusOr<std::shared_ptr<ClusterState>> ReschedService::Find(const std::string& name) {
  ReaderMutexLock lock(&clusters_mu_);
  auto it = clusters_.find(name);
  if (it == clusters_.end()) {
    return absl::NotFoundError(absl::StrCat("cluster '", name, "' not found"));
  }
  return it->second;
}

absl::StatusOr<std::shared_ptr<ClusterState>> ReschedService::NewClusterState(
    const pb::ClusterSpec& proto_spec, Time now) const {
  auto spec = FromProto(proto_spec);
  if (!spec.ok()) return spec.status();
  const AlgorithmParams params = FromProto(proto_spec.policy());
  auto plan = ClusterPlan::Create(*spec, params, now, PlanLimits());
  if (!plan.ok()) return plan.status();
  return std::make_shared<ClusterState>(*std::move(plan), params);
}

ClusterLimits ReschedService::PlanLimits() const {
  ClusterLimits limits;
  limits.max_active_jobs = limits_.max_active_jobs_per_cluster;
  return limits;
}

absl::StatusOr<pb::Cluster> ReschedService::Create(const pb::CreateClusterRequest& request,
                                                   std::optional<Time> replayed_at) {
  const Time created = replayed_at                               ? *replayed_at
                       : request.spec().clock() == pb::SIMULATED ? 0
                                                                 : WallNow();
  absl::StatusOr<std::shared_ptr<ClusterState>> made = NewClusterState(request.spec(), created);
  if (!made.ok()) return made.status();
  std::shared_ptr<ClusterState> state = *std::move(made);
  const std::string& name = state->name();
  {
    // Only creations add names, and create_mu_ serializes them: the name stays free until the
    // insertion below (a deletion meanwhile only frees more).
    ReaderMutexLock lock(&clusters_mu_);
    if (clusters_.contains(name)) {
      return absl::AlreadyExistsError(absl::StrCat("cluster '", name, "' already exists"));
    }
    if (static_cast<int>(clusters_.size()) >= limits_.max_clusters) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "the server holds %d clusters, the limit (max_clusters)", limits_.max_clusters));
    }
  }
  // Not when replaying: Describe settles a WALL clock, which would move it past the records
  // still to replay.
  // No one else sees the cluster yet, and it journals nothing: the description waits for nothing.
  CallContext own;
  absl::StatusOr<pb::Cluster> described = replayed_at ? pb::Cluster() : Describe(own, *state);
  if (!described.ok()) return described.status();
  pb::JournalRecord record;
  *record.mutable_create_cluster() = request;
  *record.mutable_now() = ToTimestamp(created);
  if (!request.request_id().empty()) {
    record.set_request_id(request.request_id());
    record.set_method("CreateCluster");
    record.set_reply(described->SerializeAsString());
  }
  if (journal_ != nullptr && !replayed_at) {
    if (absl::Status s = journal_->CheckWritable(); !s.ok()) return s;
    const std::int64_t lsn = journal_->Append(name, record.SerializeAsString());
    if (absl::Status s = WaitDurableTraced(*journal_, lsn); !s.ok()) return s;
  }
  // A replayed creation's record is the journal's own, which the caller sets.
  if (!replayed_at) state->SetCreation(std::move(record));
  Observe(*state);
  // Replayed clusters are attached by OpenDataDir once every record is replayed.
  if (journal_ != nullptr && !replayed_at) state->AttachDurability(MakeDurability());
  WriterMutexLock lock(&clusters_mu_);
  clusters_[name] = state;
  return described;
}

absl::StatusOr<pb::Cluster> ReschedService::Describe(CallContext& call, ClusterState& state) {
  pb::Cluster out;
  absl::Status found = state.Run(call, [&](ClusterState::Txn& txn) {
    const ClusterPlan& plan = txn.plan;
    *out.mutable_spec() = ToProto(plan.spec(), state.params());
    out.set_capacity(plan.capacity());
    *out.mutable_now() = ToTimestamp(plan.now());
    out.set_queued_jobs(plan.queued_count());
    out.set_running_jobs(plan.running_count());
    out.set_reservations(static_cast<int>(plan.Reservations().size()));
    out.set_utilization(plan.PastUtilization());
  });
  if (!found.ok()) return found;
  return out;
}

absl::Status ReschedService::CreateConfiguredClusters(const pb::ServerConfig& config) {
  for (int i = 0; i < config.clusters_size(); ++i) {
    if (auto spec = FromProto(config.clusters(i)); !spec.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("clusters[%d]: %s", i, spec.status().message()));
    }
  }
  MutexLock lock(&create_mu_);
  for (const auto& spec : config.clusters()) {
    pb::CreateClusterRequest request;
    *request.mutable_spec() = spec;
    if (auto created = Create(request); !created.ok()) return created.status();
  }
  return absl::OkStatus();
}

grpc::Status ReschedService::HandleCreateCluster(CallContext& call,
                                                 const pb::CreateClusterRequest* request,
                                                 pb::Cluster* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  MutexLock lock(&create_mu_);
  if (auto replay =
          Replay<pb::Cluster>(call, cluster_replies_, request->request_id(), "CreateCluster")) {
    return *replay;
  }
  // Kept, and journaled, under the caller's tenant as every request id is (ReplyKey), so that a
  // retry finds it.
  pb::CreateClusterRequest keyed = *request;
  keyed.set_request_id(ReplyKey(call, request->request_id()));
  auto created = Create(keyed);
  if (!created.ok()) return ToGrpc(created.status());
  *response = *std::move(created);
  cluster_replies_.Remember(keyed.request_id(), "CreateCluster", response->SerializeAsString());
  return grpc::Status::OK;
}

grpc::Status ReschedService::HandleGetCluster(CallContext& call,
                                              const pb::GetClusterRequest* request,
                                              pb::Cluster* response) {
  auto state = Find(request->name());
  if (!state.ok()) return ToGrpc(state.status());
  absl::StatusOr<pb::Cluster> described = Describe(call, **state);
  if (!described.ok()) return ToGrpc(described.status());
  *response = *std::move(described);
  return grpc::Status::OK;
}

grpc::Status ReschedService::HandleListClusters(CallContext& call, const pb::ListClustersRequest*,
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
  return grpc::Status::OK;
}

grpc::Status ReschedService::HandleDeleteCluster(CallContext&,
                                                 const pb::DeleteClusterRequest* request,
                                                 pb::DeleteClusterResponse*) {
  auto state = Find(request->name());
  if (!state.ok()) return ToGrpc(state.status());
  // The check and the deletion are one step under the cluster's lock: a call that found the
  // cluster before it was dropped from the map then answers NOT_FOUND, unapplied.
  pb::JournalRecord record;
  *record.mutable_delete_cluster() = *request;
  absl::Status deleted = (*state)->Delete(
      [&](const ClusterPlan& plan) {
        const int active = plan.queued_count() + plan.running_count();
        if (active > 0 && !request->force()) {
          return absl::FailedPreconditionError(absl::StrFormat(
              "cluster '%s' has %d queued or running jobs; set force to delete it anyway",
              request->name(), active));
        }
        return absl::OkStatus();
      },
      record);
  if (!deleted.ok()) return ToGrpc(deleted);
  {
    WriterMutexLock lock(&clusters_mu_);
    if (auto it = clusters_.find(request->name()); it != clusters_.end() && it->second == *state) {
      clusters_.erase(it);
    }
  }
  (*state)->EndWatchers(
      absl::NotFoundError(absl::StrCat("cluster '", request->name(), "' was deleted")));
  return grpc::Status::OK;
}

grpc::Status ReschedService::HandleSubmitJob(CallContext& call, const pb::SubmitJobRequest* request,
                                             pb::SubmitJobResponse* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  const auth::Principal* caller = call.principal();
  // With tokens the job records its tenant; the journal keeps the request as applied.
  pb::SubmitJobRequest owned;
  if (caller != nullptr) {
    absl::StatusOr<std::string> owner =
        SubmissionOwner(caller, request->job().owner(), "job.owner");
    if (!owner.ok()) return ToGrpc(owner.status());
    owned = *request;
    owned.mutable_job()->set_owner(*owner);
    request = &owned;
  }
  grpc::Status status = SubmitOwnedJob(call, request, response);
  for (pb::Job& moved : *response->mutable_moved_jobs()) RedactForCaller(caller, moved);
  return status;
}

const auth::TenantLimit* ReschedService::QuotaOf(const std::string& tenant) const {
  if (tokens_ == nullptr || tenant_limits_ == nullptr) return nullptr;
  return tenant_limits_->For(tenant);
}

grpc::Status ReschedService::SubmitOwnedJob(CallContext& call, const pb::SubmitJobRequest* request,
                                            pb::SubmitJobResponse* response) {
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  if (request->dry_run()) {
    // What-if on a private copy: the cluster's writers are blocked only for the copy.
    absl::StatusOr<std::unique_ptr<ClusterPlan>> copy = (*state)->Snapshot(call);
    if (!copy.ok()) return ToGrpc(copy.status());
    (void)(*copy)->TakeChangedJobs();  // the response reports the jobs this submission moves
    std::vector<pb::ScheduleEvent> events;
    ReplyCache replies(0);
    ClusterState::Txn txn{**copy, replies, events, (*state)->params()};
    if (auto status = ApplySubmitJob(txn, *request, response, QuotaOf(request->job().owner()));
        !status.ok()) {
      return ToGrpc(status);
    }
    response->mutable_job()->clear_id();
    return grpc::Status::OK;
  }
  return RunIdempotent(
      call, **state, request->request_id(), "SubmitJob", response, [&](ClusterState::Txn& txn) {
        return ApplySubmitJob(txn, *request, response, QuotaOf(request->job().owner()));
      });
}

grpc::Status ReschedService::HandleGetJob(CallContext& call, const pb::GetJobRequest* request,
                                          pb::Job* response) {
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  absl::Status result;
  absl::Status found = (*state)->Run(call, [&](ClusterState::Txn& txn) {
    const JobRecord* job = txn.plan.FindJob(request->id());
    if (job == nullptr) {
      result = absl::NotFoundError(absl::StrCat("job '", request->id(), "' not found"));
      return;
    }
    result = CheckOwner(call.principal(), job->job.owner, absl::StrCat("job '", job->job.id, "'"));
    if (result.ok()) *response = ToProto(*job, request->cluster());
  });
  return ToGrpc(found.ok() ? result : found);
}

grpc::Status ReschedService::HandleListJobs(CallContext& call, const pb::ListJobsRequest* request,
                                            pb::ListJobsResponse* response) {
  if (request->page_size() < 0 || request->page_size() > kMaxPageSize) {
    return ToGrpc(absl::InvalidArgumentError(absl::StrFormat("page_size must be in [0, %d], got %d",
                                                             kMaxPageSize, request->page_size())));
  }
  // Pages continue after the submission sequence of the last job returned.
  absl::StatusOr<std::int64_t> after = DecodePageToken(request->page_token(), "page_token");
  if (!after.ok()) return ToGrpc(after.status());
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  const int page_size = request->page_size() == 0 ? kDefaultPageSize : request->page_size();
  const auth::Principal* caller = call.principal();
  return ToGrpc((*state)->Run(call, [&](ClusterState::Txn& txn) {
    std::int64_t last = *after;
    for (const JobRecord* job : txn.plan.Jobs()) {
      if (job->sequence <= *after) continue;
      if (!SeesAllTenants(caller) && job->job.owner != caller->tenant) continue;
      const pb::JobState s = ToProto(job->state);
      if (request->states_size() > 0 &&
          std::find(request->states().begin(), request->states().end(), s) ==
              request->states().end()) {
        continue;
      }
      if (response->jobs_size() == page_size) {
        response->set_next_page_token(EncodePageToken(last));
        return;
      }
      *response->add_jobs() = ToProto(*job, request->cluster());
      last = job->sequence;
    }
  }));
}

grpc::Status ReschedService::HandleCancelJob(CallContext& call, const pb::CancelJobRequest* request,
                                             pb::Job* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  const auth::Principal* caller = call.principal();
  return RunIdempotent(
      call, **state, request->request_id(), "CancelJob", response, [&](ClusterState::Txn& txn) {
        if (const JobRecord* job = txn.plan.FindJob(request->id()); job != nullptr) {
          absl::Status owned =
              CheckOwner(caller, job->job.owner, absl::StrCat("job '", request->id(), "'"));
          if (!owned.ok()) return owned;
        }
        return ApplyCancelJob(txn, *request, response);
      });
}

grpc::Status ReschedService::HandleReportJobEvent(CallContext& call,
                                                  const pb::ReportJobEventRequest* request,
                                                  pb::Job* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  if (request->kind() == pb::JOB_EVENT_KIND_UNSPECIFIED) {
    return ToGrpc(absl::InvalidArgumentError(
        "kind must be STARTED, FINISHED_EVENT or FAILED_EVENT, got JOB_EVENT_KIND_UNSPECIFIED"));
  }
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  return RunIdempotent(
      call, **state, request->request_id(), "ReportJobEvent", response,
      [&](ClusterState::Txn& txn) { return ApplyReportJobEvent(txn, *request, response); });
}

grpc::Status ReschedService::HandleAddReservation(CallContext& call,
                                                  const pb::AddReservationRequest* request,
                                                  pb::Reservation* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  if (request->reason().size() > 256) {
    return ToGrpc(absl::InvalidArgumentError(absl::StrFormat(
        "reason must have at most 256 characters, got %d", request->reason().size())));
  }
  if (!request->has_start() || !request->has_end()) {
    return ToGrpc(absl::InvalidArgumentError(
        absl::StrCat(request->has_start() ? "end" : "start", " is required")));
  }
  auto start = FromProto(request->start(), "start");
  if (!start.ok()) return ToGrpc(start.status());
  auto end = FromProto(request->end(), "end");
  if (!end.ok()) return ToGrpc(end.status());
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  return RunIdempotent(
      call, **state, request->request_id(), "AddReservation", response,
      [&](ClusterState::Txn& txn) { return ApplyAddReservation(txn, *request, response); });
}

grpc::Status ReschedService::HandleRemoveReservation(CallContext& call,
                                                     const pb::RemoveReservationRequest* request,
                                                     pb::RemoveReservationResponse* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  return RunIdempotent(
      call, **state, request->request_id(), "RemoveReservation", response,
      [&](ClusterState::Txn& txn) { return ApplyRemoveReservation(txn, *request); });
}

grpc::Status ReschedService::HandleGetSchedule(CallContext& call,
                                               const pb::GetScheduleRequest* request,
                                               pb::Schedule* response) {
  ScheduleWindow window;
  window.include_finished = request->include_finished();
  if (request->has_from()) {
    auto from = FromProto(request->from(), "from");
    if (!from.ok()) return ToGrpc(from.status());
    window.from = *from;
  }
  if (request->has_to()) {
    auto to = FromProto(request->to(), "to");
    if (!to.ok()) return ToGrpc(to.status());
    window.to = *to;
  }
  if (window.from && window.to && *window.to <= *window.from) {
    return ToGrpc(absl::InvalidArgumentError("to must be after from"));
  }
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  const auth::Principal* caller = call.principal();
  return ToGrpc((*state)->Run(call, [&](ClusterState::Txn& txn) {
    *response = BuildSchedule(txn.plan, window);
    RedactForCaller(caller, *response, txn.plan);
  }));
}

void ReschedService::StartWatch(const pb::WatchScheduleRequest& request,
                                std::shared_ptr<ScheduleWatch> watch,
                                std::shared_ptr<const auth::Principal> caller) {
  std::optional<pb::ScheduleEvent> first;
  if (auto state = Find(request.cluster()); !state.ok()) {
    watch->End(state.status());
  } else {
    std::shared_ptr<ScheduleSink> sink = watch;
    if (!SeesAllTenants(caller.get())) sink = std::make_shared<RedactingSink>(watch, caller);
    first = (*state)->Watch(sink, [&caller](const ClusterPlan& plan) {
      pb::Schedule schedule = BuildSchedule(plan, {});
      RedactForCaller(caller.get(), schedule, plan);
      return schedule;
    });
    // BeginShutdown may have ended the cluster's streams just before this one subscribed.
    if (shutting_down_) watch->End(ShuttingDown());
  }
  ScheduleWatch* raw = watch.get();
  raw->Start(std::move(watch), std::move(first));
}

grpc::Status ReschedService::HandleAdvanceClock(CallContext& call,
                                                const pb::AdvanceClockRequest* request,
                                                pb::AdvanceClockResponse* response) {
  if (auto s = CheckRequestId(request->request_id()); !s.ok()) return ToGrpc(s);
  auto state = Find(request->cluster());
  if (!state.ok()) return ToGrpc(state.status());
  if (!(*state)->simulated()) {
    return ToGrpc(absl::FailedPreconditionError(absl::StrCat(
        "cluster '", request->cluster(), "' has a WALL clock; only SIMULATED clocks advance")));
  }
  return RunIdempotent(
      call, **state, request->request_id(), "AdvanceClock", response,
      [&](ClusterState::Txn& txn) { return ApplyAdvanceClock(txn, *request, response); });
}

grpc::Status ReschedService::HandleListAlgorithms(CallContext&, const pb::ListAlgorithmsRequest*,
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
    }
  }
  return grpc::Status::OK;
}

}  // namespace resched::server
