#include "server/auth/call_auth.h"

#include "absl/strings/match.h"
#include "server/auth/access.h"

namespace resched::server::auth {

absl::StatusOr<Principal> AuthenticateCall(const TokenTable& tokens,
                                           std::optional<absl::string_view> authorization) {
  if (!authorization) {
    return absl::UnauthenticatedError(
        "this server needs a bearer token: send the metadata 'authorization: Bearer TOKEN' "
        "(resched: --token-file or RESCHED_TOKEN)");
  }
  const absl::string_view value = *authorization;
  constexpr absl::string_view kScheme = "Bearer ";
  if (!absl::StartsWithIgnoreCase(value, kScheme)) {
    return absl::UnauthenticatedError(
        "the authorization metadata must be 'Bearer TOKEN' (another scheme was sent)");
  }
  const absl::string_view token = value.substr(kScheme.size());
  const Principal* principal = tokens.Find(token);
  if (principal == nullptr) {
    return absl::UnauthenticatedError("the bearer token is not one this server knows");
  }
  return *principal;
}

CallAuthorization AuthorizeCall(const TokenTable& tokens,
                                std::optional<absl::string_view> authorization,
                                absl::string_view method, absl::string_view cluster) {
  absl::StatusOr<Principal> principal = AuthenticateCall(tokens, authorization);
  if (!principal.ok()) return {std::nullopt, principal.status()};
  absl::Status allowed = Authorize(*principal, method, cluster);
  return {*std::move(principal), std::move(allowed)};
}

}  // namespace resched::server::auth
