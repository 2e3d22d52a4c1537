// Where a client's channel goes when it is given several servers: the replicas that share a
// journal in etcd (docs/ha.md), of which one serves at a time. The channel holds every address
// and connects to whichever accepts (gRPC's pick_first policy: a standby does not listen), and
// moves to another when that one goes.
#pragma once

#include <grpcpp/support/channel_arguments.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace resched::transport {

struct ChannelTarget {
  std::string target;  // for grpc::CreateChannel
  // Several servers: the first one's HOST:PORT, the name TLS checks the certificate against and
  // the calls' :authority (the channel's own target names addresses, not a host).
  std::string authority;
  bool several = false;
};

// `servers`: HOST:PORT, or HOST:PORT,HOST:PORT,... (each host resolved now to its addresses),
// or a gRPC target such as dns:///NAME:PORT (a name with several records reaches each, as
// gRPC resolves it). INVALID_ARGUMENT naming `flag` for an empty entry, an entry without a
// port, a name that does not resolve, or a list mixing IPv4-only and IPv6-only servers.
absl::StatusOr<ChannelTarget> ResolveServers(const std::string& servers, const std::string& flag);

// True for a list of servers (HOST:PORT,HOST:PORT...).
bool NamesSeveralServers(absl::string_view servers);

// What `target` asks of its channel: with several servers, the first one's name as the
// authority, and every call waiting, up to its deadline, for a server that accepts (gRPC's
// waitForReady: none does while one takes over from another) rather than failing at once.
void ConfigureChannel(const ChannelTarget& target, grpc::ChannelArguments& arguments);

}  // namespace resched::transport
