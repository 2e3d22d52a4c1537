#include "server/base/log.h"

#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace resched::server {
namespace {

struct Logger {
  std::mutex mu;
  LogFormat format = LogFormat::kText;
  std::string program = "resched-server";
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

}  // namespace

void SetLogFormat(LogFormat format) {
  Logger& logger = TheLogger();
  std::lock_guard lock(logger.mu);
  logger.format = format;
}

void SetLogProgram(std::string program) {
  Logger& logger = TheLogger();
  std::lock_guard lock(logger.mu);
  logger.program = std::move(program);
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
    // A field may quote a client's bytes: what is not UTF-8 is written as U+FFFD, never a throw.
    line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = absl::StrCat(logger.program, ": ", message);
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

}  // namespace resched::server
