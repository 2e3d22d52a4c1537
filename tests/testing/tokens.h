// Test helpers for bearer tokens: the hexadecimal SHA-256 a tokens file holds for a token.
#pragma once

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "server/auth/tokens.h"

namespace resched::testing {

// What `printf %s TOKEN | sha256sum` prints.
inline std::string Sha256Hex(absl::string_view token) {
  const server::auth::Sha256 hash = server::auth::HashToken(token);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(hash.data()), hash.size()));
}

}  // namespace resched::testing
