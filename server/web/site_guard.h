// DNS rebinding and cross-site requests: a page of another site can make a browser send
// requests to the web view at 127.0.0.1 (its name resolved to this address, or a form posted
// across sites), and without tokens the view would answer it. A browser always says which site
// it means (Host) and, on a cross-site request, which site sent it (Origin); the view answers
// only its own names and same-site requests.
#pragma once

#include <httplib.h>

#include <optional>
#include <string>
#include <vector>

#include "server/web/json_gateway.h"

namespace resched::server::web {

// The names the view answers to besides IP addresses and localhost (--http-allowed-hosts:
// the name of a proxy in front of it), compared without case.
struct SiteNames {
  std::vector<std::string> allowed_hosts;
};

// 403 naming the header when the request's Host names neither an IP address, localhost (or a
// name under .localhost) nor an allowed host; or when it carries an Origin whose host and port
// are not its Host's. nullopt otherwise, and for a request without Host (not a browser's).
std::optional<HttpReply> RefuseForeignSite(const httplib::Request& request, const SiteNames& names);

}  // namespace resched::server::web
