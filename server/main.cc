// resched-server: the scheduling service. Flags: see Usage().
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "server/auth/tenant_limits.h"
#include "server/auth/tokens.h"
#include "server/config.h"
#include "server/credential_reloader.h"
#include "server/listen_error.h"
#include "server/listen_security.h"
#include "server/log.h"
#include "server/metrics_endpoint.h"
#include "server/process_settings.h"
#include "server/service.h"
#include "server/trace/otlp_http_exporter.h"
#include "server/tracing_settings.h"
#include "server/web/http_view.h"
#include "transport/reloadable_server_tls.h"
#include "transport/tls_credentials.h"

namespace {

using resched::server::Log;
using resched::server::LogFormat;
using resched::server::LogLevel;

void Usage() {
  std::fprintf(stderr,
               "usage: resched-server [--listen HOST:PORT] [--config FILE] [--data-dir DIR | "
               "--ephemeral]\n"
               "  --listen   address to serve on (default: the config's, else 127.0.0.1:50051);\n"
               "             without TLS and bearer tokens only a loopback address, unless\n"
               "             --insecure\n"
               "  --tls-cert FILE, --tls-key FILE  serve TLS with this certificate chain and\n"
               "             private key (PEM)\n"
               "  --tls-client-ca FILE  mutual TLS: clients need a certificate this CA signed\n"
               "  --tokens-file FILE  every call needs a bearer token of this file, whose role\n"
               "             and clusters allow it (YAML; tokens as SHA-256; docs/security.md)\n"
               "             The TLS files and the tokens file are read again on SIGHUP and\n"
               "             when they change; a file that does not load is refused and the\n"
               "             one in use stays\n"
               "  --insecure  serve a non-loopback address without TLS and tokens (warned)\n"
               "  --audit-log FILE|-|none  a JSON line for every call that may change state,\n"
               "             applied or refused (default: the config's audit_log, else\n"
               "             audit.jsonl in the data directory; none when --ephemeral)\n"
               "  --config   YAML or JSON configuration (default: embedded; see --print-config)\n"
               "  --data-dir where every acknowledged change is kept (default: the config's,\n"
               "             else .resched-data); a restart comes back to the same state\n"
               "  --ephemeral  keep nothing on disk (tests, experiments)\n"
               "  --accept-data-loss  start even when acknowledged changes cannot be read (the\n"
               "             write-ahead log damaged before its last commit, or missing after a\n"
               "             crash); the log says what was lost. Without it such a start fails\n"
               "             with DATA_LOSS naming the file and the position\n"
               "  --metrics-listen HOST:PORT  serve Prometheus metrics at /metrics there\n"
               "             (default: the config's metrics_listen, else none); plain HTTP\n"
               "             without authentication, so a non-loopback address needs\n"
               "             --metrics-insecure or --insecure\n"
               "  --metrics-insecure  serve --metrics-listen on a non-loopback address: let\n"
               "             only the scraper reach it (a NetworkPolicy, a firewall)\n"
               "  --http-listen HOST:PORT  serve the web view (a page, its JSON API under\n"
               "             /api/v1 and /metrics) there (default: the config's http_listen,\n"
               "             else none); plain HTTP, so a non-loopback address needs --insecure\n"
               "  --http-allowed-hosts NAME[,NAME...]  host names the web view answers to besides\n"
               "             IP addresses and localhost (a proxy's name in front of it); a\n"
               "             request for another name, or from another site's page, gets 403\n"
               "  --log-format text|json  one line per event on stderr, as text (default) or\n"
               "             JSON objects (default: the config's log_format)\n"
               "  --otlp-endpoint URL  send trace spans there as OTLP/HTTP JSON (a collector's\n"
               "             base URL, e.g. http://localhost:4318; default: the config's\n"
               "             otlp_endpoint, else OTEL_EXPORTER_OTLP_ENDPOINT, else none)\n"
               "  --trace-sample-ratio R  share of calls traced when the caller did not decide\n"
               "             (default: OTEL_TRACES_SAMPLER_ARG, else the config's, else 1)\n"
               "  --print-config  print the embedded default configuration and exit\n");
}

// SIGTERM and SIGINT stop the server; SIGHUP reloads its tokens and TLS files.
sigset_t HandledSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

// Waits in the calling (main) thread for a signal that main() has blocked, so that shutdown and
// reloads run as ordinary code rather than inside a signal handler.
int WaitForSignal() {
  const sigset_t set = HandledSignals();
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

// How often the tokens and TLS files are checked for changes between SIGHUPs (a Kubernetes
// Secret is updated in place within about a minute of its change).
constexpr std::chrono::seconds kCredentialsPoll{10};

}  // namespace

int main(int argc, char** argv) {
  // Block the handled signals before any thread starts (the service's workers, gRPC's), so that
  // every thread inherits the mask and only WaitForSignal receives them.
  const sigset_t handled = HandledSignals();
  pthread_sigmask(SIG_BLOCK, &handled, nullptr);
  resched::server::ApplyServingProcessSettings();

  std::string listen;
  std::string config_path;
  std::string data_dir;
  std::string metrics_listen;
  std::string http_listen;
  std::vector<std::string> http_allowed_hosts;
  std::string log_format;
  resched::server::TracingFlags tracing_flags;
  bool ephemeral = false;
  bool accept_data_loss = false;
  resched::transport::ServerTlsFiles tls_files;
  bool insecure = false;
  bool metrics_insecure = false;
  std::string tokens_file;
  std::string audit_log;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name) -> std::string {
      const std::string prefix = std::string(name) + "=";
      if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
      if (i + 1 >= argc) {
        std::fprintf(stderr, "resched-server: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--listen" || arg.rfind("--listen=", 0) == 0) {
      listen = value("--listen");
    } else if (arg == "--config" || arg.rfind("--config=", 0) == 0) {
      config_path = value("--config");
    } else if (arg == "--data-dir" || arg.rfind("--data-dir=", 0) == 0) {
      data_dir = value("--data-dir");
    } else if (arg == "--metrics-listen" || arg.rfind("--metrics-listen=", 0) == 0) {
      metrics_listen = value("--metrics-listen");
    } else if (arg == "--http-listen" || arg.rfind("--http-listen=", 0) == 0) {
      http_listen = value("--http-listen");
    } else if (arg == "--http-allowed-hosts" || arg.rfind("--http-allowed-hosts=", 0) == 0) {
      http_allowed_hosts = absl::StrSplit(value("--http-allowed-hosts"), ',', absl::SkipEmpty());
    } else if (arg == "--log-format" || arg.rfind("--log-format=", 0) == 0) {
      log_format = value("--log-format");
    } else if (arg == "--otlp-endpoint" || arg.rfind("--otlp-endpoint=", 0) == 0) {
      tracing_flags.otlp_endpoint = value("--otlp-endpoint");
    } else if (arg == "--trace-sample-ratio" || arg.rfind("--trace-sample-ratio=", 0) == 0) {
      const std::string ratio = value("--trace-sample-ratio");
      double parsed = 0;
      if (!absl::SimpleAtod(ratio, &parsed)) {
        std::fprintf(stderr,
                     "resched-server: --trace-sample-ratio must be a number in [0, 1], "
                     "got '%s'\n",
                     ratio.c_str());
        return 2;
      }
      tracing_flags.trace_sample_ratio = parsed;
    } else if (arg == "--tls-cert" || arg.rfind("--tls-cert=", 0) == 0) {
      tls_files.cert = value("--tls-cert");
    } else if (arg == "--tls-key" || arg.rfind("--tls-key=", 0) == 0) {
      tls_files.key = value("--tls-key");
    } else if (arg == "--tls-client-ca" || arg.rfind("--tls-client-ca=", 0) == 0) {
      tls_files.client_ca = value("--tls-client-ca");
    } else if (arg == "--tokens-file" || arg.rfind("--tokens-file=", 0) == 0) {
      tokens_file = value("--tokens-file");
    } else if (arg == "--audit-log" || arg.rfind("--audit-log=", 0) == 0) {
      audit_log = value("--audit-log");
    } else if (arg == "--insecure") {
      insecure = true;
    } else if (arg == "--metrics-insecure") {
      metrics_insecure = true;
    } else if (arg == "--ephemeral") {
      ephemeral = true;
    } else if (arg == "--accept-data-loss") {
      accept_data_loss = true;
    } else if (arg == "--print-config") {
      std::fputs(resched::server::kDefaultConfigYaml, stdout);
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      Usage();
      return 0;
    } else {
      std::fprintf(stderr, "resched-server: unknown flag '%s'\n", arg.c_str());
      Usage();
      return 2;
    }
  }

  auto config = config_path.empty()
                    ? resched::server::ParseConfig(resched::server::kDefaultConfigYaml)
                    : resched::server::LoadConfigFile(config_path);
  if (!config.ok()) {
    std::fprintf(stderr, "resched-server: %s\n", std::string(config.status().message()).c_str());
    return 2;
  }
  if (listen.empty()) listen = config->listen().empty() ? "127.0.0.1:50051" : config->listen();
  std::shared_ptr<resched::transport::ReloadableServerTls> tls;
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (tls_files.enabled()) {
    absl::StatusOr<std::unique_ptr<resched::transport::ReloadableServerTls>> loaded =
        resched::transport::ReloadableServerTls::Load(tls_files);
    if (!loaded.ok()) {
      std::fprintf(stderr, "resched-server: %s\n", std::string(loaded.status().message()).c_str());
      return 2;
    }
    tls = *std::move(loaded);
    credentials = tls->credentials();
  }
  std::shared_ptr<const resched::server::auth::TokenTable> tokens;
  if (!tokens_file.empty()) {
    absl::StatusOr<resched::server::auth::TokenTable> loaded =
        resched::server::auth::TokenTable::Load(tokens_file);
    if (!loaded.ok()) {
      std::fprintf(stderr, "resched-server: --tokens-file: %s\n",
                   std::string(loaded.status().message()).c_str());
      return 2;
    }
    tokens = std::make_shared<const resched::server::auth::TokenTable>(*std::move(loaded));
  }
  absl::StatusOr<std::string> listen_warning = resched::server::CheckListenSecurity(
      listen, {.tls = tls_files.enabled(), .tokens = tokens != nullptr, .insecure = insecure});
  if (!listen_warning.ok()) {
    std::fprintf(stderr, "resched-server: %s\n",
                 std::string(listen_warning.status().message()).c_str());
    return 2;
  }
  if (log_format.empty()) log_format = config->log_format().empty() ? "text" : config->log_format();
  if (log_format != "text" && log_format != "json") {
    std::fprintf(stderr, "resched-server: --log-format must be text or json, got '%s'\n",
                 log_format.c_str());
    return 2;
  }
  resched::server::SetLogFormat(log_format == "json" ? LogFormat::kJson : LogFormat::kText);

  if (ephemeral && !data_dir.empty()) {
    std::fprintf(stderr, "resched-server: --data-dir and --ephemeral exclude each other\n");
    return 2;
  }
  if (data_dir.empty())
    data_dir = config->data_dir().empty() ? ".resched-data" : config->data_dir();

  absl::StatusOr<resched::server::TracingSettings> tracing =
      resched::server::ResolveTracing(tracing_flags, *config, [](const char* name) {
        const char* value = std::getenv(name);
        return std::string(value == nullptr ? "" : value);
      });
  if (!tracing.ok()) {
    std::fprintf(stderr, "resched-server: %s\n", std::string(tracing.status().message()).c_str());
    return 2;
  }

  resched::server::ReschedService service(resched::server::LimitsFrom(*config));
  if (tokens != nullptr) service.RequireTokens(tokens);
  absl::StatusOr<resched::server::auth::TenantLimits> tenant_limits =
      resched::server::auth::TenantLimits::FromConfig(*config);
  if (!tenant_limits.ok()) {
    std::fprintf(stderr, "resched-server: config: %s\n",
                 std::string(tenant_limits.status().message()).c_str());
    return 2;
  }
  if (!tenant_limits->empty()) {
    if (tokens == nullptr) {
      Log(LogLevel::kWarning, "tenant_limits_unused",
          "tenant_limits are set but there is no --tokens-file: without tenants they do not "
          "apply");
    }
    service.SetTenantLimits(
        std::make_shared<const resched::server::auth::TenantLimits>(*std::move(tenant_limits)));
  }
  if (!tracing->traces_url.empty()) {
    resched::server::trace::OtlpHttpOptions otlp;
    otlp.url = tracing->traces_url;
    otlp.service_name = tracing->service_name;
    otlp.headers = tracing->headers;
    auto exporter = resched::server::trace::OtlpHttpExporter::Create(otlp);
    if (!exporter.ok()) {
      std::fprintf(stderr, "resched-server: %s\n",
                   std::string(exporter.status().message()).c_str());
      return 2;
    }
    resched::server::trace::TracerOptions options;
    options.sample_ratio = tracing->sample_ratio;
    service.EnableTracing(*std::move(exporter), options);
    Log(LogLevel::kInfo, "tracing",
        absl::StrFormat("traces to %s (sampling %g of the calls whose caller did not decide)",
                        otlp.url, options.sample_ratio),
        {{"url", otlp.url}, {"sample_ratio", absl::StrCat(options.sample_ratio)}});
  }
  // A data directory that already holds a journal keeps its clusters; the configuration's are
  // created in a new one only.
  bool fresh = true;
  if (!ephemeral) {
    absl::StatusOr<bool> opened = service.OpenDataDir(
        data_dir, resched::server::JournalOpenOptions{.accept_data_loss = accept_data_loss});
    if (!opened.ok()) {
      Log(LogLevel::kError, "start_failed", opened.status().message(), {{"data_dir", data_dir}});
      return 1;
    }
    fresh = *opened;
  }
  if (audit_log.empty()) audit_log = config->audit_log();
  if (audit_log.empty() && !ephemeral) {
    audit_log = (std::filesystem::path(data_dir) / "audit.jsonl").string();
  }
  if (!audit_log.empty() && audit_log != "none") {
    resched::server::auth::AuditLogOptions audit_options;
    audit_options.path = audit_log;
    if (config->audit_log_max_bytes() != 0) audit_options.max_bytes = config->audit_log_max_bytes();
    if (config->audit_log_max_files() != 0) audit_options.max_files = config->audit_log_max_files();
    absl::StatusOr<std::unique_ptr<resched::server::auth::AuditLog>> audit =
        resched::server::auth::AuditLog::Open(audit_options);
    if (!audit.ok()) {
      Log(LogLevel::kError, "start_failed", audit.status().message());
      return 1;
    }
    service.EnableAudit(*std::move(audit));
  }
  if (fresh) {
    if (auto status = service.CreateConfiguredClusters(*config); !status.ok()) {
      Log(LogLevel::kError, "start_failed", absl::StrCat("config: ", status.message()));
      return 2;
    }
  }

  if (metrics_listen.empty()) metrics_listen = config->metrics_listen();
  std::unique_ptr<prometheus::Exposer> metrics;
  if (!metrics_listen.empty()) {
    absl::StatusOr<std::string> metrics_warning = resched::server::CheckListenSecurity(
        metrics_listen, {.insecure = insecure || metrics_insecure, .metrics = true});
    if (!metrics_warning.ok()) {
      Log(LogLevel::kError, "start_failed",
          absl::StrCat("--metrics-listen: ", metrics_warning.status().message()));
      return 2;
    }
    if (!metrics_warning->empty()) Log(LogLevel::kWarning, "insecure", *metrics_warning);
    auto served = resched::server::ServeMetrics(metrics_listen, service.MetricsCollectables());
    if (!served.ok()) {
      Log(LogLevel::kError, "start_failed", served.status().message());
      return 1;
    }
    metrics = *std::move(served);
    Log(LogLevel::kInfo, "metrics", absl::StrCat("metrics at http://", metrics_listen, "/metrics"),
        {{"address", metrics_listen}});
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, credentials, &port);
  // gRPC sets SO_REUSEPORT by default: a second server on a busy port would then start, and the
  // kernel would split clients between two independent states.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  const int max_bytes = config->max_message_bytes() > 0 ? config->max_message_bytes() : 16 << 20;
  builder.SetMaxReceiveMessageSize(max_bytes);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    const std::string reason = resched::server::ListenError(listen);
    Log(LogLevel::kError, "start_failed",
        absl::StrCat("cannot listen on ", listen, reason.empty() ? "" : ": ", reason));
    return 1;
  }
  if (!listen_warning->empty()) Log(LogLevel::kWarning, "insecure", *listen_warning);
  // NOT_SERVING while the journal cannot commit, for Kubernetes' probes and load balancers.
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  service.SetHealthListener([health](bool serving) { health->SetServingStatus(serving); });
  if (http_listen.empty()) http_listen = config->http_listen();
  std::unique_ptr<resched::server::web::HttpView> http_view;
  if (!http_listen.empty()) {
    absl::StatusOr<std::string> http_warning = resched::server::CheckListenSecurity(
        http_listen, {.insecure = insecure, .plain_http = true});
    absl::StatusOr<std::string> access_warning = resched::server::CheckWebViewAccess(
        !tls_files.client_ca.empty(), tokens != nullptr, insecure);
    for (const absl::StatusOr<std::string>* checked : {&http_warning, &access_warning}) {
      if (!checked->ok()) {
        Log(LogLevel::kError, "start_failed",
            absl::StrCat("--http-listen: ", checked->status().message()));
        return 2;
      }
    }
    resched::server::web::HttpView::Options options;
    options.address = http_listen;
    options.channel = server->InProcessChannel({});
    options.metrics = service.MetricsCollectables();
    options.max_body_bytes = static_cast<size_t>(max_bytes);
    options.site.allowed_hosts = http_allowed_hosts;
    absl::StatusOr<std::unique_ptr<resched::server::web::HttpView>> started =
        resched::server::web::HttpView::Start(std::move(options));
    if (!started.ok()) {
      Log(LogLevel::kError, "start_failed", started.status().message());
      return 1;
    }
    http_view = *std::move(started);
    for (const std::string* warning : {&*http_warning, &*access_warning}) {
      if (!warning->empty()) Log(LogLevel::kWarning, "insecure", *warning);
    }
    Log(LogLevel::kInfo, "web_view", absl::StrCat("web view at http://", http_listen, "/"),
        {{"address", http_listen}});
  }
  const char* transport =
      tls_files.client_ca.empty() ? (tls_files.enabled() ? "TLS" : "plaintext") : "mutual TLS";
  Log(LogLevel::kInfo, "listening",
      absl::StrFormat(
          "listening on %s (%s, %d cluster(s)), %s%s", listen, transport, service.ClusterCount(),
          ephemeral ? "ephemeral (nothing kept on disk)" : "data in ", ephemeral ? "" : data_dir),
      {{"address", listen},
       {"transport", transport},
       {"clusters", absl::StrCat(service.ClusterCount())},
       {"data_dir", ephemeral ? "" : data_dir}});

  resched::server::CredentialReloader reloader({tokens_file, service.token_store(), tls},
                                               kCredentialsPoll);
  int sig = 0;
  while ((sig = WaitForSignal()) == SIGHUP) {
    if (tokens_file.empty() && tls == nullptr) {
      Log(LogLevel::kInfo, "reload", "SIGHUP received: no tokens file and no TLS to reload");
      continue;
    }
    Log(LogLevel::kInfo, "reload", "SIGHUP received: reloading the tokens and TLS files");
    reloader.ReloadAll();
  }
  Log(LogLevel::kInfo, "stopping", absl::StrCat(strsignal(sig), " received, shutting down"));
  http_view.reset();  // its event streams are calls on the server
  service.SetHealthListener(nullptr);
  service.BeginShutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  Log(LogLevel::kInfo, "stopped", "stopped");
  return 0;
}
