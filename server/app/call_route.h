// Where a call goes when several replicas serve the same clusters (docs/ha.md): to this replica's
// application, on to the replica that serves the call's cluster, or nowhere for now (a takeover
// under way). The transport asks a CallRouter for every call; without one every call is served
// here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace resched::server {

struct CallRoute {
  enum class Kind { kHere, kForward, kRefuse };
  Kind kind = Kind::kHere;
  std::string replica;   // kForward: the replica that serves the call
  std::string address;   // kForward: where it serves (HOST:PORT)
  absl::Status refusal;  // kRefuse: UNAVAILABLE saying why, with a retry delay
};

class CallRouter {
 public:
  virtual ~CallRouter() = default;
  // The route of a call on `cluster` (empty: a call on no one cluster). Called on gRPC's threads:
  // it must not wait on I/O.
  virtual CallRoute Route(absl::string_view cluster) const = 0;
  // This replica, as answers name it to clients.
  virtual const std::string& replica_id() const = 0;
  // The other replicas (id, address) when each serves a part of the clusters, for the calls every
  // replica answers a part of (ListClusters); empty when one replica serves them all.
  virtual std::vector<std::pair<std::string, std::string>> Peers() const { return {}; }
};

}  // namespace resched::server
