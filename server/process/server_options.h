// What resched-server is told to do, in one place: the flags as given (ServerFlags), and what
// they mean once merged with the configuration (ServerOptions). A flag wins over the
// configuration file, the file over the built-in default; every default is written here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "resched/v1/config.pb.h"
#include "server/base/log.h"
#include "server/process/store_settings.h"
#include "server/process/tracing_settings.h"
#include "transport/tls_credentials.h"

namespace resched::server {

// The command line, as given: an empty string or false is a flag left out.
struct ServerFlags {
  std::string listen;
  std::string config;  // a YAML or JSON file; empty: the embedded default
  std::string data_dir;
  bool ephemeral = false;
  bool accept_data_loss = false;
  std::string store;  // local or etcd
  std::string etcd_endpoints;
  std::string etcd_prefix;
  std::string advertise_address;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  std::string peer_tls_ca;
  std::string tokens_file;
  bool insecure = false;
  std::string audit_log;  // a file, "-" (standard error) or "none"
  std::string metrics_listen;
  bool metrics_insecure = false;
  std::string http_listen;
  std::string http_allowed_hosts;  // NAME[,NAME...]
  std::string log_format;
  std::string otlp_endpoint;
  std::string trace_sample_ratio;  // a number in [0, 1]
};

inline constexpr char kDefaultListen[] = "127.0.0.1:50051";
inline constexpr char kDefaultDataDir[] = ".resched-data";
inline constexpr int kDefaultMaxMessageBytes = 16 << 20;

// What the server runs with.
struct ServerOptions {
  ::resched::v1::ServerConfig config;  // the file's, or the embedded default
  std::string listen;
  std::string data_dir;  // empty when ephemeral or in etcd
  bool ephemeral = false;
  bool accept_data_loss = false;
  StoreSettings store;
  transport::ServerTlsFiles tls;
  // The CA the other replicas' certificates chain to (--peer-tls-ca); empty: --tls-client-ca's,
  // else the system's roots.
  std::string peer_tls_ca;
  std::string tokens_file;  // empty: calls are not authenticated
  bool insecure = false;
  std::string audit_log;       // empty: no audit log
  std::string metrics_listen;  // empty: no metrics endpoint
  bool metrics_insecure = false;
  std::string http_listen;  // empty: no web view
  std::vector<std::string> http_allowed_hosts;
  LogFormat log_format = LogFormat::kText;
  TracingSettings tracing;
  int max_message_bytes = kDefaultMaxMessageBytes;
};

// resched-server's command line: what it asks for, beside the flags.
struct CommandLine {
  ServerFlags flags;
  bool help = false;          // --help, -h: print kServerUsage and exit
  bool print_config = false;  // --print-config: print the embedded configuration and exit
};

// Parses argv (getopt_long: --flag VALUE or --flag=VALUE). INVALID_ARGUMENT naming the flag for an
// unknown flag, a missing value or an argument that is not a flag.
absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv);

// What --help prints.
extern const char kServerUsage[];

// Merges `flags` with `config` (read from flags.config, or the embedded default). `env` reads an
// environment variable ("" when unset), for the OpenTelemetry ones. INVALID_ARGUMENT naming the
// flag or field when a value is wrong or two flags exclude each other.
absl::StatusOr<ServerOptions> ResolveServerOptions(
    const ServerFlags& flags, ::resched::v1::ServerConfig config,
    const std::function<std::string(const char*)>& env);

}  // namespace resched::server
