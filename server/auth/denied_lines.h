// How many lines the calls refused at the gate (a missing or unknown token, a method or cluster
// not granted, a rate limit, a field over its bound) may write to the audit log and the server's
// log, per peer address: a token bucket of kDeniedLineBurst lines, refilled at
// kDeniedLinesPerSecond. A refused call past it writes no line; the next line written for that
// peer counts the ones left out. A stranger sending refused calls as fast as it can thus adds at
// most a few kilobytes a second to each log, whatever it sends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "server/base/mutex.h"

namespace resched::server::auth {

inline constexpr double kDeniedLinesPerSecond = 10;
inline constexpr double kDeniedLineBurst = 100;
// Peers tracked at most; past it, the peers whose buckets are full again are forgotten, and if
// none is, the new peer shares one bucket with every other untracked peer.
inline constexpr std::size_t kMaxDeniedPeers = 10'000;

class DeniedLineLimiter {
 public:
  // Whether a refused call from `peer` (gRPC's "ipv4:ADDRESS:PORT"; the port is ignored) may
  // write its lines at `now`. When it may, `suppressed` is the number of lines left out for
  // this peer since its last one.
  bool Admit(absl::string_view peer, absl::Time now, std::int64_t* suppressed)
      ABSL_LOCKS_EXCLUDED(mu_);

  // The peer's address without its port: "ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1".
  static absl::string_view AddressOf(absl::string_view peer);

 private:
  struct Bucket {
    double lines = kDeniedLineBurst;
    absl::Time refilled;
    std::int64_t suppressed = 0;
  };
  void ForgetFullBucketsLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Mutex mu_;
  std::map<std::string, Bucket, std::less<>> buckets_ ABSL_GUARDED_BY(mu_);
  absl::Time last_sweep_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();  // at most one a second
};

}  // namespace resched::server::auth
