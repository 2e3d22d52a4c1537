#include "server/rpc/watch_opener.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/auth/denied_lines.h"
#include "server/base/status_details.h"

namespace resched::server {

WatchOpener::Lease::~Lease() {
  if (relay_ != nullptr) relay_->Cancel();
  if (client_) opener_.caps_.Release(*client_);
  opener_.app_.metrics().WatchEnded();
}

WatchOpener::WatchOpener(Application& app, const CallRouter* router, Forwarder* forwarder)
    : app_(app),
      router_(router),
      caps_("WatchSchedule streams", app.limits().max_watch_streams,
            app.limits().max_watch_streams_per_client,
            "retry later (max_watch_streams in the configuration)",
            "close one first (max_watch_streams_per_client in the configuration)") {
  if (router_ != nullptr && forwarder != nullptr) {
    relay_ = std::make_unique<WatchRelay>(app_, *router_, *forwarder);
  }
}

std::unique_ptr<WatchOpener::Lease> WatchOpener::Open(const pb::WatchScheduleRequest& request,
                                                      const Caller& caller,
                                                      const std::shared_ptr<Stream>& stream) {
  app_.metrics().WatchStarted();
  std::unique_ptr<Lease> lease(new Lease(*this));
  const auto refuse = [&](const absl::Status& status) {
    stream->End(status);
    stream->Start(std::nullopt);
    return std::move(lease);
  };
  const Admission admission =
      app_.Admit(IncomingCall{.method = "WatchSchedule",
                              .cluster = request.cluster(),
                              .cluster_field = "cluster",
                              .request_id = {},
                              .authorization = [&caller]() -> std::optional<absl::string_view> {
                                return caller.authorization;
                              },
                              .peer = [&caller] { return caller.peer; },
                              .trace_id = "",
                              .request = &request});
  if (!admission.status.ok()) return refuse(admission.status);
  bool relay = false;
  if (router_ != nullptr) {
    CallRoute route = router_->Route(request.cluster());
    if (route.kind == CallRoute::Kind::kRefuse) return refuse(route.refusal);
    if (route.kind == CallRoute::Kind::kForward) {
      if (caller.forwarded_by) {
        return refuse(absl::UnavailableError(absl::StrCat(
            "replica ", *caller.forwarded_by, " relays this stream from replica ",
            router_->replica_id(), ", which sends it to ", route.replica,
            ": the replicas disagree on who serves it (a takeover under way); retry")));
      }
      if (caller.no_forward || relay_ == nullptr) {
        return refuse(WithErrorInfo(
            WithRetryDelay(absl::UnavailableError(absl::StrCat(
                               "cluster '", request.cluster(), "' is served by replica ",
                               route.replica, " at ", route.address, "; watch it there")),
                           absl::ZeroDuration()),
            "CLUSTER_ELSEWHERE", {{"replica", route.replica}, {"address", route.address}}));
      }
      relay = true;
    } else if (caller.served_here) {
      caller.served_here(router_->replica_id());
    }
  }
  std::shared_ptr<const auth::Principal> principal = admission.principal;
  std::string client =
      principal != nullptr
          ? absl::StrCat("tenant ", principal->tenant)
          : absl::StrCat("address ", auth::DeniedLineLimiter::AddressOf(caller.peer));
  if (absl::Status admitted = caps_.Acquire(client); !admitted.ok()) return refuse(admitted);
  lease->client_ = std::move(client);
  if (relay) {
    lease->relay_ = relay_->Relay(request,
                                  WatchRelay::Caller{std::string(caller.authorization.value_or("")),
                                                     caller.traceparent, principal},
                                  stream);
    stream->Start(std::nullopt);
    return lease;
  }
  Application* app = &app_;
  if (!app_.workers().TryPost([app, request, stream, principal]() mutable {
        std::optional<pb::ScheduleEvent> first = app->Watch(request, stream, principal);
        stream->Start(std::move(first));
      })) {
    return refuse(app_.Overloaded());
  }
  return lease;
}

void WatchOpener::Stop() {
  if (relay_ != nullptr) relay_->Stop();
}

}  // namespace resched::server
