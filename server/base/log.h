// The server's log (and the bridge's): one line per event on stderr, human-readable by default
// ("resched-server: <message>"), or one JSON object per line with --log-format json (time,
// level, event, message and the event's fields, among them the trace id of the call when its
// metadata carried a W3C traceparent). Thread-safe; lines never interleave.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace resched::server {

enum class LogFormat { kText, kJson };
enum class LogLevel { kInfo, kWarning, kError };

using LogFields = std::vector<std::pair<std::string, std::string>>;

void SetLogFormat(LogFormat format);
// The name that starts each text line; "resched-server" unless set.
void SetLogProgram(std::string program);
// Where lines go instead of stderr (tests); nullptr restores stderr.
void SetLogSinkForTest(std::function<void(const std::string& line)> sink);

// `event` is a stable name for machines ("snapshot", "call_failed", ...); `message` the line a
// person reads.
void Log(LogLevel level, absl::string_view event, absl::string_view message,
         const LogFields& fields = {});

}  // namespace resched::server
