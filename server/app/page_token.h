// ListJobs page tokens: opaque to clients, so that neither job ids nor the order they are listed
// in become part of the API. A token carries the position after which the next page starts.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace resched::server {

std::string EncodePageToken(std::int64_t after);
// The position a token from EncodePageToken carries; INVALID_ARGUMENT naming `field` for any
// other text. An empty token is the first page (0).
absl::StatusOr<std::int64_t> DecodePageToken(absl::string_view token, absl::string_view field);

}  // namespace resched::server
