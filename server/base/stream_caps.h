// Caps on streams that stay open (WatchSchedule over gRPC, the web view's event streams): a total,
// and a share per client, so that one client cannot hold them all. A client is whatever the
// caller names it by: its tenant, its bearer token, or its address without one.
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "server/base/mutex.h"

namespace resched::server {

class StreamCaps {
 public:
  // `what` names the streams in errors ("WatchSchedule streams"); each hint ends the error of
  // its cap, saying what to do or which setting changes it.
  StreamCaps(std::string what, int total, int per_client, std::string total_hint,
             std::string per_client_hint);

  // Counts one more stream of `client`, or RESOURCE_EXHAUSTED naming the cap it would pass (and
  // never the client, which may be a token).
  absl::Status Acquire(const std::string& client) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends one stream Acquire counted.
  void Release(const std::string& client) ABSL_LOCKS_EXCLUDED(mu_);

  int open() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::string what_;
  const int total_;
  const int per_client_;
  const std::string total_hint_;
  const std::string per_client_hint_;
  mutable Mutex mu_;
  int open_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> per_client_open_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server
