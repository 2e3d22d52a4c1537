#include "transport/listen_address.h"

#include <arpa/inet.h>

#include <string>

#include "absl/strings/match.h"

namespace resched::transport {

bool IsLoopbackOnly(std::string_view address) {
  if (address.starts_with("unix:") || address.starts_with("unix-abstract:")) {
    return true;
  }
  std::string_view host;
  if (address.starts_with("[")) {
    const std::size_t close = address.find(']');
    if (close == std::string_view::npos) return false;
    host = address.substr(1, close - 1);
  } else {
    const std::size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = address.substr(0, colon);
  }
  if (absl::EqualsIgnoreCase(absl::string_view(host.data(), host.size()), "localhost")) return true;
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;  // 127.0.0.0/8
  }
  in6_addr v6{};
  return inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

}  // namespace resched::transport
