#include "server/log.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace resched::server {
namespace {

struct Logger {
  std::mutex mu;
  LogFormat format = LogFormat::kText;
  std::function<void(const std::string&)> sink;
};

Logger& TheLogger() {
  static auto* const logger = new Logger;  // never destroyed: threads may log at exit
  return *logger;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

bool IsLowerHex(absl::string_view s) {
  for (const char c : s) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c)) || absl::ascii_isupper(c)) {
      return false;
    }
  }
  return true;
}

}  // namespace

void SetLogFormat(LogFormat format) {
  Logger& logger = TheLogger();
  std::lock_guard lock(logger.mu);
  logger.format = format;
}

void SetLogSinkForTest(std::function<void(const std::string& line)> sink) {
  Logger& logger = TheLogger();
  std::lock_guard lock(logger.mu);
  logger.sink = std::move(sink);
}

void Log(LogLevel level, absl::string_view event, absl::string_view message,
         const LogFields& fields) {
  Logger& logger = TheLogger();
  std::lock_guard lock(logger.mu);
  std::string line;
  if (logger.format == LogFormat::kJson) {
    nlohmann::json object = {
        {"time", absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::Now(), absl::UTCTimeZone())},
        {"level", LevelName(level)},
        {"event", event},
        {"message", message}};
    for (const auto& [key, value] : fields) object[key] = value;
    line = object.dump();
  } else {
    line = absl::StrCat("resched-server: ", message);
    for (const auto& [key, value] : fields) {
      if (key == "trace_id") absl::StrAppend(&line, " [trace ", value, "]");
    }
  }
  if (logger.sink) {
    logger.sink(line);
    return;
  }
  line += '\n';
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::string TraceIdOf(absl::string_view traceparent) {
  // version "-" trace-id (32 hex) "-" parent-id (16 hex) "-" flags (2 hex), lower case.
  const std::vector<absl::string_view> parts = absl::StrSplit(traceparent, '-');
  if (parts.size() < 4 || parts[0].size() != 2 || parts[1].size() != 32 || parts[2].size() != 16 ||
      parts[3].size() != 2) {
    return "";
  }
  for (const absl::string_view part : parts) {
    if (!IsLowerHex(part)) return "";
  }
  if (parts[0] == "ff" || parts[1] == std::string(32, '0') || parts[2] == std::string(16, '0')) {
    return "";  // invalid per the W3C recommendation
  }
  return std::string(parts[1]);
}

}  // namespace resched::server
