// The resched v1 gRPC service: an adapter from gRPC's callback API to the application
// (server/app/application.h). Each unary call passes the application's gate, runs on a worker
// thread (or inline on gRPC's thread when it cannot wait, server/app/call_context.h) with a
// CallContext made from the gRPC call, is finished once its journal records are durable, and
// has its absl::Status converted once (server/rpc/to_grpc.h). A WatchSchedule stream holds no
// thread while it waits for events. With a router (replicas sharing a journal, docs/ha.md), a call
// whose cluster another replica serves is forwarded there once it has passed the gate, and a
// stream is relayed from there (server/rpc/watch_relay.h).
#pragma once

#include <memory>
#include <string>

#include "resched/v1/service.grpc.pb.h"
#include "server/app/application.h"
#include "server/app/call_route.h"
#include "server/auth/method_table.h"
#include "server/rpc/forwarder.h"
#include "server/rpc/watch_opener.h"

namespace resched::server {

class ReschedService final : public pb::Resched::CallbackService {
 public:
  // `app` outlives the service (and the gRPC server it is registered with), and so do `router`
  // and `forwarder` when given (null: every call is served here).
  explicit ReschedService(Application& app, const CallRouter* router = nullptr,
                          Forwarder* forwarder = nullptr);

  // One override per unary method (server/auth/method_table.h), each dispatching to the
  // application's call of the same name.
#define RESCHED_GRPC_OVERRIDE(name, request_type, response_type, access)                       \
  grpc::ServerUnaryReactor* name(grpc::CallbackServerContext* context,                         \
                                 const pb::request_type* request, pb::response_type* response) \
      override;
  RESCHED_UNARY_METHODS(RESCHED_GRPC_OVERRIDE)
#undef RESCHED_GRPC_OVERRIDE
  grpc::ServerWriteReactor<pb::ScheduleEvent>* WatchSchedule(
      grpc::CallbackServerContext*, const pb::WatchScheduleRequest*) override;

  // Opens the WatchSchedule streams of gRPC's callers and of the web view's pages.
  WatchOpener& watches() { return watches_; }

  // Ends the streams relayed from other replicas (before the transport shuts down, which waits
  // for every stream), with UNAVAILABLE: their callers watch again after their last sequence.
  void BeginShutdown();

 private:
  // Runs the application's `handler` for the call and finishes it with its status.
  template <class Request, class Response>
  grpc::ServerUnaryReactor* Dispatch(grpc::CallbackServerContext* context, const char* method,
                                     const Request* request, Response* response,
                                     absl::Status (Application::*handler)(CallContext&,
                                                                          const Request&,
                                                                          Response*));

  Application& app_;
  const CallRouter* const router_;
  Forwarder* const forwarder_;
  WatchOpener watches_;
};

}  // namespace resched::server
