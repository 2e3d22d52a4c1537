// resched-server's configuration: an embedded default (one cluster "default", 64 processors,
// conservative backfilling, wall clock) or a YAML/JSON file.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "resched/v1/config.pb.h"
#include "server/app/limits.h"

namespace resched::server {

extern const char kDefaultConfigYaml[];

absl::StatusOr<::resched::v1::ServerConfig> ParseConfig(const std::string& text);
// Reads and parses a file; errors name the file.
absl::StatusOr<::resched::v1::ServerConfig> LoadConfigFile(const std::string& path);

// The limits a configuration sets; the defaults where it leaves a limit at 0.
ServiceLimits LimitsFrom(const ::resched::v1::ServerConfig& config);

}  // namespace resched::server
