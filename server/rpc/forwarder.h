// Sends a unary call this replica received on to the replica that serves its cluster
// (server/app/call_route.h), as the caller made it: the caller's bearer token, deadline and trace
// context go along, and the serving replica's status comes back whole (its details too), so that
// the caller cannot tell a forwarded answer from a direct one. The serving replica authenticates
// and audits the call itself.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "google/protobuf/message.h"
#include "server/base/mutex.h"

namespace resched::server {

// Request metadata naming the replica that forwarded a call: a replica that would forward it
// again refuses instead, so that two replicas with different views never bounce a call.
inline constexpr char kForwardedByHeader[] = "resched-forwarded-by";
// Request metadata by which a caller asks not to be forwarded: a call on a cluster another
// replica serves is then answered UNAVAILABLE with that replica and its address (an ErrorInfo
// of reason CLUSTER_ELSEWHERE), for clients that keep a connection to each replica.
inline constexpr char kNoForwardHeader[] = "resched-no-forward";
// Response metadata naming the replica that served a call.
inline constexpr char kServedByHeader[] = "resched-replica";

class Forwarder {
 public:
  // `credentials`: how this replica reaches the others (TLS when they listen with TLS).
  Forwarder(std::string replica_id, std::shared_ptr<grpc::ChannelCredentials> credentials);
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

  // Calls `method` of the v1 service at `address` with `request`, the caller's authorization
  // and deadline from `caller`, and `traceparent` (empty: none); then `done` with the serving
  // replica's status, `response` filled when it is OK, and the replica its answer names. `done`
  // runs on a gRPC thread.
  void Forward(const grpc::CallbackServerContext& caller, const std::string& address,
               const char* method, const google::protobuf::Message& request,
               google::protobuf::Message* response, const std::string& traceparent,
               std::function<void(const grpc::Status& status, const std::string& served_by)> done);

  // One channel per address, kept: replicas are few.
  std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address);
  const std::string& replica_id() const { return replica_id_; }

 private:
  const std::string replica_id_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  Mutex mu_;
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
};

}  // namespace resched::server
