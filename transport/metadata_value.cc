#include "transport/metadata_value.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace resched::transport {

absl::Status CheckMetadataValue(absl::string_view what, absl::string_view value) {
  if (value.size() > kMaxMetadataValueBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is ", value.size(), " bytes long; the limit is ", kMaxMetadataValueBytes));
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto byte = static_cast<unsigned char>(value[i]);
    if (byte < 0x20 || byte > 0x7E) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s holds the byte 0x%02X at position %d; only printable ASCII (0x20-0x7E) is allowed",
          what, byte, i));
    }
  }
  return absl::OkStatus();
}

}  // namespace resched::transport
