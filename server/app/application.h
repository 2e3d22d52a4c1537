// The resched application, apart from any transport: the clusters and their single writer locks,
// their durability (journal, snapshots, recovery), who may make each call and within which
// quotas, the periodic Replan, and one function per call of the v1 API. Requests and answers
// are the API's protobuf messages; errors are absl::Status. The gRPC adapter
// (server/rpc/service.h) turns each call into a CallContext, runs it here, and converts the
// status it gets back; nothing here knows of gRPC.
//
// The call functions (one per row of server/auth/method_table.h) validate their request, act on
// its cluster and fill `response`; a non-OK status means nothing was changed (and `response`
// means nothing), except ALREADY_EXISTS of a retried request id, which carries the first answer.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/time/time.h"
#include "core/offline/offline_planner.h"
#include "resched/v1/config.pb.h"
#include "resched/v1/service.pb.h"
#include "server/app/call_context.h"
#include "server/app/cluster_metrics.h"
#include "server/app/cluster_state.h"
#include "server/app/limits.h"
#include "server/app/metrics.h"
#include "server/app/snapshotter.h"
#include "server/app/watch_budget.h"
#include "server/auth/audit_log.h"
#include "server/auth/denied_lines.h"
#include "server/auth/method_table.h"
#include "server/auth/rate_limiter.h"
#include "server/auth/tenant_limits.h"
#include "server/auth/token_store.h"
#include "server/auth/tokens.h"
#include "server/base/line_rate.h"
#include "server/base/mutex.h"
#include "server/base/periodic_timer.h"
#include "server/base/worker_pool.h"
#include "server/store/journal.h"
#include "server/trace/tracer.h"

namespace resched::server {

// What the gate needs to know of an incoming call, as the transport tells it.
struct IncomingCall {
  const char* method = "";  // the v1 method's name, as auth/access.h rules it
  // The cluster the request acts on, and the name of the field that holds it (for errors);
  // empty for the calls on no one cluster.
  absl::string_view cluster;
  absl::string_view cluster_field;
  absl::string_view request_id;
  // The value of the call's "authorization" metadata (nullopt when it sent none), asked for only
  // when calls are authenticated.
  absl::FunctionRef<std::optional<absl::string_view>()> authorization;
  // The caller's address, asked for only when a line names it (an audited or refused call).
  absl::FunctionRef<std::string()> peer;
  std::string trace_id;  // the call's trace, for the log and audit lines; empty: none
  const google::protobuf::Message* request = nullptr;
};

// How the application takes and gives back clusters when they are spread over replicas
// (docs/ha.md; server/store/etcd_journal_store.h does it in etcd).
struct ClusterClaims {
  // Makes this replica the owner of the new cluster `name`, before its creation is journaled, and
  // returns the LSN of the last record an earlier cluster of that name left (its deletion; 0:
  // none), which the creation's must follow: ALREADY_EXISTS when it exists (on another replica
  // too).
  std::function<absl::StatusOr<std::int64_t>(const std::string& name)> claim_new;
  // Gives up `name`: a creation that failed after claim_new, or a cluster deleted.
  std::function<void(const std::string& name)> forget;
};

// What the gate decided about a call, kept until the call is finished.
struct Admission {
  absl::Status status;  // OK: the call may run
  // Who makes the call; null when calls are not authenticated (or the token was not known).
  std::shared_ptr<const auth::Principal> principal;
  std::shared_ptr<auth::AuditEntry> audit;  // null: the call is not audited
  std::string refused_peer;                 // the caller's address when the gate refused it
  // False for a call another replica serves (server/app/call_route.h): forwarded there, or
  // refused while no replica serves it.
  bool served_here = true;
};

class Application {
 public:
  explicit Application(ServiceLimits limits = {});
  ~Application();
  Application(const Application&) = delete;
  Application& operator=(const Application&) = delete;

  const ServiceLimits& limits() const { return limits_; }

  // Makes the application durable in `dir` (server/app/recovery.cc): takes the directory's
  // lock, replays its journal (the clusters come back as they were acknowledged) and journals
  // every change from then on. Returns true when the directory held no journal yet. Call once,
  // before serving. Errors name the directory; DATA_LOSS names the record that cannot be read
  // or replayed, or the damage to the journal's files (unless `options` accept the loss).
  absl::StatusOr<bool> OpenDataDir(const std::string& dir, JournalOpenOptions options = {});
  // Clusters spread over replicas (server/app/cluster_handover.cc): takes the journal of `store`
  // without loading any cluster; the replica's coordinator then adopts and retires clusters one
  // by one, and new ones are claimed through `claims` before their creation is journaled. Call
  // once, before serving.
  absl::Status OpenSpreadStore(std::unique_ptr<JournalStore> store, ClusterClaims claims);
  // Loads `name` as the journal leaves it and serves it, its records going on after its last one:
  // its warm copy (FollowCluster) with the records after it applied, else its snapshot and its
  // later records. NOT_FOUND when it was deleted; DATA_LOSS when no record creates it.
  absl::Status AdoptCluster(const std::string& name);
  // Keeps a warm copy of `name`, which another replica serves (server/app/cluster_copies.cc):
  // reads it whole the first time, then applies the records written since. A copy that cannot
  // follow (its records went into a snapshot unseen, one does not apply) is read whole again.
  // Nothing when `name` is served here; NOT_FOUND, dropping the copy, once it is deleted.
  absl::Status FollowCluster(const std::string& name);
  // Drops the copies of the clusters not in `keep` (deleted, or served here).
  void DropCopiesExcept(const std::set<std::string>& keep);
  bool HasCopy(const std::string& name);
  // Stops serving `name` here: the call in progress on it finishes, later ones and its
  // watchers get `why`; returns once its last record is durable (nothing to wait for when
  // `lost`: another replica may already serve it).
  absl::Status RetireCluster(const std::string& name, const absl::Status& why, bool lost);
  // Whether `name` is served here.
  bool Serves(const std::string& name);
  // Creates the clusters of a configuration; fails without creating any on a bad spec.
  // With `skip_existing`, a cluster that already exists (another replica created it, or an
  // earlier start cut short) is left as it is and the others are created.
  absl::Status CreateConfiguredClusters(const pb::ServerConfig& config, bool skip_existing = false);
  int ClusterCount();
  // A deep copy of a cluster's plan, for tests and tools that check it with the validator.
  absl::StatusOr<std::unique_ptr<ClusterPlan>> CopyPlan(const std::string& cluster);
  // The journal when the application is durable, else null (tests inject faults through it).
  Journal* journal() { return journal_.get(); }
  // Waits until every snapshot image taken so far is written or dropped (tests, benchmarks), and
  // returns how many were written since start-up.
  std::int64_t FlushSnapshots();
  // Hears whether the application can accept changes: false while the journal cannot commit
  // (the disk is full, or failing), true once it can again; called at once with the current
  // state, then on each change, from the journal's thread. For the gRPC health check, so that
  // Kubernetes and load balancers stop sending work to a server that can only refuse it.
  // nullptr stops it (before the listener's target goes away).
  void SetHealthListener(std::function<void(bool serving)> listener);

  // What a metrics endpoint serves: the server's metrics and the per-cluster gauges.
  std::vector<std::shared_ptr<prometheus::Collectable>> MetricsCollectables() const;
  ServerMetrics& metrics() { return metrics_; }
  // Traces the sampled calls from now on, the spans sent to `exporter` in batches (spans it
  // cannot take are dropped and counted). Call once, before serving.
  void EnableTracing(std::unique_ptr<trace::SpanExporter> exporter, trace::TracerOptions options);
  // The tracer; null when calls are not traced.
  trace::Tracer* tracer() { return tracer_.get(); }
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

  // The gate (server/app/call_gate.cc): checks the fields that reach the log whatever the
  // outcome, authenticates and authorizes the call, applies its tenant's rate limit, and starts
  // its audit line.
  Admission Admit(const IncomingCall& call) const;
  // Ends a unary call the gate saw: its metrics, its log line when it failed (a bounded number
  // for refused strangers and while the journal cannot commit), its audit line.
  void Finish(const char* method, const Admission& admission, const absl::Status& status,
              const google::protobuf::Message& response, double seconds,
              const std::string& trace_id);
  // The bytes all watch streams together may hold (max_watch_bytes).
  WatchBudget& watch_budget() { return *watch_budget_; }
  // Where calls and the journal's callbacks run; bounded (max_waiting_calls).
  WorkerPool& workers() { return workers_; }
  // The answer to a call that finds max_waiting_calls calls already waiting.
  absl::Status Overloaded() const;

  // Subscribes `sink` to the cluster of `request` and returns its first event (the schedule as it
  // is), or pushes the events after `request.after_sequence` into `sink` and returns nullopt
  // (ClusterState::Watch); ends `sink` instead when there is no such cluster or the application is
  // stopping.
  // Other tenants' work reaches a user's stream redacted (server/app/ownership.h); `caller` is null
  // without tokens. Waits for the cluster's lock.
  std::optional<pb::ScheduleEvent> Watch(const pb::WatchScheduleRequest& request,
                                         const std::shared_ptr<ScheduleSink>& sink,
                                         std::shared_ptr<const auth::Principal> caller);
  // Ends the open watches with UNAVAILABLE and stops the periodic Replan (before the transport
  // shuts down).
  void BeginShutdown();

  // One call per unary method of the v1 API (server/auth/method_table.h), as service.proto
  // documents it: absl::Status <Name>(CallContext& call, const pb::<Request>& request,
  // pb::<Response>* response).
#define RESCHED_APPLICATION_CALL(name, request_type, response_type, access) \
  absl::Status name(CallContext& call, const pb::request_type& request,     \
                    pb::response_type* response);
  RESCHED_UNARY_METHODS(RESCHED_APPLICATION_CALL)
#undef RESCHED_APPLICATION_CALL

 private:
  // SubmitJob once the job's owner is settled.
  absl::Status SubmitOwnedJob(CallContext& call, const pb::SubmitJobRequest& request,
                              pb::SubmitJobResponse* response);
  // The quota of `tenant`'s work on each cluster; null when it has none (or calls are not
  // authenticated).
  const auth::TenantLimit* QuotaOf(const std::string& tenant) const;
  // Replan's work (server/app/replan_calls.cc), for the call and the periodic Replan of WALL
  // clusters.
  struct ReplanOptions {
    bool dry_run = false;
    bool force = false;           // apply a plan worse on the objective
    bool only_if_better = false;  // apply only a strictly better plan (periodic); no bounds
    std::string request_id;
  };
  absl::Status ReplanCluster(CallContext& call, ClusterState& state, const std::string& cluster,
                             const std::string& name, const OfflinePlanner& planner,
                             ReplanObjective objective, const ReplanOptions& options,
                             pb::ReplanResponse* response);
  // The timer's tick: replans the WALL clusters whose periodic Replan is due.
  void ReplanDueWallClusters();
  // The journal's commits failed (false) or work again (true): metric, log line, listener.
  void OnJournalHealth(const absl::Status& status);

  absl::StatusOr<std::shared_ptr<ClusterState>> Find(const std::string& name);
  std::vector<std::shared_ptr<ClusterState>> AllClusters();
  // Reports the cluster's planning time to the metrics.
  void Observe(ClusterState& state);
  // Creates a cluster and journals it; `replayed_at` (the journal's clock) when replaying it.
  absl::StatusOr<pb::Cluster> Create(const pb::CreateClusterRequest& request,
                                     std::optional<Time> replayed_at = std::nullopt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(create_mu_);
  // Takes `journal`, replays what it holds (unless not `load`: OpenSpreadStore) and journals
  // every change to it from then on (OpenDataDir, OpenSpreadStore).
  absl::StatusOr<bool> TakeJournal(std::unique_ptr<Journal> journal, bool load = true);
  // Replays one journal record (server/app/recovery.cc).
  absl::Status ApplyRecord(const StoredRecord& stored);
  // The cluster `name` as its durable records leave it; `last_lsn` (when given) gets the LSN of
  // its last record or snapshot.
  absl::StatusOr<std::shared_ptr<ClusterState>> RebuildCluster(const std::string& name,
                                                               std::int64_t* last_lsn = nullptr);
  // Applies one of `name`'s records to `state` as a rebuild does (a creation replaces it);
  // NOT_FOUND for its deletion.
  absl::Status ApplyToCopy(std::shared_ptr<ClusterState>& state, const StoredRecord& stored,
                           const std::string& name) const;
  // A warm copy of a cluster another replica serves, up to its record `last_lsn`.
  struct ClusterCopy {
    std::shared_ptr<ClusterState> state;
    std::int64_t last_lsn = 0;
  };
  // Catches `copy` up with `name`'s records, or reads it whole when it has no state or cannot
  // follow; `applied` gets the number of records applied to it (-1: read whole). On an error
  // `copy` is as it was (etcd unreachable) or empty.
  absl::Status CatchUp(const std::string& name, ClusterCopy& copy, std::int64_t* applied);
  // Takes `name`'s copy out of copies_ (an empty one when there is none), and puts one back
  // (nothing when it is empty).
  ClusterCopy TakeCopy(const std::string& name);
  void KeepCopy(const std::string& name, ClusterCopy copy);
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
  // Clusters this replica handed over or lost lately, with what a call that finds one gone
  // answers until then: that it moved (retry), not that it does not exist. A call routed here
  // just before a retirement looks its cluster up just after.
  struct Retired {
    absl::Status why;
    absl::Time until;
  };
  std::map<std::string, Retired> retired_ ABSL_GUARDED_BY(clusters_mu_);
  // Held by CreateCluster from its request-id lookup to Remember, so a concurrent retry waits
  // for the first call and replays its answer instead of failing on the name that call just
  // created; it also guards cluster_replies_. DeleteCluster has no request id and takes only
  // clusters_mu_ (and the cluster's own lock).
  Mutex create_mu_;
  ReplyCache cluster_replies_ ABSL_GUARDED_BY(create_mu_){1000};
  // Warm copies of the clusters other replicas serve; taken out while caught up or adopted.
  Mutex copies_mu_;
  std::map<std::string, ClusterCopy> copies_ ABSL_GUARDED_BY(copies_mu_);
  std::atomic<bool> shutting_down_{false};
  // Before the journal, whose thread reports to them until it stops.
  Mutex health_mu_;
  std::function<void(bool)> health_listener_ ABSL_GUARDED_BY(health_mu_);
  bool journal_writable_ ABSL_GUARDED_BY(health_mu_) = true;
  std::unique_ptr<Journal> journal_;          // null: ephemeral
  ClusterClaims claims_;                      // empty unless clusters are spread over replicas
  std::unique_ptr<Snapshotter> snapshotter_;  // after the journal: stops before it
  std::unique_ptr<trace::Tracer> tracer_;     // null: calls are not traced
  std::shared_ptr<auth::TokenStore> tokens_;  // null: calls are not authenticated
  std::unique_ptr<auth::AuditLog> audit_;     // null: changes are not audited
  std::shared_ptr<const auth::TenantLimits> tenant_limits_;  // null: none
  std::unique_ptr<auth::RateLimiter> rate_limiter_;          // null: no rate limits
  // Bounds the log and audit lines of calls refused at the gate, per peer.
  mutable auth::DeniedLineLimiter denied_lines_;
  // The lines of calls refused while the journal cannot commit: one a second.
  mutable LineRate journal_fault_lines_{absl::Seconds(1)};
  // When each WALL cluster with a periodic Replan is next due; the timer's thread only.
  std::map<std::string, Time> wall_replan_due_;
  // Last, so that they are destroyed first: their threads finish their work while the rest lives.
  WorkerPool workers_{"resched-calls", kWorkerThreads, limits_.max_waiting_calls};
  std::unique_ptr<PeriodicTimer> replan_timer_;
};

}  // namespace resched::server
