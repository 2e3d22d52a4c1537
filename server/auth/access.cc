#include "server/auth/access.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "server/auth/method_table.h"

namespace resched::server::auth {
namespace {

// Every RPC of resched.v1.Resched: the stream, then the unary methods' rows.
#define RESCHED_ACCESS_ROW(name, request, response, access) {#name, access},
constexpr std::pair<absl::string_view, MethodAccess> kTable[] = {
    {"WatchSchedule", kUserRead}, RESCHED_UNARY_METHODS(RESCHED_ACCESS_ROW)};
#undef RESCHED_ACCESS_ROW

}  // namespace

std::optional<MethodAccess> AccessOf(absl::string_view method) {
  for (const auto& [name, access] : kTable) {
    if (name == method) return access;
  }
  return std::nullopt;
}

absl::Status Authorize(const Principal& principal, absl::string_view method,
                       absl::string_view cluster) {
  const std::optional<MethodAccess> access = AccessOf(method);
  if (!access) {
    return absl::PermissionDeniedError(
        absl::StrCat(method, ": no access rule for this method, so nobody may call it"));
  }
  if (principal.role < access->least) {
    return absl::PermissionDeniedError(absl::StrCat(method, " needs the ", RoleName(access->least),
                                                    " role; tenant '", principal.tenant, "' has ",
                                                    RoleName(principal.role)));
  }
  if (access->per_cluster && !principal.MayUse(cluster)) {
    return absl::PermissionDeniedError(absl::StrCat(method, ": tenant '", principal.tenant,
                                                    "' is not granted cluster '", cluster, "'"));
  }
  return absl::OkStatus();
}

}  // namespace resched::server::auth
