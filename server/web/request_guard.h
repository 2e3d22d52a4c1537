// The checks every HTTP request to the web view passes before any route sees it. What a client
// sends must not reach an API that asserts on it (gRPC aborts the process on an illegal metadata
// value), nor make the server do work out of proportion to the request (thousands of byte
// ranges over one page). A refused request is answered at once, naming the field and the limit.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <optional>

#include "absl/strings/string_view.h"
#include "server/web/json_gateway.h"

namespace resched::server::web {

// Byte ranges in one Range header at most; over it, or ranges that overlap, or an open-ended or
// suffix range among several: 416. cpp-httplib would answer each range in full, so 2,700
// copies of "0-" made a 76 MB answer of one 28 KB page.
inline constexpr std::size_t kMaxByteRanges = 8;

// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF) without control characters (C0, DEL); the path, query and token are text.
bool IsPrintableUtf8(absl::string_view text);

// The answer to a request that must not be served, or nullopt when it may go to its route (the
// head's size and shape are GuardedServer's, server/web/guarded_server.h): an Authorization
// header, or an access_token parameter, that could not be sent as gRPC metadata (400); a path,
// parameter name or value that is not printable UTF-8 (400); a POST without a Content-Length or a
// chunked body (411); byte ranges that are too many or overlap (416).
std::optional<HttpReply> RefuseRequest(const httplib::Request& request);

}  // namespace resched::server::web
