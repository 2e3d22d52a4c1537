#include "client/connection.h"

#include <grpcpp/support/channel_arguments.h>

#include "transport/bearer_token.h"
#include "transport/server_list.h"

namespace resched::cli {

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(const Connection& connection) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      transport::MakeChannelCredentials(connection.tls);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<transport::ChannelTarget> target =
      transport::ResolveServers(connection.server, "--server");
  if (!target.ok()) return target.status();
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(1 << 30);
  transport::ConfigureChannel(*target, arguments);
  return transport::CreateChannelWithToken(target->target, *credentials, arguments,
                                           connection.token);
}

}  // namespace resched::cli
