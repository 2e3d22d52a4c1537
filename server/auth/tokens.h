// Bearer tokens: the tokens file (proto/resched/v1/config.proto TokensFile) loaded into a table
// of SHA-256 hashes, and the lookup of a presented token. Tokens are never kept or logged in
// clear; the lookup compares every stored hash in constant time, so its duration tells nothing
// about which hash, or how much of one, a guess matched.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace resched::server::auth {

enum class Role { kUser = 1, kOperator = 2, kAdmin = 3 };

// "user", "operator", "admin".
absl::string_view RoleName(Role role);

// Who a call comes from.
struct Principal {
  std::string tenant;
  Role role = Role::kUser;
  std::vector<std::string> clusters;  // empty: every cluster

  // Whether this principal may act on `cluster` at all (admins: always).
  bool MayUse(absl::string_view cluster) const;
};

using Sha256 = std::array<unsigned char, 32>;

Sha256 HashToken(absl::string_view token);

class TokenTable {
 public:
  // The text of a tokens file; INVALID_ARGUMENT naming the entry and field (tokens[2].role ...).
  static absl::StatusOr<TokenTable> Parse(absl::string_view text);
  // The file at `path`; errors start with the path.
  static absl::StatusOr<TokenTable> Load(const std::string& path);

  // The principal of `token`, or nullptr when no grant has its hash.
  const Principal* Find(absl::string_view token) const;
  std::size_t size() const { return grants_.size(); }

 private:
  struct Grant {
    Sha256 hash;
    Principal principal;
  };
  std::vector<Grant> grants_;
};

}  // namespace resched::server::auth
