// Which role each RPC needs, and whether it acts on one cluster (then the principal must be
// granted that cluster): the access column of server/auth/method_table.h. A method missing from the
// table is refused: a new RPC is closed until someone decides who may call it
// (tests/server/auth/access_test.cc walks the service descriptor to keep the table complete).
#pragma once

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "server/auth/tokens.h"

namespace resched::server::auth {

struct MethodAccess {
  Role least;        // the lowest role that may call it
  bool per_cluster;  // acts on the cluster its request names
  bool changes;      // may change state: every call of it is audited (server/auth/audit_log.h)
};

// The rules the methods have (server/auth/method_table.h).
inline constexpr MethodAccess kAdminChange{Role::kAdmin, false, true};
inline constexpr MethodAccess kOperatorChange{Role::kOperator, true, true};
inline constexpr MethodAccess kUserChange{Role::kUser, true, true};
inline constexpr MethodAccess kUserRead{Role::kUser, true, false};
inline constexpr MethodAccess kAnyoneRead{Role::kUser, false, false};

// The access rule of `method` (its name in the service, e.g. "SubmitJob"); nullopt when the
// table has none.
std::optional<MethodAccess> AccessOf(absl::string_view method);

// OK when `principal` may call `method` on `cluster` (empty for calls on no one cluster);
// PERMISSION_DENIED naming the method, the role needed and the principal's role or cluster
// grant otherwise.
absl::Status Authorize(const Principal& principal, absl::string_view method,
                       absl::string_view cluster);

}  // namespace resched::server::auth
