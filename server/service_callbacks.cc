// The callback API's entry points: each unary call runs its handler (service.cc,
// service_dags.cc) on a worker thread, unless gRPC's thread could answer it at once (inline,
// server/call_context.h), and finishes once its journal records are durable
// (server/deferred_durability.h); WatchSchedule returns its stream at once and subscribes it on
// a worker.
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/cluster.h"
#include "server/audit_targets.h"
#include "server/auth/access.h"
#include "server/auth/call_auth.h"
#include "server/call_context.h"
#include "server/call_control.h"
#include "server/call_peer.h"
#include "server/deferred_durability.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/service.h"
#include "server/service_util.h"
#include "server/trace/span.h"
#include "server/trace/trace_context.h"

namespace resched::server {

absl::Status ReschedService::Overloaded() const {
  return absl::ResourceExhaustedError(
      absl::StrCat("the server has ", limits_.max_waiting_calls,
                   " calls waiting for a thread (max_waiting_calls); retry later"));
}

void ReschedService::RequireTokens(std::shared_ptr<const auth::TokenTable> tokens) {
  tokens_ = std::make_shared<auth::TokenStore>(std::move(tokens));
}

void ReschedService::SetTenantLimits(std::shared_ptr<const auth::TenantLimits> limits) {
  tenant_limits_ = std::move(limits);
  rate_limiter_ = std::make_unique<auth::RateLimiter>(tenant_limits_);
}

void ReschedService::SetHealthListener(std::function<void(bool serving)> listener) {
  MutexLock lock(&health_mu_);
  health_listener_ = std::move(listener);
  if (health_listener_) health_listener_(journal_writable_);
}

void ReschedService::OnJournalHealth(const absl::Status& status) {
  metrics_.SetJournalWritable(status.ok());
  // Called once per failed commit: the journal refuses appends after one until a probe commits.
  if (!status.ok()) metrics_.CountFailedCommit();
  if (status.ok()) {
    Log(LogLevel::kInfo, "journal_writable",
        absl::StrCat("the journal in ", journal_->dir(),
                     " commits again: changes are accepted and the health check says SERVING"));
  } else {
    Log(LogLevel::kError, "journal_unwritable",
        absl::StrCat("the journal in ", journal_->dir(), " cannot commit (", status.message(),
                     "): every change is refused with UNAVAILABLE and the health check says "
                     "NOT_SERVING until a probe commits again"),
        {{"data_dir", journal_->dir()}});
  }
  MutexLock lock(&health_mu_);
  journal_writable_ = status.ok();
  if (health_listener_) health_listener_(journal_writable_);
}

void ReschedService::EnableAudit(std::unique_ptr<auth::AuditLog> audit) {
  audit_ = std::move(audit);
}

std::shared_ptr<auth::AuditEntry> ReschedService::StartAudit(
    const grpc::CallbackServerContext* context, absl::string_view method,
    const auth::Principal* principal, absl::string_view cluster, absl::string_view request_id,
    const std::string& trace_id, const google::protobuf::Message& request) const {
  if (audit_ == nullptr) return nullptr;
  const std::optional<auth::MethodAccess> access = auth::AccessOf(method);
  // A method without a rule is refused at the gate, and the refusal is audited.
  if (access && !access->changes) return nullptr;
  auto entry = std::make_shared<auth::AuditEntry>();
  if (principal != nullptr) {
    entry->tenant = principal->tenant;
    entry->role = std::string(auth::RoleName(principal->role));
  }
  entry->method = std::string(method);
  entry->cluster = std::string(cluster);
  entry->request_id = std::string(request_id);
  entry->trace_id = trace_id;
  entry->peer = CallPeer(*context);
  entry->targets = RequestTargets(request);
  return entry;
}

void ReschedService::FinishAudit(auth::AuditEntry& entry, const grpc::Status& status,
                                 const google::protobuf::Message& response) const {
  if (status.ok()) {
    AuditTargets made = MadeTargets(response);
    entry.targets.insert(entry.targets.end(), made.begin(), made.end());
  }
  entry.time = absl::Now();
  entry.code = absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
  entry.error = status.error_message();
  audit_->Record(entry);
}

namespace {

constexpr char kServiceName[] = "resched.v1.Resched";

// The cluster a request acts on, for the cluster grants of the caller's token and the audit log;
// empty for the calls on no one cluster.
absl::string_view ClusterOf(const pb::GetClusterRequest& request) { return request.name(); }
absl::string_view ClusterOf(const pb::CreateClusterRequest& request) {
  return request.spec().name();
}
absl::string_view ClusterOf(const pb::DeleteClusterRequest& request) { return request.name(); }
template <class Request>
absl::string_view ClusterOf(const Request& request) {
  if constexpr (requires { request.cluster(); }) {
    return request.cluster();
  } else {
    return {};
  }
}

// The name of the field ClusterOf reads, for errors.
const char* ClusterFieldOf(const pb::GetClusterRequest&) { return "name"; }
// As ValidateClusterSpec names it.
const char* ClusterFieldOf(const pb::CreateClusterRequest&) { return "cluster.name"; }
const char* ClusterFieldOf(const pb::DeleteClusterRequest&) { return "name"; }
template <class Request>
const char* ClusterFieldOf(const Request&) {
  return "cluster";
}

template <class Request>
absl::string_view RequestIdOf(const Request& request) {
  if constexpr (requires { request.request_id(); }) {
    return request.request_id();
  } else {
    return {};
  }
}

// The calls tried on gRPC's thread first (inline, server/call_context.h): their work is bounded.
// A dry run copies the whole plan.
template <class Request>
bool TriedInline(const Request&) {
  return false;
}
bool TriedInline(const pb::SubmitJobRequest& request) { return !request.dry_run(); }
bool TriedInline(const pb::GetJobRequest&) { return true; }

// The fields that reach the audit log and the server's log whatever the call's outcome, checked
// before anything is written: a cluster name as a cluster may have (core/model/cluster.h) and a
// request id within its bound.
template <class Request>
absl::Status CheckGateFields(const Request& request) {
  if (absl::Status checked = CheckRequestId(RequestIdOf(request)); !checked.ok()) {
    return checked;
  }
  const absl::string_view cluster = ClusterOf(request);
  if (cluster.empty()) return absl::OkStatus();  // the handler says whether one is needed
  return ValidateClusterName(cluster, ClusterFieldOf(request));
}

// One line per failed call: what a person looks for first when a client reports an error.
void LogFailedCall(const char* method, const grpc::Status& status, double seconds,
                   const std::string& trace_id, std::int64_t suppressed,
                   std::int64_t fault_suppressed) {
  const std::string code =
      absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code()));
  LogFields fields = {{"method", method},
                      {"code", code},
                      {"error", status.error_message()},
                      {"ms", absl::StrFormat("%.3f", seconds * 1e3)}};
  if (!trace_id.empty()) fields.emplace_back("trace_id", trace_id);
  std::string message = absl::StrCat(method, " failed: ", code, ": ", status.error_message());
  if (suppressed > 0) {
    fields.emplace_back("suppressed_before", absl::StrCat(suppressed));
    absl::StrAppend(&message, " (", suppressed, " refused calls of this peer not logged before)");
  }
  if (fault_suppressed > 0) {
    fields.emplace_back("journal_fault_suppressed_before", absl::StrCat(fault_suppressed));
    absl::StrAppend(&message, " (", fault_suppressed,
                    " calls refused while the journal cannot commit not logged before)");
  }
  Log(LogLevel::kWarning, "call_failed", message, fields);
}

// The server span of a call (OpenTelemetry's RPC conventions), with the cluster it names
// (ClusterOf; empty: none); null when the call is not sampled.
std::unique_ptr<trace::Span> StartCallSpan(trace::Tracer& tracer, const char* method,
                                           const std::optional<trace::SpanContext>& caller,
                                           absl::string_view cluster) {
  const std::optional<trace::TraceId> trace = tracer.Sample(caller);
  if (!trace) return nullptr;
  trace::Attributes attributes = {{"rpc.system", std::string("grpc")},
                                  {"rpc.service", std::string(kServiceName)},
                                  {"rpc.method", std::string(method)}};
  if (!cluster.empty()) attributes.emplace_back("resched.cluster", std::string(cluster));
  return tracer.StartServerSpan(absl::StrCat(kServiceName, "/", method), *trace, caller,
                                std::move(attributes));
}

}  // namespace

template <class Request, class Response>
grpc::ServerUnaryReactor* ReschedService::Dispatch(
    grpc::CallbackServerContext* context, const char* method, const Request* request,
    Response* response,
    grpc::Status (ReschedService::*handler)(CallContext&, const Request*, Response*)) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const auto arrived = std::chrono::steady_clock::now();
  std::optional<trace::SpanContext> caller;
  if (auto it = context->client_metadata().find("traceparent");
      it != context->client_metadata().end()) {
    caller = trace::ParseTraceparent(absl::string_view(it->second.data(), it->second.size()));
  }
  // Shared: the worker's task is a copyable std::function.
  std::shared_ptr<trace::Span> span;
  if (tracer_) span = StartCallSpan(*tracer_, method, caller, ClusterOf(*request));
  // The log line of a failed call names its trace: the caller's, or the one this call started.
  std::string trace_id;
  if (span) {
    trace_id = trace::ToHex(span->context().trace_id);
  } else if (caller) {
    trace_id = trace::ToHex(caller->trace_id);
  }
  absl::Status gate = CheckGateFields(*request);
  auth::CallAuthorization authorization;
  if (gate.ok() && tokens_ != nullptr) {
    authorization = auth::AuthorizeCall(*tokens_->Current(), context->client_metadata(), method,
                                        ClusterOf(*request));
    gate = authorization.status;
  }
  // Shared for the same reason as the span; null when calls are not authenticated.
  std::shared_ptr<const auth::Principal> principal;
  if (authorization.principal) {
    principal = std::make_shared<const auth::Principal>(*std::move(authorization.principal));
  }
  std::shared_ptr<auth::AuditEntry> audit =
      StartAudit(context, method, principal.get(), ClusterOf(*request), RequestIdOf(*request),
                 trace_id, *request);
  // `refused_peer`: the caller's address when the gate refused the call, else empty.
  auto finish = [this, reactor, method, arrived, trace_id, span, audit, response](
                    const grpc::Status& status, const std::string& refused_peer) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - arrived).count();
    metrics_.ObserveCall(method, status.error_code(), seconds);
    // A stranger's refused calls write a bounded number of lines (server/auth/denied_lines.h).
    std::int64_t suppressed = 0;
    bool write_lines =
        refused_peer.empty() || denied_lines_.Admit(refused_peer, absl::Now(), &suppressed);
    // While the journal cannot commit every change fails alike: a line a second says so.
    const bool journal_fault = status.error_code() == grpc::StatusCode::UNAVAILABLE &&
                               journal_ != nullptr && !journal_->CheckWritable().ok();
    std::int64_t fault_suppressed = 0;
    if (journal_fault && write_lines) {
      write_lines = journal_fault_lines_.Admit(absl::Now(), &fault_suppressed);
    }
    if (!status.ok() && write_lines) {
      LogFailedCall(method, status, seconds, trace_id, suppressed, fault_suppressed);
    }
    if (audit && write_lines) {
      audit->suppressed = suppressed;
      FinishAudit(*audit, status, *response);
    }
    if (span) {
      span->SetAttribute("rpc.grpc.status_code", std::int64_t{status.error_code()});
      if (!status.ok()) span->SetError(status.error_message());
      span->End();
    }
    reactor->Finish(status);
  };
  if (gate.ok() && principal != nullptr && rate_limiter_ != nullptr) {
    gate = rate_limiter_->Admit(principal->tenant, absl::Now());
  }
  if (!gate.ok()) {
    finish(ToGrpc(gate), CallPeer(*context));
    return reactor;
  }
  // The handler, with the call's span current, on whichever thread runs it: inline or not, its
  // waits for the journal noted in `deferred`. Sets `declined` when the cluster declined to run
  // it inline.
  auto run = [this, context, request, response, handler, span, principal](
                 bool runs_inline, DeferredDurability& deferred, bool& declined) {
    trace::CurrentSpanScope current(span.get());
    CallContext call;
    call.set_principal(principal.get());
    call.set_status_check([context] { return CallStatusOf(*context); });
    call.set_runs_inline(runs_inline);
    call.set_deferred(&deferred);
    grpc::Status status = (this->*handler)(call, request, response);
    declined = call.declined();
    return status;
  };
  // Finishes the call once what its answer depends on is durable (server/deferred_durability.h):
  // at once when nothing waits, else from a worker when the journal's thread says so, so that
  // the journal goes on committing. A failed commit fails the call whatever the handler said.
  auto settle = [finish](DeferredDurability& deferred, const grpc::Status& status) {
    std::move(deferred).Then([finish, status](const absl::Status& durable) {
      finish(durable.ok() ? status : ToGrpc(durable), "");
    });
  };
  if (TriedInline(*request)) {
    DeferredDurability deferred;
    bool declined = false;
    grpc::Status status = run(/*runs_inline=*/true, deferred, declined);
    if (!declined) {
      settle(deferred, std::move(status));
      return reactor;
    }
    response->Clear();  // a declined call changed nothing and deferred nothing
  }
  // The request and the response live until Finish.
  if (!workers_.TryPost([run, settle] {
        DeferredDurability deferred;
        bool declined = false;  // only an inline call is declined
        settle(deferred, run(/*runs_inline=*/false, deferred, declined));
      })) {
    metrics_.CountShed(method);
    finish(ToGrpc(Overloaded()), "");
  }
  return reactor;
}

grpc::ServerUnaryReactor* ReschedService::CreateCluster(grpc::CallbackServerContext* context,
                                                        const pb::CreateClusterRequest* request,
                                                        pb::Cluster* response) {
  return Dispatch(context, "CreateCluster", request, response,
                  &ReschedService::HandleCreateCluster);
}

grpc::ServerUnaryReactor* ReschedService::GetCluster(grpc::CallbackServerContext* context,
                                                     const pb::GetClusterRequest* request,
                                                     pb::Cluster* response) {
  return Dispatch(context, "GetCluster", request, response, &ReschedService::HandleGetCluster);
}

grpc::ServerUnaryReactor* ReschedService::ListClusters(grpc::CallbackServerContext* context,
                                                       const pb::ListClustersRequest* request,
                                                       pb::ListClustersResponse* response) {
  return Dispatch(context, "ListClusters", request, response, &ReschedService::HandleListClusters);
}

grpc::ServerUnaryReactor* ReschedService::DeleteCluster(grpc::CallbackServerContext* context,
                                                        const pb::DeleteClusterRequest* request,
                                                        pb::DeleteClusterResponse* response) {
  return Dispatch(context, "DeleteCluster", request, response,
                  &ReschedService::HandleDeleteCluster);
}

grpc::ServerUnaryReactor* ReschedService::SubmitJob(grpc::CallbackServerContext* context,
                                                    const pb::SubmitJobRequest* request,
                                                    pb::SubmitJobResponse* response) {
  return Dispatch(context, "SubmitJob", request, response, &ReschedService::HandleSubmitJob);
}

grpc::ServerUnaryReactor* ReschedService::GetJob(grpc::CallbackServerContext* context,
                                                 const pb::GetJobRequest* request,
                                                 pb::Job* response) {
  return Dispatch(context, "GetJob", request, response, &ReschedService::HandleGetJob);
}

grpc::ServerUnaryReactor* ReschedService::ListJobs(grpc::CallbackServerContext* context,
                                                   const pb::ListJobsRequest* request,
                                                   pb::ListJobsResponse* response) {
  return Dispatch(context, "ListJobs", request, response, &ReschedService::HandleListJobs);
}

grpc::ServerUnaryReactor* ReschedService::CancelJob(grpc::CallbackServerContext* context,
                                                    const pb::CancelJobRequest* request,
                                                    pb::Job* response) {
  return Dispatch(context, "CancelJob", request, response, &ReschedService::HandleCancelJob);
}

grpc::ServerUnaryReactor* ReschedService::ReportJobEvent(grpc::CallbackServerContext* context,
                                                         const pb::ReportJobEventRequest* request,
                                                         pb::Job* response) {
  return Dispatch(context, "ReportJobEvent", request, response,
                  &ReschedService::HandleReportJobEvent);
}

grpc::ServerUnaryReactor* ReschedService::AddReservation(grpc::CallbackServerContext* context,
                                                         const pb::AddReservationRequest* request,
                                                         pb::Reservation* response) {
  return Dispatch(context, "AddReservation", request, response,
                  &ReschedService::HandleAddReservation);
}

grpc::ServerUnaryReactor* ReschedService::RemoveReservation(
    grpc::CallbackServerContext* context, const pb::RemoveReservationRequest* request,
    pb::RemoveReservationResponse* response) {
  return Dispatch(context, "RemoveReservation", request, response,
                  &ReschedService::HandleRemoveReservation);
}

grpc::ServerUnaryReactor* ReschedService::ReserveDAG(grpc::CallbackServerContext* context,
                                                     const pb::ReserveDAGRequest* request,
                                                     pb::ReserveDAGResponse* response) {
  return Dispatch(context, "ReserveDAG", request, response, &ReschedService::HandleReserveDAG);
}

grpc::ServerUnaryReactor* ReschedService::QueryDeadline(grpc::CallbackServerContext* context,
                                                        const pb::QueryDeadlineRequest* request,
                                                        pb::QueryDeadlineResponse* response) {
  return Dispatch(context, "QueryDeadline", request, response,
                  &ReschedService::HandleQueryDeadline);
}

grpc::ServerUnaryReactor* ReschedService::GetDagReservation(
    grpc::CallbackServerContext* context, const pb::GetDagReservationRequest* request,
    pb::DagReservation* response) {
  return Dispatch(context, "GetDagReservation", request, response,
                  &ReschedService::HandleGetDagReservation);
}

grpc::ServerUnaryReactor* ReschedService::ListDagReservations(
    grpc::CallbackServerContext* context, const pb::ListDagReservationsRequest* request,
    pb::ListDagReservationsResponse* response) {
  return Dispatch(context, "ListDagReservations", request, response,
                  &ReschedService::HandleListDagReservations);
}

grpc::ServerUnaryReactor* ReschedService::ReleaseDAG(grpc::CallbackServerContext* context,
                                                     const pb::ReleaseDAGRequest* request,
                                                     pb::ReleaseDAGResponse* response) {
  return Dispatch(context, "ReleaseDAG", request, response, &ReschedService::HandleReleaseDAG);
}

grpc::ServerUnaryReactor* ReschedService::Replan(grpc::CallbackServerContext* context,
                                                 const pb::ReplanRequest* request,
                                                 pb::ReplanResponse* response) {
  return Dispatch(context, "Replan", request, response, &ReschedService::HandleReplan);
}

grpc::ServerUnaryReactor* ReschedService::GetSchedule(grpc::CallbackServerContext* context,
                                                      const pb::GetScheduleRequest* request,
                                                      pb::Schedule* response) {
  return Dispatch(context, "GetSchedule", request, response, &ReschedService::HandleGetSchedule);
}

grpc::ServerUnaryReactor* ReschedService::AdvanceClock(grpc::CallbackServerContext* context,
                                                       const pb::AdvanceClockRequest* request,
                                                       pb::AdvanceClockResponse* response) {
  return Dispatch(context, "AdvanceClock", request, response, &ReschedService::HandleAdvanceClock);
}

grpc::ServerUnaryReactor* ReschedService::ListAlgorithms(grpc::CallbackServerContext* context,
                                                         const pb::ListAlgorithmsRequest* request,
                                                         pb::ListAlgorithmsResponse* response) {
  return Dispatch(context, "ListAlgorithms", request, response,
                  &ReschedService::HandleListAlgorithms);
}

grpc::ServerWriteReactor<pb::ScheduleEvent>* ReschedService::WatchSchedule(
    grpc::CallbackServerContext* context, const pb::WatchScheduleRequest* request) {
  metrics_.WatchStarted();
  // The client whose share of watch_caps_ the stream holds, once admitted; released when gRPC is
  // done with the stream, which is after every write of it has returned its memory.
  auto held = std::make_shared<std::optional<std::string>>();
  auto watch =
      std::make_shared<ScheduleWatch>(limits_.max_watch_backlog, *watch_budget_, [this, held] {
        if (held->has_value()) watch_caps_.Release(**held);
        metrics_.WatchEnded();
      });
  ScheduleWatch* raw = watch.get();
  const auto refuse = [&](const absl::Status& status) {
    watch->End(status);
    raw->Start(std::move(watch), std::nullopt);
    return raw;
  };
  if (absl::Status checked = CheckGateFields(*request); !checked.ok()) return refuse(checked);
  std::shared_ptr<const auth::Principal> caller;
  if (tokens_ != nullptr) {
    auth::CallAuthorization authorization = auth::AuthorizeCall(
        *tokens_->Current(), context->client_metadata(), "WatchSchedule", request->cluster());
    if (!authorization.status.ok()) return refuse(authorization.status);
    caller = std::make_shared<const auth::Principal>(*std::move(authorization.principal));
    if (rate_limiter_ != nullptr) {
      if (absl::Status admitted = rate_limiter_->Admit(caller->tenant, absl::Now());
          !admitted.ok()) {
        return refuse(admitted);
      }
    }
  }
  const std::string client =
      caller != nullptr
          ? absl::StrCat("tenant ", caller->tenant)
          : absl::StrCat("address ", auth::DeniedLineLimiter::AddressOf(CallPeer(*context)));
  if (absl::Status admitted = watch_caps_.Acquire(client); !admitted.ok()) return refuse(admitted);
  *held = client;
  if (!workers_.TryPost(
          [this, request, watch, caller]() mutable { StartWatch(*request, watch, caller); })) {
    return refuse(Overloaded());
  }
  return raw;
}

}  // namespace resched::server
