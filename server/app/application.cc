// The application's clusters, settings and health (the calls are in *_calls.cc, the gate in
// call_gate.cc, start-up from a data directory in recovery.cc).
#include "server/app/application.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/resched/convert.h"
#include "server/app/ownership.h"
#include "server/app/schedule_view.h"
#include "server/base/log.h"

namespace resched::server {
namespace {

absl::Status ShuttingDown() { return absl::UnavailableError("the server is shutting down"); }

}  // namespace

Application::Application(ServiceLimits limits)
    : limits_(limits),
      cluster_metrics_(std::make_shared<ClusterCollector>([this] { return AllClusters(); })) {
  replan_timer_ =
      std::make_unique<PeriodicTimer>(std::chrono::seconds(1), [this] { ReplanDueWallClusters(); });
}

std::vector<std::shared_ptr<ClusterState>> Application::AllClusters() {
  std::vector<std::shared_ptr<ClusterState>> states;
  ReaderMutexLock lock(&clusters_mu_);
  states.reserve(clusters_.size());
  for (auto& [name, state] : clusters_) states.push_back(state);
  return states;
}

std::vector<std::shared_ptr<prometheus::Collectable>> Application::MetricsCollectables() const {
  return {metrics_.registry(), cluster_metrics_, watch_budget_};
}

void Application::Observe(ClusterState& state) {
  state.SetPlanningObserver([this](const std::string& policy, double seconds) {
    metrics_.ObservePlanning(policy, seconds);
  });
}
Application::~Application() {
  BeginShutdown();
  // The journal's last commits may answer calls through the workers, which the members'
  // order would destroy first.
  snapshotter_.reset();
  journal_.reset();
}

void Application::EnableTracing(std::unique_ptr<trace::SpanExporter> exporter,
                                trace::TracerOptions options) {
  trace::TraceCounters counters;
  counters.exported = [this](std::int64_t spans) { metrics_.CountSpansExported(spans); };
  counters.dropped = [this](std::int64_t spans) { metrics_.CountSpansDropped(spans); };
  tracer_ = std::make_unique<trace::Tracer>(options, std::move(exporter), std::move(counters));
}

void Application::FlushTraces() {
  if (tracer_) tracer_->Flush();
}

void Application::BeginShutdown() {
  shutting_down_ = true;
  replan_timer_->Stop();
  ReaderMutexLock lock(&clusters_mu_);
  for (auto& [name, state] : clusters_) state->EndWatchers(ShuttingDown());
}

int Application::ClusterCount() {
  ReaderMutexLock lock(&clusters_mu_);
  return static_cast<int>(clusters_.size());
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> Application::CopyPlan(const std::string& cluster) {
  auto state = Find(cluster);
  if (!state.ok()) return state.status();
  CallContext own;
  return (*state)->CopyPlan(own);
}

absl::StatusOr<std::shared_ptr<ClusterState>> Application::Find(const std::string& name) {
  ReaderMutexLock lock(&clusters_mu_);
  auto it = clusters_.find(name);
  if (it != clusters_.end()) return it->second;
  if (const auto retired = retired_.find(name);
      retired != retired_.end() && absl::Now() < retired->second.until) {
    return retired->second.why;
  }
  return absl::NotFoundError(absl::StrCat("cluster '", name, "' not found"));
}

absl::StatusOr<std::shared_ptr<ClusterState>> Application::NewClusterState(
    const pb::ClusterSpec& proto_spec, Time now) const {
  auto spec = FromProto(proto_spec);
  if (!spec.ok()) return spec.status();
  const AlgorithmParams params = FromProto(proto_spec.policy());
  auto plan = ClusterPlan::Create(*spec, params, now, PlanLimits());
  if (!plan.ok()) return plan.status();
  return std::make_shared<ClusterState>(*std::move(plan), params);
}

ClusterLimits Application::PlanLimits() const {
  ClusterLimits limits;
  limits.max_active_jobs = limits_.max_active_jobs_per_cluster;
  return limits;
}

absl::StatusOr<pb::Cluster> Application::Create(const pb::CreateClusterRequest& request,
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
    if (claims_.claim_new) {
      absl::StatusOr<std::int64_t> earlier = claims_.claim_new(name);
      if (!earlier.ok()) return earlier.status();
      journal_->AdvancePast(*earlier);
    }
    const std::int64_t lsn = journal_->Append(name, record.SerializeAsString());
    if (absl::Status s = WaitDurableTraced(*journal_, lsn); !s.ok()) {
      if (claims_.forget) claims_.forget(name);
      return s;
    }
  }
  // A replayed creation's record is the journal's own, which the caller sets.
  if (!replayed_at) state->SetCreation(std::move(record));
  Observe(*state);
  // Replayed clusters are attached by OpenDataDir once every record is replayed.
  if (journal_ != nullptr && !replayed_at) state->AttachDurability(MakeDurability());
  WriterMutexLock lock(&clusters_mu_);
  clusters_[name] = state;
  retired_.erase(name);
  return described;
}

absl::StatusOr<pb::Cluster> Application::Describe(CallContext& call, ClusterState& state) {
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

absl::Status Application::CreateConfiguredClusters(const pb::ServerConfig& config,
                                                   bool skip_existing) {
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
    if (auto created = Create(request); !created.ok()) {
      if (skip_existing && absl::IsAlreadyExists(created.status())) continue;
      return created.status();
    }
  }
  return absl::OkStatus();
}

std::optional<pb::ScheduleEvent> Application::Watch(const pb::WatchScheduleRequest& request,
                                                    const std::shared_ptr<ScheduleSink>& sink,
                                                    std::shared_ptr<const auth::Principal> caller) {
  if (request.after_sequence() < 0) {
    sink->End(absl::InvalidArgumentError(
        absl::StrCat("after_sequence: must be 0 (start afresh) or the last sequence seen, got ",
                     request.after_sequence())));
    return std::nullopt;
  }
  auto state = Find(request.cluster());
  if (!state.ok()) {
    sink->End(state.status());
    return std::nullopt;
  }
  std::shared_ptr<ScheduleSink> seen = sink;
  if (!SeesAllTenants(caller.get())) seen = std::make_shared<RedactingSink>(sink, caller);
  std::optional<pb::ScheduleEvent> first = (*state)->Watch(
      seen,
      [&caller](const ClusterPlan& plan, const ProcessorRows& rows) {
        pb::Schedule schedule = BuildSchedule(plan, {}, rows);
        RedactForCaller(caller.get(), schedule, plan);
        return schedule;
      },
      request.after_sequence());
  // BeginShutdown may have ended the cluster's streams just before this one subscribed.
  if (shutting_down_) sink->End(ShuttingDown());
  return first;
}

const auth::TenantLimit* Application::QuotaOf(const std::string& tenant) const {
  if (tokens_ == nullptr || tenant_limits_ == nullptr) return nullptr;
  return tenant_limits_->For(tenant);
}

void Application::RequireTokens(std::shared_ptr<const auth::TokenTable> tokens) {
  tokens_ = std::make_shared<auth::TokenStore>(std::move(tokens));
}

void Application::SetTenantLimits(std::shared_ptr<const auth::TenantLimits> limits) {
  tenant_limits_ = std::move(limits);
  rate_limiter_ = std::make_unique<auth::RateLimiter>(tenant_limits_);
}

void Application::EnableAudit(std::unique_ptr<auth::AuditLog> audit) { audit_ = std::move(audit); }

void Application::SetHealthListener(std::function<void(bool serving)> listener) {
  MutexLock lock(&health_mu_);
  health_listener_ = std::move(listener);
  if (health_listener_) health_listener_(journal_writable_);
}

void Application::OnJournalHealth(const absl::Status& status) {
  metrics_.SetJournalWritable(status.ok());
  // Called once per failed commit: the journal refuses appends after one until a probe commits.
  if (!status.ok()) metrics_.CountFailedCommit();
  if (status.ok()) {
    Log(LogLevel::kInfo, "journal_writable",
        absl::StrCat("the journal (", journal_->name(),
                     ") commits again: changes are accepted and the health check says SERVING"));
  } else {
    Log(LogLevel::kError, "journal_unwritable",
        absl::StrCat("the journal (", journal_->name(), ") cannot commit (", status.message(),
                     "): every change is refused with UNAVAILABLE and the health check says "
                     "NOT_SERVING until a probe commits again"),
        {{"journal", journal_->location()}});
  }
  MutexLock lock(&health_mu_);
  journal_writable_ = status.ok();
  if (health_listener_) health_listener_(journal_writable_);
}

absl::Status Application::Overloaded() const {
  return absl::ResourceExhaustedError(
      absl::StrCat("the server has ", limits_.max_waiting_calls,
                   " calls waiting for a thread (max_waiting_calls); retry later"));
}

}  // namespace resched::server
