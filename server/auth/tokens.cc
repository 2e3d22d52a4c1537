#include "server/auth/tokens.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "proto/resched/yaml_json.h"
#include "resched/v1/config.pb.h"

namespace resched::server::auth {
namespace {

bool ValidTenant(const std::string& tenant) {
  return !tenant.empty() && tenant.size() <= 64 &&
         std::all_of(tenant.begin(), tenant.end(), [](char c) {
           return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                  c == '.';
         });
}

absl::StatusOr<Sha256> ParseHash(const std::string& hex, const std::string& field) {
  const bool hex_digits = std::all_of(hex.begin(), hex.end(), [](char c) {
    return absl::ascii_isxdigit(static_cast<unsigned char>(c));
  });
  if (hex.size() != 64 || !hex_digits) {
    // The value is not echoed: a token pasted here by mistake must not reach a log.
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be the SHA-256 of the token, 64 hexadecimal digits (got ",
                     hex.size(), " characters); `printf %s \"$TOKEN\" | sha256sum` prints it"));
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  Sha256 hash;
  std::copy(bytes.begin(), bytes.end(), hash.begin());
  return hash;
}

}  // namespace

absl::string_view RoleName(Role role) {
  switch (role) {
    case Role::kUser:
      return "user";
    case Role::kOperator:
      return "operator";
    case Role::kAdmin:
      return "admin";
  }
  return "user";
}

bool Principal::MayUse(absl::string_view cluster) const {
  return role == Role::kAdmin || clusters.empty() ||
         std::find(clusters.begin(), clusters.end(), cluster) != clusters.end();
}

Sha256 HashToken(absl::string_view token) {
  Sha256 hash{};
  unsigned int length = 0;
  EVP_Digest(token.data(), token.size(), hash.data(), &length, EVP_sha256(), nullptr);
  return hash;
}

absl::StatusOr<TokenTable> TokenTable::Parse(absl::string_view text) {
  ::resched::v1::TokensFile file;
  if (absl::Status parsed = api::ParseJsonOrYaml(std::string_view(text.data(), text.size()), &file);
      !parsed.ok())
    return parsed;
  if (file.tokens().empty()) {
    return absl::InvalidArgumentError("tokens: empty; a tokens file grants at least one token");
  }
  TokenTable table;
  std::set<Sha256> seen;
  for (int i = 0; i < file.tokens_size(); ++i) {
    const ::resched::v1::TokenGrant& entry = file.tokens(i);
    const std::string at = absl::StrCat("tokens[", i, "]");
    absl::StatusOr<Sha256> hash = ParseHash(entry.sha256(), absl::StrCat(at, ".sha256"));
    if (!hash.ok()) return hash.status();
    if (!seen.insert(*hash).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".sha256: the same hash as an earlier entry (one token, one grant)"));
    }
    if (!ValidTenant(entry.tenant())) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ".tenant: 1 to 64 letters, digits, '-', '_' or '.', got '", entry.tenant(), "'"));
    }
    Principal principal;
    principal.tenant = entry.tenant();
    if (entry.role() == "admin") {
      principal.role = Role::kAdmin;
    } else if (entry.role() == "operator") {
      principal.role = Role::kOperator;
    } else if (entry.role() == "user") {
      principal.role = Role::kUser;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ".role: must be admin, operator or user, got '", entry.role(), "'"));
    }
    principal.clusters.assign(entry.clusters().begin(), entry.clusters().end());
    table.grants_.push_back({*hash, std::move(principal)});
  }
  return table;
}

absl::StatusOr<TokenTable> TokenTable::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read tokens file '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<TokenTable> table = Parse(text.str());
  if (!table.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", table.status().message()));
  }
  return table;
}

const Principal* TokenTable::Find(absl::string_view token) const {
  const Sha256 presented = HashToken(token);
  const Principal* found = nullptr;
  // Every grant is compared, whatever matched before.
  for (const Grant& grant : grants_) {
    if (CRYPTO_memcmp(grant.hash.data(), presented.data(), presented.size()) == 0) {
      found = &grant.principal;
    }
  }
  return found;
}

}  // namespace resched::server::auth
