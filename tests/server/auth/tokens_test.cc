// The tokens file: hashes only, every field checked with its entry named, and lookups that
// find exactly the granted tokens.
#include "server/auth/tokens.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/testing/status.h"
#include "tests/testing/tokens.h"

namespace resched::server::auth {
namespace {

using resched::testing::Sha256Hex;

TEST(HashToken, IsSha256) {
  // FIPS 180-2's example: SHA-256("abc").
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(TokenTable, FindsTheGrantOfEachTokenAndNothingElse) {
  const std::string text = absl::StrCat("tokens:\n",                                      //
                                        "  - sha256: ", Sha256Hex("root-secret"), "\n",   //
                                        "    tenant: ops\n    role: admin\n",             //
                                        "  - sha256: ", Sha256Hex("alice-secret"), "\n",  //
                                        "    tenant: alice\n    role: user\n",            //
                                        "    clusters: [default, gpu]\n");
  absl::StatusOr<TokenTable> table = TokenTable::Parse(text);
  ASSERT_OK(table);
  EXPECT_EQ(table->size(), 2u);
  const Principal* root = table->Find("root-secret");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->tenant, "ops");
  EXPECT_EQ(root->role, Role::kAdmin);
  EXPECT_TRUE(root->MayUse("anything"));
  const Principal* alice = table->Find("alice-secret");
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->role, Role::kUser);
  EXPECT_TRUE(alice->MayUse("gpu"));
  EXPECT_FALSE(alice->MayUse("other"));
  EXPECT_EQ(table->Find("alice-secre"), nullptr);
  EXPECT_EQ(table->Find(""), nullptr);
  EXPECT_EQ(table->Find(Sha256Hex("alice-secret")), nullptr);  // the hash is not the token
}

TEST(TokenTable, BadEntriesNameTheirIndexAndFieldWithoutEchoingTheValue) {
  const std::string good = Sha256Hex("x");
  auto error = [](const std::string& text) {
    return std::string(TokenTable::Parse(text).status().message());
  };
  EXPECT_EQ(error("tokens: []"), "tokens: empty; a tokens file grants at least one token");
  const std::string pasted_token = "my-clear-text-token";
  const std::string short_hash = error(absl::StrCat(
      "tokens:\n  - {sha256: ", good, ", tenant: a, role: user}\n  - {sha256: ", pasted_token,
      ", tenant: b, role: user}\n"));
  EXPECT_EQ(short_hash,
            "tokens[1].sha256: must be the SHA-256 of the token, 64 hexadecimal digits (got 19 "
            "characters); `printf %s \"$TOKEN\" | sha256sum` prints it");
  EXPECT_EQ(short_hash.find(pasted_token), std::string::npos);
  EXPECT_EQ(error(absl::StrCat("tokens:\n  - {sha256: ", good, ", tenant: a, role: root}\n")),
            "tokens[0].role: must be admin, operator or user, got 'root'");
  EXPECT_EQ(error(absl::StrCat("tokens:\n  - {sha256: ", good, ", tenant: 'a b', role: user}\n")),
            "tokens[0].tenant: 1 to 64 letters, digits, '-', '_' or '.', got 'a b'");
  EXPECT_EQ(error(absl::StrCat("tokens:\n  - {sha256: ", good, ", tenant: a, role: user}\n",
                               "  - {sha256: ", good, ", tenant: b, role: admin}\n")),
            "tokens[1].sha256: the same hash as an earlier entry (one token, one grant)");
  EXPECT_FALSE(TokenTable::Parse("tokens:\n  - {token: abc, tenant: a, role: user}\n").ok());
}

TEST(TokenTable, LoadNamesTheFile) {
  EXPECT_EQ(TokenTable::Load("/nonexistent/tokens.yaml").status().message(),
            "cannot read tokens file '/nonexistent/tokens.yaml'");
}

}  // namespace
}  // namespace resched::server::auth
