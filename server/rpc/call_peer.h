// Who a call comes from, as the audit log and the per-address limits name it. A call of the web
// view reaches the service over the in-process channel, whose peer is the same for every web
// client; the view forwards its HTTP client's address in the metadata kWebPeerMetadata, with a
// key made at random when the process starts (kWebPeerKeyMetadata). The service believes the
// address only beside that key, which never leaves the process, so a client of the gRPC port
// cannot pass for another address by sending the same metadata.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

namespace resched::server {

inline constexpr char kWebPeerMetadata[] = "resched-web-peer";
inline constexpr char kWebPeerKeyMetadata[] = "resched-web-peer-key";

// The key, 32 hex digits, the same for every caller in this process.
const std::string& WebPeerKey();

// gRPC's peer ("ipv4:10.0.0.7:51234"), or for a call carrying kWebPeerMetadata with the key,
// "web " followed by that address ("web ipv4:127.0.0.1:40110").
std::string CallPeer(const grpc::ServerContextBase& context);

// The peer of a web view's call made for the HTTP client at `address` (PeerOfAddress's form), as
// CallPeer names it: "web " followed by the address.
std::string WebCallPeer(const std::string& address);

// An HTTP client's address in gRPC's form: "ipv4:ADDRESS:PORT" or "ipv6:[ADDRESS]:PORT".
std::string PeerOfAddress(const std::string& address, int port);

}  // namespace resched::server
