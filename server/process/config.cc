#include "server/process/config.h"

#include <fstream>
#include <sstream>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/resched/yaml_json.h"

namespace resched::server {

const char kDefaultConfigYaml[] = R"(# resched-server embedded default configuration
listen: 127.0.0.1:50051
data_dir: .resched-data
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
  const std::pair<const char*, int> limits[] = {
      {"max_message_bytes", config.max_message_bytes()},
      {"max_clusters", config.max_clusters()},
      {"max_active_jobs_per_cluster", config.max_active_jobs_per_cluster()},
      {"max_dag_tasks", config.max_dag_tasks()},
      {"max_watch_backlog", config.max_watch_backlog()},
      {"max_waiting_calls", config.max_waiting_calls()},
      {"snapshot_every", config.snapshot_every()},
      {"audit_log_max_files", config.audit_log_max_files()},
      {"max_watch_streams", config.max_watch_streams()},
      {"max_watch_streams_per_client", config.max_watch_streams_per_client()},
      {"max_watch_memory_mib", config.max_watch_memory_mib()}};
  for (const auto& [field, value] : limits) {
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, " must be >= 0 (0 means the default), got ", value));
    }
  }
  return config;
}

ServiceLimits LimitsFrom(const ::resched::v1::ServerConfig& config) {
  ServiceLimits limits;
  auto set = [](auto& limit, int value) {
    if (value > 0) limit = static_cast<std::remove_reference_t<decltype(limit)>>(value);
  };
  set(limits.max_clusters, config.max_clusters());
  set(limits.max_active_jobs_per_cluster, config.max_active_jobs_per_cluster());
  set(limits.max_dag_tasks, config.max_dag_tasks());
  set(limits.max_watch_backlog, config.max_watch_backlog());
  set(limits.max_waiting_calls, config.max_waiting_calls());
  set(limits.snapshot_every_records, config.snapshot_every());
  set(limits.max_watch_streams, config.max_watch_streams());
  set(limits.max_watch_streams_per_client, config.max_watch_streams_per_client());
  if (config.max_watch_memory_mib() > 0) {
    limits.max_watch_bytes = static_cast<size_t>(config.max_watch_memory_mib()) << 20;
  }
  return limits;
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
