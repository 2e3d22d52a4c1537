// resched-server's web view (--http-listen): a single page (server/web/assets, compiled into
// the binary) and the read-only JSON API it draws from, served by cpp-httplib on its own
// threads. The API is a client of the service over the gRPC server's in-process channel
// (server/web/json_gateway.h); the page's live updates are WatchSchedule's events as
// Server-Sent Events, from streams the service opens in process (server/web/event_stream.h). The
// Prometheus metrics are served at /metrics on the same port.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "server/rpc/watch_opener.h"
#include "server/web/guarded_server.h"
#include "server/web/site_guard.h"

namespace resched::server::web {

class HttpView {
 public:
  struct Options {
    std::string address;  // HOST:PORT; port 0 picks a free one (see port())
    std::shared_ptr<grpc::Channel> channel;
    // The service's WatchSchedule streams (ReschedService::watches), for the pages' live updates;
    // it outlives the view.
    WatchOpener* watches = nullptr;
    std::vector<std::shared_ptr<prometheus::Collectable>> metrics;
    size_t max_body_bytes = 16 << 20;  // a what-if's DAG file at most (the server's gRPC limit)
    // How long an event stream stays silent at most: then it sends a comment line, so that a
    // page that went away frees its stream on a quiet cluster too.
    std::chrono::milliseconds event_heartbeat{15'000};
    // Threads, waiting connections, connections per peer, and the deadline and size of a
    // request's head (server/web/guarded_server.h).
    ConnectionLimits connections;
    // The names it answers to besides IP addresses and localhost (server/web/site_guard.h).
    SiteNames site;
  };

  // Listens on options.address and serves until destroyed. UNAVAILABLE naming the address when
  // it cannot listen, INVALID_ARGUMENT when it is not HOST:PORT.
  static absl::StatusOr<std::unique_ptr<HttpView>> Start(Options options);
  // Ends every open event stream, then stops listening and waits for the handlers.
  ~HttpView();
  HttpView(const HttpView&) = delete;
  HttpView& operator=(const HttpView&) = delete;

  int port() const;
  // What the connections have met so far: served, refused, heads refused.
  ConnectionCounts connection_counts() const;

  class Impl;

 private:
  explicit HttpView(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace resched::server::web
