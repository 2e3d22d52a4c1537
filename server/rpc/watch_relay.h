// Relays a WatchSchedule stream on a cluster another replica serves (docs/ha.md): reads that
// replica's stream on a thread of its own and pushes its events into the caller's. When that
// replica goes (killed, the cluster handed over, partitioned away), the relay watches again
// wherever the cluster is served next, this replica included, after the last event it relayed
// (WatchScheduleRequest.after_sequence): the caller sees one stream with no gap and no duplicate.
#pragma once

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <list>
#include <memory>
#include <string>
#include <thread>

#include "resched/v1/service.pb.h"
#include "server/app/application.h"
#include "server/app/call_route.h"
#include "server/base/mutex.h"
#include "server/rpc/forwarder.h"

namespace resched::server {

class WatchRelay {
 public:
  // What the caller sends on to the serving replica, and who it is here.
  struct Caller {
    std::string authorization;                         // its bearer token; empty without tokens
    std::string traceparent;                           // empty: none
    std::shared_ptr<const auth::Principal> principal;  // for when the cluster comes here
  };

  // One relayed stream, for its caller's end.
  class Handle {
   public:
    // The caller went away: the relay stops at once.
    void Cancel();

   private:
    friend class WatchRelay;
    Mutex mu_;
    std::condition_variable woken_;  // cancelled
    bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
    grpc::ClientContext* upstream_ ABSL_GUARDED_BY(mu_) = nullptr;
    std::atomic<bool> done_{false};
  };

  // `app`, `router` and `forwarder` outlive the relay.
  WatchRelay(Application& app, const CallRouter& router, Forwarder& forwarder);
  WatchRelay(const WatchRelay&) = delete;
  WatchRelay& operator=(const WatchRelay&) = delete;
  ~WatchRelay();

  // Relays the stream of `request` into `sink` until it ends, the caller cancels, or Stop.
  std::shared_ptr<Handle> Relay(pb::WatchScheduleRequest request, Caller caller,
                                std::shared_ptr<ScheduleSink> sink);
  // Ends every relayed stream with UNAVAILABLE (the server is stopping) and waits for the relays.
  void Stop();

 private:
  // The relay's loop, on its own thread.
  void Run(Handle& handle, pb::WatchScheduleRequest request, const Caller& caller,
           const std::shared_ptr<ScheduleSink>& sink);
  // Reads one upstream stream at `address` into `sink`, moving `request`'s after_sequence past
  // every event relayed. Returns how the stream ended; `relayed` says whether any event came.
  grpc::Status ReadUpstream(Handle& handle, const std::string& address,
                            pb::WatchScheduleRequest& request, const Caller& caller,
                            ScheduleSink& sink, bool& relayed);

  Application& app_;
  const CallRouter& router_;
  Forwarder& forwarder_;
  Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::list<std::pair<std::shared_ptr<Handle>, std::thread>> relays_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server
