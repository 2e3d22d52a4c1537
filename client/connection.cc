#include "client/connection.h"

#include <grpcpp/support/channel_arguments.h>

#include "transport/bearer_token.h"

namespace resched::cli {

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(const Connection& connection) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      transport::MakeChannelCredentials(connection.tls);
  if (!credentials.ok()) return credentials.status();
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(1 << 30);
  return transport::CreateChannelWithToken(connection.server, *credentials, arguments,
                                           connection.token);
}

}  // namespace resched::cli
