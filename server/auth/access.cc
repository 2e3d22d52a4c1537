#include "server/auth/access.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"

namespace resched::server::auth {
namespace {

constexpr MethodAccess kAdminChange{Role::kAdmin, false, true};
constexpr MethodAccess kOperatorChange{Role::kOperator, true, true};
constexpr MethodAccess kUserChange{Role::kUser, true, true};
constexpr MethodAccess kUserRead{Role::kUser, true, false};
constexpr MethodAccess kAnyoneRead{Role::kUser, false, false};

// Every RPC of resched.v1.Resched.
constexpr std::array<std::pair<absl::string_view, MethodAccess>, 21> kTable = {{
    {"CreateCluster", kAdminChange},
    {"DeleteCluster", kAdminChange},
    {"GetCluster", kUserRead},
    {"ListClusters", kAnyoneRead},
    {"ListAlgorithms", kAnyoneRead},
    {"SubmitJob", kUserChange},
    {"GetJob", kUserRead},
    {"ListJobs", kUserRead},
    {"CancelJob", kUserChange},
    // What ran: the executor's (an operator's) report, not the submitter's.
    {"ReportJobEvent", kOperatorChange},
    {"AddReservation", kOperatorChange},
    {"RemoveReservation", kOperatorChange},
    {"ReserveDAG", kUserChange},
    // A committing QueryDeadline reserves like ReserveDAG.
    {"QueryDeadline", kUserChange},
    {"GetDagReservation", kUserRead},
    {"ListDagReservations", kUserRead},
    {"ReleaseDAG", kUserChange},
    // A dry run changes nothing, but the method is audited as a whole.
    {"Replan", kOperatorChange},
    {"GetSchedule", kUserRead},
    {"AdvanceClock", kOperatorChange},
    {"WatchSchedule", kUserRead},
}};

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
