// The resched v1 gRPC service: validates at the boundary, converts once, and runs each
// request on its cluster's state under that cluster's single writer lock.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/offline/offline_planner.h"
#include "resched/v1/config.pb.h"
#include "resched/v1/service.grpc.pb.h"
#include "server/auth/audit_log.h"
#include "server/auth/denied_lines.h"
#include "server/auth/rate_limiter.h"
#include "server/auth/tenant_limits.h"
#include "server/auth/token_store.h"
#include "server/auth/tokens.h"
#include "server/call_context.h"
#include "server/cluster_metrics.h"
#include "server/cluster_state.h"
#include "server/limits.h"
#include "server/line_rate.h"
#include "server/metrics.h"
#include "server/mutex.h"
#include "server/periodic_timer.h"
#include "server/schedule_watch.h"
#include "server/snapshotter.h"
#include "server/store/journal.h"
#include "server/stream_caps.h"
#include "server/trace/tracer.h"
#include "server/watch_budget.h"
#include "server/worker_pool.h"

namespace resched::server {

// The callback API: every unary call is handed to `workers_` (handlers wait for cluster locks
// and plan, which gRPC's own threads must not do), and a WatchSchedule stream holds no thread
// while it waits for events.
class ReschedService final : public pb::Resched::CallbackService {
 public:
  explicit ReschedService(ServiceLimits limits = {});
  ~ReschedService() override;

  // Makes the service durable in `dir` (server/recovery.cc): takes the directory's lock, replays
  // its journal (the clusters come back as they were acknowledged) and journals every change
  // from then on. Returns true when the directory held no journal yet. Call once, before
  // serving. Errors name the directory; DATA_LOSS names the record that cannot be read or
  // replayed, or the damage to the journal's files (unless `options` accept the loss).
  absl::StatusOr<bool> OpenDataDir(const std::string& dir, JournalOpenOptions options = {});
  int ClusterCount();
  // A deep copy of a cluster's plan, for tests and tools that check it with the validator.
  absl::StatusOr<std::unique_ptr<ClusterPlan>> CopyPlan(const std::string& cluster);
  // The journal when the service is durable, else null (tests inject faults through it).
  Journal* journal() { return journal_.get(); }
  // What a metrics endpoint serves: the server's metrics and the per-cluster gauges.
  std::vector<std::shared_ptr<prometheus::Collectable>> MetricsCollectables() const;
  ServerMetrics& metrics() { return metrics_; }
  // Waits until every snapshot captured so far is written or dropped (tests, benchmarks), and
  // returns how many were written since start-up.
  std::int64_t FlushSnapshots();
  // Creates the clusters of a configuration; fails without creating any on a bad spec.
  absl::Status CreateConfiguredClusters(const pb::ServerConfig& config);
  // Traces the sampled calls from now on: a server span per unary call, continuing the caller's
  // trace when its metadata carries a W3C traceparent, with child spans for the cluster lock
  // wait, validation, planning and the durable commit, sent to `exporter` in batches (spans it
  // cannot take are dropped and counted). Call once, before serving.
  void EnableTracing(std::unique_ptr<trace::SpanExporter> exporter, trace::TracerOptions options);
  // Waits until every span ended so far is exported or dropped (tests).
  void FlushTraces();
  // From now on every call needs a bearer token of `tokens` whose role and cluster grants allow
  // it (server/auth/). Call once, before serving; without it calls are not authenticated.
  void RequireTokens(std::shared_ptr<const auth::TokenTable> tokens);
  // Where the tokens of RequireTokens are kept, to replace them while serving (a reloaded
  // tokens file); null without RequireTokens.
  std::shared_ptr<auth::TokenStore> token_store() const { return tokens_; }
  // Writes an audit line for every call of a method that may change state, applied or refused
  // (server/auth/audit_log.h). Call once, before serving.
  void EnableAudit(std::unique_ptr<auth::AuditLog> audit);
  // Per-tenant rate limits and quotas (server/auth/tenant_limits.h), for the tenants of the
  // tokens file: without RequireTokens they do not apply. Call once, before serving.
  void SetTenantLimits(std::shared_ptr<const auth::TenantLimits> limits);
  // Ends open WatchSchedule streams with UNAVAILABLE (before the server shuts down).
  void BeginShutdown();
  // Hears whether the service can accept changes: false while the journal cannot commit (the
  // disk is full, or failing), true once it can again; called at once with the current state,
  // then on each change, from the journal's thread. For the gRPC health check, so that
  // Kubernetes and load balancers stop sending work to a server that can only refuse it.
  // nullptr stops it (before the listener's target goes away).
  void SetHealthListener(std::function<void(bool serving)> listener);

  grpc::ServerUnaryReactor* CreateCluster(grpc::CallbackServerContext*,
                                          const pb::CreateClusterRequest*, pb::Cluster*) override;
  grpc::ServerUnaryReactor* GetCluster(grpc::CallbackServerContext*, const pb::GetClusterRequest*,
                                       pb::Cluster*) override;
  grpc::ServerUnaryReactor* ListClusters(grpc::CallbackServerContext*,
                                         const pb::ListClustersRequest*,
                                         pb::ListClustersResponse*) override;
  grpc::ServerUnaryReactor* DeleteCluster(grpc::CallbackServerContext*,
                                          const pb::DeleteClusterRequest*,
                                          pb::DeleteClusterResponse*) override;
  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext*, const pb::SubmitJobRequest*,
                                      pb::SubmitJobResponse*) override;
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext*, const pb::GetJobRequest*,
                                   pb::Job*) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext*, const pb::ListJobsRequest*,
                                     pb::ListJobsResponse*) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext*, const pb::CancelJobRequest*,
                                      pb::Job*) override;
  grpc::ServerUnaryReactor* ReportJobEvent(grpc::CallbackServerContext*,
                                           const pb::ReportJobEventRequest*, pb::Job*) override;
  grpc::ServerUnaryReactor* AddReservation(grpc::CallbackServerContext*,
                                           const pb::AddReservationRequest*,
                                           pb::Reservation*) override;
  grpc::ServerUnaryReactor* RemoveReservation(grpc::CallbackServerContext*,
                                              const pb::RemoveReservationRequest*,
                                              pb::RemoveReservationResponse*) override;
  grpc::ServerUnaryReactor* ReserveDAG(grpc::CallbackServerContext*, const pb::ReserveDAGRequest*,
                                       pb::ReserveDAGResponse*) override;
  grpc::ServerUnaryReactor* QueryDeadline(grpc::CallbackServerContext*,
                                          const pb::QueryDeadlineRequest*,
                                          pb::QueryDeadlineResponse*) override;
  grpc::ServerUnaryReactor* GetDagReservation(grpc::CallbackServerContext*,
                                              const pb::GetDagReservationRequest*,
                                              pb::DagReservation*) override;
  grpc::ServerUnaryReactor* ListDagReservations(grpc::CallbackServerContext*,
                                                const pb::ListDagReservationsRequest*,
                                                pb::ListDagReservationsResponse*) override;
  grpc::ServerUnaryReactor* ReleaseDAG(grpc::CallbackServerContext*, const pb::ReleaseDAGRequest*,
                                       pb::ReleaseDAGResponse*) override;
  grpc::ServerUnaryReactor* Replan(grpc::CallbackServerContext*, const pb::ReplanRequest*,
                                   pb::ReplanResponse*) override;
  grpc::ServerUnaryReactor* GetSchedule(grpc::CallbackServerContext*, const pb::GetScheduleRequest*,
                                        pb::Schedule*) override;
  grpc::ServerUnaryReactor* AdvanceClock(grpc::CallbackServerContext*,
                                         const pb::AdvanceClockRequest*,
                                         pb::AdvanceClockResponse*) override;
  grpc::ServerUnaryReactor* ListAlgorithms(grpc::CallbackServerContext*,
                                           const pb::ListAlgorithmsRequest*,
                                           pb::ListAlgorithmsResponse*) override;
  grpc::ServerWriteReactor<pb::ScheduleEvent>* WatchSchedule(
      grpc::CallbackServerContext*, const pb::WatchScheduleRequest*) override;

 private:
  // Runs `handler` on a worker and finishes the call with its status.
  template <class Request, class Response>
  grpc::ServerUnaryReactor* Dispatch(grpc::CallbackServerContext* context, const char* method,
                                     const Request* request, Response* response,
                                     grpc::Status (ReschedService::*handler)(CallContext&,
                                                                             const Request*,
                                                                             Response*));
  grpc::Status HandleCreateCluster(CallContext& call, const pb::CreateClusterRequest*,
                                   pb::Cluster*);
  grpc::Status HandleGetCluster(CallContext& call, const pb::GetClusterRequest*, pb::Cluster*);
  grpc::Status HandleListClusters(CallContext& call, const pb::ListClustersRequest*,
                                  pb::ListClustersResponse*);
  grpc::Status HandleDeleteCluster(CallContext& call, const pb::DeleteClusterRequest*,
                                   pb::DeleteClusterResponse*);
  grpc::Status HandleSubmitJob(CallContext& call, const pb::SubmitJobRequest*,
                               pb::SubmitJobResponse*);
  // SubmitJob once the job's owner is settled.
  grpc::Status SubmitOwnedJob(CallContext& call, const pb::SubmitJobRequest*,
                              pb::SubmitJobResponse*);
  // The quota of `tenant`'s work on each cluster; null when it has none (or calls are not
  // authenticated).
  const auth::TenantLimit* QuotaOf(const std::string& tenant) const;
  grpc::Status HandleGetJob(CallContext& call, const pb::GetJobRequest*, pb::Job*);
  grpc::Status HandleListJobs(CallContext& call, const pb::ListJobsRequest*, pb::ListJobsResponse*);
  grpc::Status HandleCancelJob(CallContext& call, const pb::CancelJobRequest*, pb::Job*);
  grpc::Status HandleReportJobEvent(CallContext& call, const pb::ReportJobEventRequest*, pb::Job*);
  grpc::Status HandleAddReservation(CallContext& call, const pb::AddReservationRequest*,
                                    pb::Reservation*);
  grpc::Status HandleRemoveReservation(CallContext& call, const pb::RemoveReservationRequest*,
                                       pb::RemoveReservationResponse*);
  grpc::Status HandleReserveDAG(CallContext& call, const pb::ReserveDAGRequest*,
                                pb::ReserveDAGResponse*);
  grpc::Status HandleQueryDeadline(CallContext& call, const pb::QueryDeadlineRequest*,
                                   pb::QueryDeadlineResponse*);
  grpc::Status HandleGetDagReservation(CallContext& call, const pb::GetDagReservationRequest*,
                                       pb::DagReservation*);
  grpc::Status HandleListDagReservations(CallContext& call, const pb::ListDagReservationsRequest*,
                                         pb::ListDagReservationsResponse*);
  grpc::Status HandleReleaseDAG(CallContext& call, const pb::ReleaseDAGRequest*,
                                pb::ReleaseDAGResponse*);
  grpc::Status HandleReplan(CallContext& call, const pb::ReplanRequest*, pb::ReplanResponse*);
  // Replan's work (service_replan.cc), for the RPC and the periodic Replan of WALL clusters.
  struct ReplanOptions {
    bool dry_run = false;
    bool force = false;           // apply a plan worse on the objective
    bool only_if_better = false;  // apply only a strictly better plan (periodic); no bounds
    std::string request_id;
  };
  grpc::Status ReplanCluster(CallContext& call, ClusterState& state, const std::string& cluster,
                             const std::string& name, const OfflinePlanner& planner,
                             ReplanObjective objective, const ReplanOptions& options,
                             pb::ReplanResponse* response);
  // The timer's tick: replans the WALL clusters whose periodic Replan is due.
  void ReplanDueWallClusters();
  grpc::Status HandleGetSchedule(CallContext& call, const pb::GetScheduleRequest*, pb::Schedule*);
  grpc::Status HandleAdvanceClock(CallContext& call, const pb::AdvanceClockRequest*,
                                  pb::AdvanceClockResponse*);
  grpc::Status HandleListAlgorithms(CallContext& call, const pb::ListAlgorithmsRequest*,
                                    pb::ListAlgorithmsResponse*);
  // The audit line of a call, to be finished with its outcome; null when the call is not audited.
  // It names what the request acts on (server/audit_targets.h).
  std::shared_ptr<auth::AuditEntry> StartAudit(
      const grpc::CallbackServerContext* context, absl::string_view method,
      const auth::Principal* principal, absl::string_view cluster, absl::string_view request_id,
      const std::string& trace_id, const google::protobuf::Message& request) const;
  // Writes the line with the call's outcome and, when it succeeded, what it made.
  void FinishAudit(auth::AuditEntry& entry, const grpc::Status& status,
                   const google::protobuf::Message& response) const;
  // The journal's commits failed (false) or work again (true): metric, log line, listener.
  void OnJournalHealth(const absl::Status& status);
  // The answer to a call that finds max_waiting_calls calls already waiting.
  absl::Status Overloaded() const;
  // Subscribes `watch` to its cluster and starts it (on a worker: it waits for the lock).
  // Other tenants' work reaches a user's stream redacted (server/ownership.h); `caller` is null
  // without tokens.
  void StartWatch(const pb::WatchScheduleRequest& request, std::shared_ptr<ScheduleWatch> watch,
                  std::shared_ptr<const auth::Principal> caller);

  absl::StatusOr<std::shared_ptr<ClusterState>> Find(const std::string& name);
  std::vector<std::shared_ptr<ClusterState>> AllClusters();
  // Reports the cluster's planning time to the metrics.
  void Observe(ClusterState& state);
  // Creates a cluster and journals it; `replayed_at` (the journal's clock) when replaying it.
  absl::StatusOr<pb::Cluster> Create(const pb::CreateClusterRequest& request,
                                     std::optional<Time> replayed_at = std::nullopt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(create_mu_);
  // Replays one journal record (server/recovery.cc).
  absl::Status ApplyRecord(const StoredRecord& stored);
  // The cluster `name` as its durable records leave it.
  absl::StatusOr<std::shared_ptr<ClusterState>> RebuildCluster(const std::string& name);
  // The cluster a stored snapshot holds, as it was after the snapshot's record, and the record
  // that created it.
  absl::StatusOr<std::shared_ptr<ClusterState>> RestoreSnapshot(const StoredRecord& stored,
                                                                pb::JournalRecord* creation) const;
  // The limits every cluster's plan gets from the server's.
  ClusterLimits PlanLimits() const;
  // A new cluster's state, its clock at `now`.
  absl::StatusOr<std::shared_ptr<ClusterState>> NewClusterState(const pb::ClusterSpec& spec,
                                                                Time now) const;
  // What a cluster needs to journal its changes and to be rebuilt from them.
  Durability MakeDurability();
  absl::StatusOr<pb::Cluster> Describe(CallContext& call, ClusterState& state);
  // Checks a ReserveDAG/QueryDeadline request's common fields and converts its DAG.
  absl::StatusOr<Dag> CheckDagRequest(const pb::Dag& dag, const std::string& request_id,
                                      const std::string& label) const;

  const ServiceLimits limits_;
  // Before the clusters, whose watch streams give their bytes back when they go.
  const std::shared_ptr<WatchBudget> watch_budget_ =
      std::make_shared<WatchBudget>(limits_.max_watch_bytes, limits_.max_watch_streams);
  ServerMetrics metrics_;
  std::shared_ptr<ClusterCollector> cluster_metrics_;
  SharedMutex clusters_mu_;  // guards the map, not the clusters
  std::map<std::string, std::shared_ptr<ClusterState>> clusters_ ABSL_GUARDED_BY(clusters_mu_);
  // Held by CreateCluster from its request-id lookup to Remember, so a concurrent retry waits
  // for the first call and replays its answer instead of failing on the name that call just
  // created; it also guards cluster_replies_. DeleteCluster has no request id and takes only
  // clusters_mu_ (and the cluster's own lock).
  Mutex create_mu_;
  ReplyCache cluster_replies_ ABSL_GUARDED_BY(create_mu_){1000};
  std::atomic<bool> shutting_down_{false};
  // Before the journal, whose thread reports to them until it stops.
  Mutex health_mu_;
  std::function<void(bool)> health_listener_ ABSL_GUARDED_BY(health_mu_);
  bool journal_writable_ ABSL_GUARDED_BY(health_mu_) = true;
  std::unique_ptr<Journal> journal_;                         // null: ephemeral
  std::unique_ptr<Snapshotter> snapshotter_;                 // after the journal: stops before it
  std::unique_ptr<trace::Tracer> tracer_;                    // null: calls are not traced
  std::shared_ptr<auth::TokenStore> tokens_;                 // null: calls are not authenticated
  std::unique_ptr<auth::AuditLog> audit_;                    // null: changes are not audited
  std::shared_ptr<const auth::TenantLimits> tenant_limits_;  // null: none
  std::unique_ptr<auth::RateLimiter> rate_limiter_;          // null: no rate limits
  // Open WatchSchedule streams, in total and per client.
  StreamCaps watch_caps_{"WatchSchedule streams", limits_.max_watch_streams,
                         limits_.max_watch_streams_per_client,
                         "retry later (max_watch_streams in the configuration)",
                         "close one first (max_watch_streams_per_client in the configuration)"};
  // Bounds the log and audit lines of calls refused at the gate, per peer.
  mutable auth::DeniedLineLimiter denied_lines_;
  // The lines of calls refused while the journal cannot commit: one a second.
  LineRate journal_fault_lines_{absl::Seconds(1)};
  // When each WALL cluster with a periodic Replan is next due; the timer's thread only.
  std::map<std::string, Time> wall_replan_due_;
  // Last, so that they are destroyed first: their threads finish their work while the rest lives.
  WorkerPool workers_{kWorkerThreads, limits_.max_waiting_calls};
  std::unique_ptr<PeriodicTimer> replan_timer_;
};

}  // namespace resched::server
