#include "server/app/page_token.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

// A version prefix lets the encoding change without misreading old tokens.
constexpr absl::string_view kPrefix = "p1:";

}  // namespace

std::string EncodePageToken(std::int64_t after) {
  return absl::WebSafeBase64Escape(absl::StrCat(kPrefix, after));
}

absl::StatusOr<std::int64_t> DecodePageToken(absl::string_view token, absl::string_view field) {
  if (token.empty()) return 0;
  std::string text;
  std::int64_t after = 0;
  if (!absl::WebSafeBase64Unescape(token, &text) || !absl::StartsWith(text, kPrefix) ||
      !absl::SimpleAtoi(absl::string_view(text).substr(kPrefix.size()), &after) || after < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must be a next_page_token from a previous response, got '", token, "'"));
  }
  return after;
}

}  // namespace resched::server
