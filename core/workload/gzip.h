// gzip decompression for compressed workload logs (the Parallel Workloads Archive ships .swf.gz).
// zlib inflate with automatic gzip/zlib header detection (RFC 1952 / RFC 1950); concatenated gzip
// members are decoded one after another, as gunzip does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace resched {

// Larger outputs are refused: a small file must not be able to exhaust memory (gzip bombs).
inline constexpr std::size_t kMaxGunzipBytes = std::size_t{4} << 30;

// True when `data` starts with the gzip magic bytes 1f 8b.
bool LooksGzipped(std::string_view data);

// Decompresses every gzip member of `compressed`. Errors: INVALID_ARGUMENT for corrupt, truncated
// or trailing non-gzip data (naming the byte offset), RESOURCE_EXHAUSTED when the output would
// exceed `max_output` bytes.
absl::StatusOr<std::string> Gunzip(std::string_view compressed,
                                   std::size_t max_output = kMaxGunzipBytes);

// Reads all of `in` and gunzips it when it looks gzipped; plain text is returned as is. Both the
// raw input and the output are bounded by `max_output`.
absl::StatusOr<std::string> ReadMaybeGzipped(std::istream& in,
                                             std::size_t max_output = kMaxGunzipBytes);

}  // namespace resched
