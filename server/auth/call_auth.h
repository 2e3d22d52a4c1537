// The gate every call of resched-server passes when a tokens file is loaded: the bearer token
// of its `authorization` metadata names a principal (else UNAUTHENTICATED), whose role and
// cluster grants must allow the method on the request's cluster (else PERMISSION_DENIED). The
// token never appears in an error.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "server/auth/tokens.h"

namespace resched::server::auth {

// The principal of the call's "authorization: Bearer TOKEN" metadata (`authorization`: its
// value; nullopt when the call sent none).
absl::StatusOr<Principal> AuthenticateCall(const TokenTable& tokens,
                                           std::optional<absl::string_view> authorization);

struct CallAuthorization {
  std::optional<Principal> principal;  // set once the token was recognized
  absl::Status status;                 // OK: the call may proceed
};

// AuthenticateCall, then Authorize(method, cluster); the principal is kept even when the method
// is refused, for the audit log.
CallAuthorization AuthorizeCall(const TokenTable& tokens,
                                std::optional<absl::string_view> authorization,
                                absl::string_view method, absl::string_view cluster);

}  // namespace resched::server::auth
