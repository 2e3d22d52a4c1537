#include "server/rpc/forwarder.h"

#include <grpcpp/generic/generic_stub.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

// A replica that restarts comes back within seconds: its channel should not back off for longer.
constexpr int kMaxReconnectBackoffMs = 1000;

std::string ValueOf(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
                    const char* key) {
  const auto found = metadata.find(key);
  if (found == metadata.end()) return {};
  return std::string(found->second.data(), found->second.size());
}

// What one forwarded call holds until gRPC calls it back.
struct ForwardedCall {
  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
};

}  // namespace

Forwarder::Forwarder(std::string replica_id, std::shared_ptr<grpc::ChannelCredentials> credentials)
    : replica_id_(std::move(replica_id)), credentials_(std::move(credentials)) {}

std::shared_ptr<grpc::Channel> Forwarder::ChannelTo(const std::string& address) {
  MutexLock lock(&mu_);
  std::shared_ptr<grpc::Channel>& channel = channels_[address];
  if (channel == nullptr) {
    grpc::ChannelArguments args;
    // The serving replica bounds what it answers; this one passes it on whatever its size.
    args.SetMaxReceiveMessageSize(-1);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs / 4);
    channel = grpc::CreateCustomChannel(address, credentials_, args);
  }
  return channel;
}

void Forwarder::Forward(const grpc::CallbackServerContext& caller, const std::string& address,
                        const char* method, const google::protobuf::Message& request,
                        google::protobuf::Message* response, const std::string& traceparent,
                        std::function<void(const grpc::Status&, const std::string&)> done) {
  auto call = std::make_shared<ForwardedCall>();
  call->context.set_deadline(caller.deadline());
  call->context.AddMetadata(kForwardedByHeader, replica_id_);
  if (const std::string token = ValueOf(caller.client_metadata(), "authorization");
      !token.empty()) {
    call->context.AddMetadata("authorization", token);
  }
  if (!traceparent.empty()) call->context.AddMetadata("traceparent", traceparent);
  const std::string bytes = request.SerializeAsString();
  grpc::Slice slice(bytes);
  call->request = grpc::ByteBuffer(&slice, 1);
  grpc::GenericStub stub(ChannelTo(address));
  stub.UnaryCall(&call->context, absl::StrCat("/resched.v1.Resched/", method), {}, &call->request,
                 &call->response, [call, response, done = std::move(done)](grpc::Status status) {
                   const std::string served_by =
                       ValueOf(call->context.GetServerInitialMetadata(), kServedByHeader);
                   if (status.ok()) {
                     std::vector<grpc::Slice> slices;
                     std::string bytes;
                     if (call->response.Dump(&slices).ok()) {
                       for (const grpc::Slice& s : slices) {
                         bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
                       }
                     }
                     if (!response->ParseFromString(bytes)) {
                       status = grpc::Status(
                           grpc::StatusCode::INTERNAL,
                           absl::StrCat("the answer of replica ", served_by, " does not parse"));
                     }
                   }
                   done(status, served_by);
                 });
}

}  // namespace resched::server
