// Opens WatchSchedule streams, for the gRPC service and for the web view's pages alike: a stream
// passes the application's gate (its caller's token, access and rate limit, its audit line),
// holds one of the streams its client may have open (max_watch_streams, per client and in all),
// and is fed by its cluster here, by a relay from the replica that serves the cluster
// (server/rpc/watch_relay.h), or ended at once with why it is refused.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "server/app/application.h"
#include "server/app/call_route.h"
#include "server/base/stream_caps.h"
#include "server/rpc/forwarder.h"
#include "server/rpc/watch_relay.h"

namespace resched::server {

class WatchOpener {
 public:
  // A stream the opener feeds: its cluster pushes events into it (ScheduleSink).
  class Stream : public ScheduleSink {
   public:
    // Called once, after the stream is subscribed, relayed or ended (End, with why it was
    // refused): `first` is its first event (the schedule as it is) when its cluster is here and
    // it watches from the start; events pushed before Start come after it.
    virtual void Start(std::optional<pb::ScheduleEvent> first) = 0;
  };

  // Who opens a stream.
  struct Caller {
    std::optional<std::string> authorization;  // its "authorization" value; nullopt: none sent
    std::string peer;                          // as the audit log names it (server/rpc/call_peer.h)
    std::string traceparent;  // passed on to a replica a stream is relayed from; empty: none
    // The replica that relays this stream to us, when one does (kForwardedByHeader): a cluster we
    // would relay in turn is refused, since the replicas disagree on who serves it.
    std::optional<std::string> forwarded_by;
    bool no_forward = false;  // the caller asks not to be relayed (kNoForwardHeader)
    // Told this replica's id, before anything is written, when the cluster is served here.
    std::function<void(const std::string& replica)> served_here;
  };

  // What a stream holds while it is open (its share of the caps, its relay); releasing it frees
  // them. Kept by the stream's owner until the stream is done.
  class Lease {
   public:
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

   private:
    friend class WatchOpener;
    explicit Lease(WatchOpener& opener) : opener_(opener) {}
    WatchOpener& opener_;
    std::optional<std::string> client_;  // its share of the caps, once admitted
    std::shared_ptr<WatchRelay::Handle> relay_;
  };

  // `app` outlives the opener, and so do `router` and `forwarder` when given (null: every
  // stream is fed here).
  WatchOpener(Application& app, const CallRouter* router, Forwarder* forwarder);

  // Opens `stream` on `request`'s cluster for `caller`: Start is called on the stream now or
  // later, from another thread. The lease is to be kept until the stream is done with.
  std::unique_ptr<Lease> Open(const pb::WatchScheduleRequest& request, const Caller& caller,
                              const std::shared_ptr<Stream>& stream);

  // Ends the relayed streams with UNAVAILABLE (the server is stopping).
  void Stop();

  // How far a stream's reader may fall behind (server/app/watch_backlog.h).
  std::size_t max_backlog() const { return app_.limits().max_watch_backlog; }
  WatchBudget& budget() { return app_.watch_budget(); }

 private:
  Application& app_;
  const CallRouter* const router_;
  // Open streams, in total and per client.
  StreamCaps caps_;
  // Streams on clusters other replicas serve; null without a router and a forwarder.
  std::unique_ptr<WatchRelay> relay_;
};

}  // namespace resched::server
