// The web view's JSON API (server/web/http_view.h) speaks to the service as any gRPC client
// does, over the server's in-process channel: every call is authorized, limited, counted and
// audited as the same call over the network would be, and every answer is the API's own message
// in protobuf's JSON mapping, so the JSON matches the gRPC answer field for field.
#pragma once

#include <grpcpp/grpcpp.h>

#include <map>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "server/web/http_reply.h"

namespace resched::server::web {

// The HTTP status for a gRPC status code, as HTTP/JSON gateways map them (NOT_FOUND 404,
// PERMISSION_DENIED 403, UNAUTHENTICATED 401, RESOURCE_EXHAUSTED 429, ...).
int HttpStatusOf(grpc::StatusCode code);

// {"code": "NOT_FOUND", "message": "..."} with the status's HTTP code.
HttpReply ErrorReply(const grpc::Status& status);

// `message` in protobuf's JSON mapping (field names in lowerCamelCase, enums by name,
// timestamps in RFC 3339, 64-bit integers as strings).
HttpReply JsonReply(const google::protobuf::Message& message);

// Sets fields of `request` from URL query parameters. A parameter names a field by its proto
// name or JSON name; its value is read as the JSON mapping reads a string (a timestamp in
// RFC 3339, a duration as "90s", an enum by name), "true"/"false" for a bool; a repeated field
// takes several parameters or comma-separated values. INVALID_ARGUMENT naming the parameter for
// an unknown name or a value the field cannot take; `request` is then unchanged.
absl::Status MergeQuery(const std::multimap<std::string, std::string>& params,
                        google::protobuf::Message* request);

// What the view passes on about its HTTP client with each gRPC call it makes for it.
struct WebCaller {
  std::string authorization;  // the Authorization header's value (or the page's access_token)
  std::string peer;           // its address in gRPC's form (server/rpc/call_peer.h)
};

// `caller`'s bearer token as the call's metadata (the service's token check then decides), and
// its address (for the audit log and the per-address limits, server/rpc/call_peer.h). A value gRPC
// would refuse is not passed on.
void ForwardCaller(const WebCaller& caller, grpc::ClientContext* context);

}  // namespace resched::server::web
