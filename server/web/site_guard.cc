#include "server/web/site_guard.h"

#include <arpa/inet.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace resched::server::web {
namespace {

HttpReply Forbidden(const std::string& message) {
  HttpReply reply = ErrorReply(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, message));
  reply.status = 403;
  return reply;
}

// The host of HOST[:PORT] or [V6]:PORT, without brackets and port.
absl::string_view HostName(absl::string_view authority) {
  if (absl::StartsWith(authority, "[")) {
    const std::size_t close = authority.find(']');
    return close == absl::string_view::npos ? authority : authority.substr(1, close - 1);
  }
  const std::size_t colon = authority.find(':');
  return colon == absl::string_view::npos ? authority : authority.substr(0, colon);
}

bool IsIpAddress(absl::string_view host) {
  const std::string text(host);
  unsigned char address[16];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

bool IsOwnName(absl::string_view host, const SiteNames& names) {
  if (IsIpAddress(host)) return true;
  if (absl::EqualsIgnoreCase(host, "localhost") || absl::EndsWithIgnoreCase(host, ".localhost")) {
    return true;
  }
  return std::any_of(
      names.allowed_hosts.begin(), names.allowed_hosts.end(),
      [&](const std::string& allowed) { return absl::EqualsIgnoreCase(host, allowed); });
}

// A quoted header value, cut so that a refusal stays short.
std::string Quoted(absl::string_view value) {
  constexpr std::size_t kShown = 100;
  return absl::StrCat("'", value.substr(0, kShown), value.size() > kShown ? "...'" : "'");
}

}  // namespace

std::optional<HttpReply> RefuseForeignSite(const httplib::Request& request,
                                           const SiteNames& names) {
  if (!request.has_header("Host")) return std::nullopt;
  const std::string host = request.get_header_value("Host");
  if (!IsOwnName(HostName(host), names)) {
    return Forbidden(absl::StrCat(
        "header Host ", Quoted(host),
        " is not a name of this server (an IP address, localhost, or one of "
        "--http-allowed-hosts): a page of another site may have pointed its name here"));
  }
  if (!request.has_header("Origin")) return std::nullopt;
  // "scheme://host[:port]"; a browser sends "null" for pages without a site (a file, a sandbox).
  const std::string origin = request.get_header_value("Origin");
  const std::size_t scheme_end = origin.find("://");
  const absl::string_view authority = scheme_end == std::string::npos
                                          ? absl::string_view()
                                          : absl::string_view(origin).substr(scheme_end + 3);
  if (!absl::EqualsIgnoreCase(authority, host)) {
    return Forbidden(absl::StrCat("header Origin ", Quoted(origin),
                                  " is another site than this server's (Host ", Quoted(host),
                                  "): requests from other sites' pages are refused"));
  }
  return std::nullopt;
}

}  // namespace resched::server::web
