// Durations and instants as the CLI reads and writes them. Like the server, the CLI keeps
// time as whole microseconds: durations as int64 microseconds, instants as int64
// microseconds since the Unix epoch.
#pragma once

#include <google/protobuf/duration.pb.h>
#include <google/protobuf/timestamp.pb.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace resched::cli {

// "90s", "5m", "1h30m", "250ms", "1.5h", "100us", "2d"; a plain number is seconds. Units: d,
// h, m, s, ms, us (or µs). Not negative; a fraction rounds up to the next microsecond.
absl::StatusOr<int64_t> ParseDuration(absl::string_view text);

// The compact form ParseDuration reads back: "0s", "250ms", "1.5ms", "100us", "1m30.25s",
// "1h30m", "2d3h".
std::string FormatDuration(int64_t micros);

// Instants: RFC 3339 ("2026-11-22T10:00:00Z", with an offset or fraction too); "@SECONDS" or
// "@DUR" since the epoch (e.g. "@3600", "@1h"); "+DUR" after the cluster's now; "now".
// `now` is called only for the last two forms.
absl::StatusOr<int64_t> ParseTime(absl::string_view text,
                                  absl::FunctionRef<absl::StatusOr<int64_t>()> now);
// True when ParseTime needs the cluster's now for `text`.
bool TimeNeedsNow(absl::string_view text);

// How instants are printed: RFC 3339 UTC in whole seconds (rounded down) for wall clocks,
// "@DUR" since the epoch for simulated clocks (which start at the epoch).
enum class TimeStyle { kWall, kSimulated };
std::string FormatTime(int64_t micros, TimeStyle style);
// FormatTime, or "-" when the field is unset.
std::string FormatTime(bool present, const google::protobuf::Timestamp& ts, TimeStyle style);

int64_t ToMicros(const google::protobuf::Duration& d);
int64_t ToMicros(const google::protobuf::Timestamp& ts);
google::protobuf::Duration ToProtoDuration(int64_t micros);
google::protobuf::Timestamp ToProtoTimestamp(int64_t micros);

}  // namespace resched::cli
