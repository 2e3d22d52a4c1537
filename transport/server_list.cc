#include "transport/server_list.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace resched::transport {
namespace {

struct HostPort {
  std::string host;
  std::string port;
};

absl::StatusOr<HostPort> SplitHostPort(absl::string_view entry, const std::string& flag) {
  const std::size_t colon = entry.rfind(':');
  HostPort out;
  int port = 0;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(entry.substr(colon + 1), &port) ||
      port <= 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", entry, "' is not HOST:PORT (a port from 1 to 65535)"));
  }
  absl::string_view host = entry.substr(0, colon);
  if (absl::ConsumePrefix(&host, "[")) absl::ConsumeSuffix(&host, "]");  // [v6]:PORT
  out.host = std::string(host);
  out.port = std::string(entry.substr(colon + 1));
  return out;
}

// The host's addresses, as gRPC's ipv4: and ipv6: targets write them.
absl::Status Resolve(const HostPort& server, const std::string& flag,
                     std::vector<std::string>& ipv4, std::vector<std::string>& ipv6) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int error = getaddrinfo(server.host.c_str(), server.port.c_str(), &hints, &found);
      error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot resolve '", server.host, "': ", gai_strerror(error)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  for (const addrinfo* address = found; address != nullptr; address = address->ai_next) {
    char text[NI_MAXHOST] = {};
    if (getnameinfo(address->ai_addr, address->ai_addrlen, text, sizeof text, nullptr, 0,
                    NI_NUMERICHOST) != 0) {
      continue;
    }
    if (address->ai_family == AF_INET) {
      ipv4.push_back(absl::StrCat(text, ":", server.port));
    } else if (address->ai_family == AF_INET6) {
      ipv6.push_back(absl::StrCat("[", text, "]:", server.port));
    }
  }
  return absl::OkStatus();
}

void AddUnique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const std::string& address : from) {
    if (std::find(to.begin(), to.end(), address) == to.end()) to.push_back(address);
  }
}

}  // namespace

bool NamesSeveralServers(absl::string_view servers) {
  return servers.find(',') != absl::string_view::npos;
}

void ConfigureChannel(const ChannelTarget& target, grpc::ChannelArguments& arguments) {
  if (!target.several) return;
  arguments.SetString(GRPC_ARG_DEFAULT_AUTHORITY, target.authority);
  // gRPC's service config: every method of the channel waits for a ready connection.
  arguments.SetServiceConfigJSON(R"({"methodConfig": [{"name": [{}], "waitForReady": true}]})");
}

absl::StatusOr<ChannelTarget> ResolveServers(const std::string& servers, const std::string& flag) {
  if (!NamesSeveralServers(servers)) {
    return ChannelTarget{.target = servers, .authority = {}, .several = false};
  }
  const std::vector<absl::string_view> entries = absl::StrSplit(servers, ',');
  ChannelTarget out;
  out.several = true;
  std::vector<std::string> ipv4;
  std::vector<std::string> ipv6;
  std::string only_ipv6;  // a server without an IPv4 address
  for (absl::string_view entry : entries) {
    entry = absl::StripAsciiWhitespace(entry);
    if (entry.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": an empty server in '", servers, "'"));
    }
    absl::StatusOr<HostPort> server = SplitHostPort(entry, flag);
    if (!server.ok()) return server.status();
    if (out.authority.empty()) out.authority = std::string(entry);
    std::vector<std::string> its_ipv4;
    std::vector<std::string> its_ipv6;
    if (absl::Status resolved = Resolve(*server, flag, its_ipv4, its_ipv6); !resolved.ok()) {
      return resolved;
    }
    AddUnique(ipv4, its_ipv4);
    AddUnique(ipv6, its_ipv6);
    if (its_ipv4.empty() && only_ipv6.empty()) only_ipv6 = std::string(entry);
  }
  // gRPC's address targets hold one family: IPv4 when every server has an IPv4 address.
  if (!ipv4.empty() && !only_ipv6.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, ": '", only_ipv6, "' has only IPv6 addresses and others IPv4 ones; give one family"));
  }
  out.target = !ipv4.empty() ? absl::StrCat("ipv4:", absl::StrJoin(ipv4, ","))
                             : absl::StrCat("ipv6:", absl::StrJoin(ipv6, ","));
  return out;
}

}  // namespace resched::transport
