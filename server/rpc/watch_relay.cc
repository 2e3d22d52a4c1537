#include "server/rpc/watch_relay.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "resched/v1/service.grpc.pb.h"
#include "server/app/shared_event.h"

namespace resched::server {
namespace {

// How long the relay waits before it looks again for the cluster's replica: a takeover takes
// about a lease's TTL.
constexpr std::chrono::milliseconds kFirstRetry{100};
constexpr std::chrono::milliseconds kLastRetry{1000};

absl::Status FromGrpc(const grpc::Status& status) {
  return {static_cast<absl::StatusCode>(status.error_code()), status.error_message()};
}

}  // namespace

void WatchRelay::Handle::Cancel() {
  MutexLock lock(&mu_);
  cancelled_ = true;
  if (upstream_ != nullptr) upstream_->TryCancel();
  woken_.notify_all();
}

WatchRelay::WatchRelay(Application& app, const CallRouter& router, Forwarder& forwarder)
    : app_(app), router_(router), forwarder_(forwarder) {}

WatchRelay::~WatchRelay() { Stop(); }

std::shared_ptr<WatchRelay::Handle> WatchRelay::Relay(pb::WatchScheduleRequest request,
                                                      Caller caller,
                                                      std::shared_ptr<ScheduleSink> sink) {
  auto handle = std::make_shared<Handle>();
  std::list<std::pair<std::shared_ptr<Handle>, std::thread>> finished;
  {
    MutexLock lock(&mu_);
    if (stopping_) {
      sink->End(absl::UnavailableError("the server is shutting down; watch again"));
      return handle;
    }
    for (auto it = relays_.begin(); it != relays_.end();) {
      auto next = std::next(it);
      if (it->first->done_) finished.splice(finished.end(), relays_, it);
      it = next;
    }
    relays_.emplace_back(
        handle, std::thread([this, handle, request = std::move(request), caller = std::move(caller),
                             sink = std::move(sink)]() mutable {
          Run(*handle, std::move(request), caller, sink);
          handle->done_ = true;
        }));
  }
  for (auto& [done, thread] : finished) thread.join();
  return handle;
}

void WatchRelay::Stop() {
  std::list<std::pair<std::shared_ptr<Handle>, std::thread>> relays;
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    relays.swap(relays_);
  }
  for (auto& [handle, thread] : relays) handle->Cancel();
  for (auto& [handle, thread] : relays) thread.join();
}

void WatchRelay::Run(Handle& handle, pb::WatchScheduleRequest request, const Caller& caller,
                     const std::shared_ptr<ScheduleSink>& sink) {
  const absl::Status stopping = absl::UnavailableError(
      "the server is shutting down: watch again after the last sequence you saw");
  std::chrono::milliseconds retry = kFirstRetry;
  while (true) {
    {
      MutexLock lock(&handle.mu_);
      if (handle.cancelled_) {
        sink->End(stopping);
        return;
      }
    }
    if (sink->Closed()) return;
    const CallRoute route = router_.Route(request.cluster());
    if (route.kind == CallRoute::Kind::kHere) {
      // The cluster came here: the application feeds the stream from now on.
      std::optional<pb::ScheduleEvent> first = app_.Watch(request, sink, caller.principal);
      if (first) sink->Push(ShareEvent(*std::move(first)));
      return;
    }
    if (route.kind == CallRoute::Kind::kForward) {
      bool relayed = false;
      const grpc::Status ended =
          ReadUpstream(handle, route.address, request, caller, *sink, relayed);
      if (relayed) retry = kFirstRetry;
      {
        MutexLock lock(&handle.mu_);
        if (handle.cancelled_) {
          sink->End(stopping);  // nothing more to a caller that went away
          return;
        }
      }
      // UNAVAILABLE: that replica went, stopped serving the cluster, or refused to relay it on;
      // anything else is the stream's own end (the cluster deleted, a reader too slow).
      if (ended.error_code() != grpc::StatusCode::UNAVAILABLE) {
        sink->End(FromGrpc(ended));
        return;
      }
    }
    MutexLock lock(&handle.mu_);
    if (!handle.cancelled_) handle.mu_.WaitFor(handle.woken_, retry);
    retry = std::min(retry * 2, kLastRetry);
  }
}

grpc::Status WatchRelay::ReadUpstream(Handle& handle, const std::string& address,
                                      pb::WatchScheduleRequest& request, const Caller& caller,
                                      ScheduleSink& sink, bool& relayed) {
  grpc::ClientContext context;
  context.AddMetadata(kForwardedByHeader, forwarder_.replica_id());
  if (!caller.authorization.empty()) context.AddMetadata("authorization", caller.authorization);
  if (!caller.traceparent.empty()) context.AddMetadata("traceparent", caller.traceparent);
  {
    MutexLock lock(&handle.mu_);
    if (handle.cancelled_) return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
    handle.upstream_ = &context;
  }
  pb::Resched::Stub stub(forwarder_.ChannelTo(address));
  std::unique_ptr<grpc::ClientReader<pb::ScheduleEvent>> reader =
      stub.WatchSchedule(&context, request);
  pb::ScheduleEvent event;
  while (reader->Read(&event)) {
    relayed = true;
    request.set_after_sequence(event.sequence());
    sink.Push(ShareEvent(event));
    if (sink.Closed()) context.TryCancel();
  }
  grpc::Status status = reader->Finish();
  MutexLock lock(&handle.mu_);
  handle.upstream_ = nullptr;
  return status;
}

}  // namespace resched::server
