// What may travel as the value of a gRPC metadata entry. gRPC asserts, and so aborts the whole
// process, when a call is started with a text metadata value it finds illegal, so every value
// that comes from outside (a token file, an environment variable, an HTTP header) is checked
// here first and refused with an error instead.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace resched::transport {

// A bearer token, "Bearer " included, fits in this many bytes; tokens resched issues are 43.
inline constexpr std::size_t kMaxMetadataValueBytes = 4096;

// OK when `value` can be sent as a text metadata value: printable ASCII (0x20-0x7E), at most
// kMaxMetadataValueBytes. Else INVALID_ARGUMENT naming `what` (e.g. "the Authorization
// header"), the limit, and the offending byte's position, never the value itself (a token).
absl::Status CheckMetadataValue(absl::string_view what, absl::string_view value);

}  // namespace resched::transport
