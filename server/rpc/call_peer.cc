#include "server/rpc/call_peer.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <cstdlib>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace resched::server {
namespace {

// The value of metadata `key`, or nullopt.
std::optional<absl::string_view> MetadataOf(const grpc::ServerContextBase& context,
                                            absl::string_view key) {
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find(grpc::string_ref(key.data(), key.size()));
  if (found == metadata.end()) return std::nullopt;
  return absl::string_view(found->second.data(), found->second.size());
}

}  // namespace

const std::string& WebPeerKey() {
  static const std::string* const key = [] {
    std::array<unsigned char, 16> bytes{};
    // Without randomness no key could be trusted: nothing would ever believe a forwarded peer.
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) std::abort();
    return new std::string(absl::BytesToHexString(
        absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
  }();
  return *key;
}

std::string CallPeer(const grpc::ServerContextBase& context) {
  const std::optional<absl::string_view> peer = MetadataOf(context, kWebPeerMetadata);
  const std::optional<absl::string_view> key = MetadataOf(context, kWebPeerKeyMetadata);
  const std::string& expected = WebPeerKey();
  if (!peer || !key || key->size() != expected.size() ||
      CRYPTO_memcmp(key->data(), expected.data(), expected.size()) != 0) {
    return context.peer();
  }
  return WebCallPeer(std::string(*peer));
}

std::string WebCallPeer(const std::string& address) { return absl::StrCat("web ", address); }

std::string PeerOfAddress(const std::string& address, int port) {
  return address.find(':') == std::string::npos ? absl::StrCat("ipv4:", address, ":", port)
                                                : absl::StrCat("ipv6:[", address, "]:", port);
}

}  // namespace resched::server
