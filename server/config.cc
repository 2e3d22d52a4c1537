#include "server/config.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "proto/resched/yaml_json.h"

namespace resched::server {

const char kDefaultConfigYaml[] = R"(# resched-server embedded default configuration
listen: 127.0.0.1:50051
clusters:
  - name: default
    processors: 64
    clock: WALL
    policy:
      name: conservative
)";

absl::StatusOr<::resched::v1::ServerConfig> ParseConfig(const std::string& text) {
  ::resched::v1::ServerConfig config;
  if (auto status = api::ParseJsonOrYaml(text, &config); !status.ok()) return status;
  if (config.max_message_bytes() < 0 || config.max_clusters() < 0 ||
      config.max_active_jobs_per_cluster() < 0 || config.max_dag_tasks() < 0) {
    return absl::InvalidArgumentError("config limits (max_*) must be >= 0");
  }
  return config;
}

absl::StatusOr<::resched::v1::ServerConfig> LoadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read config file '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  auto config = ParseConfig(text.str());
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", config.status().message()));
  }
  return config;
}

}  // namespace resched::server
