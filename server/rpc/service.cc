// The gRPC adapter (server/rpc/service.h): each unary call passes the application's gate, runs
// its call on a worker thread, unless gRPC's thread could answer it at once (inline,
// server/app/call_context.h), and finishes once its journal records are durable
// (server/app/deferred_durability.h); WatchSchedule returns its stream at once and subscribes it on
// a worker.
#include "server/rpc/service.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "server/app/call_context.h"
#include "server/app/deferred_durability.h"
#include "server/base/status_details.h"
#include "server/rpc/call_control.h"
#include "server/rpc/call_peer.h"
#include "server/rpc/schedule_watch.h"
#include "server/rpc/to_grpc.h"
#include "server/trace/span.h"
#include "server/trace/trace_context.h"

namespace resched::server {
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

// The calls tried on gRPC's thread first (inline, server/app/call_context.h): their work is
// bounded. A dry run copies the whole plan.
template <class Request>
bool TriedInline(const Request&) {
  return false;
}
bool TriedInline(const pb::SubmitJobRequest& request) { return !request.dry_run(); }
bool TriedInline(const pb::GetJobRequest&) { return true; }

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

// The value of the call's "authorization" metadata; nullopt when it sent none.
std::optional<absl::string_view> AuthorizationOf(const grpc::CallbackServerContext& context) {
  const auto header = context.client_metadata().find("authorization");
  if (header == context.client_metadata().end()) return std::nullopt;
  return absl::string_view(header->second.data(), header->second.size());
}

// What the application's gate needs to know of a call; `authorization` and `peer` read the
// call's context, and live until the gate is passed.
template <class Request>
IncomingCall IncomingOf(const char* method, const Request& request,
                        absl::FunctionRef<std::optional<absl::string_view>()> authorization,
                        absl::FunctionRef<std::string()> peer, const std::string& trace_id) {
  return IncomingCall{.method = method,
                      .cluster = ClusterOf(request),
                      .cluster_field = ClusterFieldOf(request),
                      .request_id = RequestIdOf(request),
                      .authorization = authorization,
                      .peer = peer,
                      .trace_id = trace_id,
                      .request = &request};
}

}  // namespace

ReschedService::ReschedService(Application& app, const CallRouter* router, Forwarder* forwarder)
    : app_(app), router_(router), forwarder_(forwarder), watches_(app, router, forwarder) {}

template <class Request, class Response>
grpc::ServerUnaryReactor* ReschedService::Dispatch(
    grpc::CallbackServerContext* context, const char* method, const Request* request,
    Response* response,
    absl::Status (Application::*handler)(CallContext&, const Request&, Response*)) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const auto arrived = std::chrono::steady_clock::now();
  std::optional<trace::SpanContext> caller;
  if (auto it = context->client_metadata().find("traceparent");
      it != context->client_metadata().end()) {
    caller = trace::ParseTraceparent(absl::string_view(it->second.data(), it->second.size()));
  }
  // Shared: the worker's task is a copyable std::function.
  std::shared_ptr<trace::Span> span;
  if (trace::Tracer* tracer = app_.tracer()) {
    span = StartCallSpan(*tracer, method, caller, ClusterOf(*request));
  }
  // The log line of a failed call names its trace: the caller's, or the one this call started.
  std::string trace_id;
  if (span) {
    trace_id = trace::ToHex(span->context().trace_id);
  } else if (caller) {
    trace_id = trace::ToHex(caller->trace_id);
  }
  const Admission admission = app_.Admit(IncomingOf(
      method, *request, [context] { return AuthorizationOf(*context); },
      [context] { return CallPeer(*context); }, trace_id));
  // The tasks below hold the application, not this adapter: a worker may run one while the
  // adapter is being destroyed (the application's workers outlive it).
  Application* app = &app_;
  // Ends the call with `status`, which goes to the client as `wire`.
  auto end = [app, reactor, method, arrived, trace_id, span, response](
                 const Admission& admitted, const absl::Status& status, const grpc::Status& wire) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - arrived).count();
    app->Finish(method, admitted, status, *response, seconds, trace_id);
    if (span) {
      span->SetAttribute("rpc.grpc.status_code", std::int64_t{static_cast<int>(status.code())});
      if (!status.ok()) span->SetError(std::string(status.message()));
      span->End();
    }
    reactor->Finish(wire);
  };
  auto finish = [end, admission](const absl::Status& status) {
    end(admission, status, ToGrpc(status));
  };
  // The trace context a call sent to another replica carries: this call's span, else the caller's.
  auto outgoing_traceparent = [span, caller] {
    if (span) return trace::FormatTraceparent(span->context());
    return caller ? trace::FormatTraceparent(*caller) : std::string();
  };
  // A call another replica serves: forwarded there (which audits it), or refused.
  Admission elsewhere = admission;
  elsewhere.audit = nullptr;
  elsewhere.served_here = false;
  if (!admission.status.ok()) {
    finish(admission.status);
    return reactor;
  }
  if (router_ != nullptr) {
    CallRoute route = router_->Route(ClusterOf(*request));
    if (route.kind == CallRoute::Kind::kHere) {
      context->AddInitialMetadata(kServedByHeader, router_->replica_id());
    } else if (route.kind == CallRoute::Kind::kRefuse) {
      end(elsewhere, route.refusal, ToGrpc(route.refusal));
      return reactor;
    } else if (const auto by = context->client_metadata().find(kForwardedByHeader);
               by != context->client_metadata().end()) {
      const absl::Status bounced = absl::UnavailableError(
          absl::StrCat("replica ", absl::string_view(by->second.data(), by->second.size()),
                       " forwarded this call to replica ", router_->replica_id(),
                       ", which sends it to ", route.replica,
                       ": the replicas disagree on who serves it (a takeover under way); "
                       "retry"));
      end(elsewhere, bounced, ToGrpc(bounced));
      return reactor;
    } else if (context->client_metadata().contains(kNoForwardHeader)) {
      const absl::Status elsewhere_status = WithErrorInfo(
          WithRetryDelay(absl::UnavailableError(absl::StrCat(
                             "cluster '", ClusterOf(*request), "' is served by replica ",
                             route.replica, " at ", route.address, "; call it there")),
                         absl::ZeroDuration()),
          "CLUSTER_ELSEWHERE", {{"replica", route.replica}, {"address", route.address}});
      end(elsewhere, elsewhere_status, ToGrpc(elsewhere_status));
      return reactor;
    } else {
      app_.metrics().CountForwarded(method);
      forwarder_->Forward(
          *context, route.address, method, *request, response, outgoing_traceparent(),
          [end, elsewhere, context](const grpc::Status& wire, const std::string& served_by) {
            if (!served_by.empty()) {
              context->AddInitialMetadata(kServedByHeader, served_by);
            }
            end(elsewhere,
                absl::Status(static_cast<absl::StatusCode>(wire.error_code()),
                             wire.error_message()),
                wire);
          });
      return reactor;
    }
  }
  // The call, with its span current, on whichever thread runs it: inline or not, its waits for
  // the journal noted in `deferred`. Sets `declined` when the cluster declined to run it inline.
  auto run = [app, context, request, response, handler, span, principal = admission.principal](
                 bool runs_inline, DeferredDurability& deferred, bool& declined) {
    trace::CurrentSpanScope current(span.get());
    CallContext call;
    call.set_principal(principal.get());
    call.set_status_check([context] { return CallStatusOf(*context); });
    call.set_runs_inline(runs_inline);
    call.set_deferred(&deferred);
    absl::Status status = (app->*handler)(call, *request, response);
    declined = call.declined();
    return status;
  };
  // Finishes the call once what its answer depends on is durable
  // (server/app/deferred_durability.h): at once when nothing waits, else from a worker when the
  // journal's thread says so, so that the journal goes on committing. A failed commit fails the
  // call whatever the handler said.
  auto settle = [finish](DeferredDurability& deferred, const absl::Status& status) {
    std::move(deferred).Then(
        [finish, status](const absl::Status& durable) { finish(durable.ok() ? status : durable); });
  };
  if constexpr (std::is_same_v<Request, pb::ListClustersRequest>) {
    // Spread over replicas: this replica's clusters and every other's, each asked as a
    // forwarded call so that it answers with its own only.
    if (router_ != nullptr && forwarder_ != nullptr &&
        !context->client_metadata().contains(kForwardedByHeader)) {
      if (std::vector<std::pair<std::string, std::string>> peers = router_->Peers();
          !peers.empty()) {
        Forwarder* forwarder = forwarder_;
        if (!app_.workers().TryPost([run, settle, forwarder, context, request, response,
                                     peers = std::move(peers),
                                     traceparent = outgoing_traceparent()] {
              DeferredDurability deferred;
              bool declined = false;
              absl::Status status = run(/*runs_inline=*/false, deferred, declined);
              for (const auto& [replica, address] : peers) {
                if (!status.ok()) break;
                pb::ListClustersResponse theirs;
                std::promise<grpc::Status> answered;
                forwarder->Forward(*context, address, "ListClusters", *request, &theirs,
                                   traceparent,
                                   [&answered](const grpc::Status& wire, const std::string&) {
                                     answered.set_value(wire);
                                   });
                const grpc::Status wire = answered.get_future().get();
                if (!wire.ok()) {
                  status = absl::UnavailableError(absl::StrCat("replica ", replica, " at ", address,
                                                               " did not list its clusters (",
                                                               wire.error_message(), "); retry"));
                  break;
                }
                for (pb::Cluster& cluster : *theirs.mutable_clusters()) {
                  *response->add_clusters() = std::move(cluster);
                }
              }
              std::sort(response->mutable_clusters()->begin(), response->mutable_clusters()->end(),
                        [](const pb::Cluster& a, const pb::Cluster& b) {
                          return a.spec().name() < b.spec().name();
                        });
              if (!status.ok()) response->Clear();
              settle(deferred, status);
            })) {
          app_.metrics().CountShed(method);
          finish(app_.Overloaded());
        }
        return reactor;
      }
    }
  }
  if (TriedInline(*request)) {
    DeferredDurability deferred;
    bool declined = false;
    absl::Status status = run(/*runs_inline=*/true, deferred, declined);
    if (!declined) {
      settle(deferred, std::move(status));
      return reactor;
    }
    response->Clear();  // a declined call changed nothing and deferred nothing
  }
  // The request and the response live until Finish.
  if (!app_.workers().TryPost([run, settle] {
        DeferredDurability deferred;
        bool declined = false;  // only an inline call is declined
        settle(deferred, run(/*runs_inline=*/false, deferred, declined));
      })) {
    app_.metrics().CountShed(method);
    finish(app_.Overloaded());
  }
  return reactor;
}

#define RESCHED_DISPATCH(name, request_type, response_type, access)                    \
  grpc::ServerUnaryReactor* ReschedService::name(grpc::CallbackServerContext* context, \
                                                 const pb::request_type* request,      \
                                                 pb::response_type* response) {        \
    return Dispatch(context, #name, request, response, &Application::name);            \
  }
RESCHED_UNARY_METHODS(RESCHED_DISPATCH)
#undef RESCHED_DISPATCH

grpc::ServerWriteReactor<pb::ScheduleEvent>* ReschedService::WatchSchedule(
    grpc::CallbackServerContext* context, const pb::WatchScheduleRequest* request) {
  // The stream's lease is released when gRPC is done with the stream, which is after every write
  // of it has returned its memory.
  auto lease = std::make_shared<std::unique_ptr<WatchOpener::Lease>>();
  auto watch = std::make_shared<ScheduleWatch>(app_.limits().max_watch_backlog, app_.watch_budget(),
                                               [lease] { lease->reset(); });
  const auto& metadata = context->client_metadata();
  auto header = [&metadata](const char* key) -> std::optional<std::string> {
    const auto found = metadata.find(key);
    if (found == metadata.end()) return std::nullopt;
    return std::string(found->second.data(), found->second.size());
  };
  WatchOpener::Caller caller{.authorization = header("authorization"),
                             .peer = CallPeer(*context),
                             .traceparent = header("traceparent").value_or(""),
                             .forwarded_by = header(kForwardedByHeader),
                             .no_forward = metadata.contains(kNoForwardHeader),
                             .served_here = [context](const std::string& replica) {
                               context->AddInitialMetadata(kServedByHeader, replica);
                             }};
  ScheduleWatch* raw = watch.get();
  *lease = watches_.Open(*request, caller, std::move(watch));
  return raw;
}

void ReschedService::BeginShutdown() { watches_.Stop(); }

}  // namespace resched::server
