// resched-server: the scheduling service. Flags: --help (server/process/server_options.h).
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/auth/tenant_limits.h"
#include "server/auth/tokens.h"
#include "server/base/log.h"
#include "server/process/config.h"
#include "server/process/credential_reloader.h"
#include "server/process/listen_error.h"
#include "server/process/listen_security.h"
#include "server/process/metrics_endpoint.h"
#include "server/process/process_settings.h"
#include "server/process/server_options.h"
#include "server/process/spread_coordinator.h"
#include "server/process/tracing_settings.h"
#include "server/rpc/forwarder.h"
#include "server/rpc/service.h"
#include "server/trace/otlp_http_exporter.h"
#include "server/web/http_view.h"
#include "transport/reloadable_server_tls.h"
#include "transport/tls_credentials.h"

namespace {

using resched::server::Log;
using resched::server::LogLevel;

// With --store etcd: the coordinator of the clusters spread over the replicas, once it exists, for
// the store's thread that finds clusters lost.
std::atomic<resched::server::SpreadCoordinator*> coordinator_for_losses{nullptr};

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

  absl::StatusOr<resched::server::CommandLine> command_line =
      resched::server::ParseCommandLine(argc, argv);
  if (!command_line.ok()) {
    std::fprintf(stderr, "resched-server: %s\n",
                 std::string(command_line.status().message()).c_str());
    return 2;
  }
  if (command_line->help) {
    std::fputs(resched::server::kServerUsage, stdout);
    return 0;
  }
  if (command_line->print_config) {
    std::fputs(resched::server::kDefaultConfigYaml, stdout);
    return 0;
  }
  const resched::server::ServerFlags& flags = command_line->flags;
  absl::StatusOr<resched::v1::ServerConfig> file =
      flags.config.empty() ? resched::server::ParseConfig(resched::server::kDefaultConfigYaml)
                           : resched::server::LoadConfigFile(flags.config);
  if (!file.ok()) {
    std::fprintf(stderr, "resched-server: %s\n", std::string(file.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<resched::server::ServerOptions> resolved =
      resched::server::ResolveServerOptions(flags, *std::move(file), [](const char* name) {
        const char* value = std::getenv(name);
        return std::string(value == nullptr ? "" : value);
      });
  if (!resolved.ok()) {
    std::fprintf(stderr, "resched-server: %s\n", std::string(resolved.status().message()).c_str());
    return 2;
  }
  const resched::server::ServerOptions& options = *resolved;
  resched::server::SetLogFormat(options.log_format);
  const std::string& listen = options.listen;
  const std::string& data_dir = options.data_dir;
  const resched::transport::ServerTlsFiles& tls_files = options.tls;
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
  if (!options.tokens_file.empty()) {
    absl::StatusOr<resched::server::auth::TokenTable> loaded =
        resched::server::auth::TokenTable::Load(options.tokens_file);
    if (!loaded.ok()) {
      std::fprintf(stderr, "resched-server: --tokens-file: %s\n",
                   std::string(loaded.status().message()).c_str());
      return 2;
    }
    tokens = std::make_shared<const resched::server::auth::TokenTable>(*std::move(loaded));
  }
  absl::StatusOr<std::string> listen_warning = resched::server::CheckListenSecurity(
      listen,
      {.tls = tls_files.enabled(), .tokens = tokens != nullptr, .insecure = options.insecure});
  if (!listen_warning.ok()) {
    std::fprintf(stderr, "resched-server: %s\n",
                 std::string(listen_warning.status().message()).c_str());
    return 2;
  }
  const resched::v1::ServerConfig& config = options.config;
  resched::server::Application app(resched::server::LimitsFrom(config));
  if (tokens != nullptr) app.RequireTokens(tokens);
  absl::StatusOr<resched::server::auth::TenantLimits> tenant_limits =
      resched::server::auth::TenantLimits::FromConfig(config);
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
    app.SetTenantLimits(
        std::make_shared<const resched::server::auth::TenantLimits>(*std::move(tenant_limits)));
  }
  if (const resched::server::TracingSettings& tracing = options.tracing;
      !tracing.traces_url.empty()) {
    resched::server::trace::OtlpHttpOptions otlp;
    otlp.url = tracing.traces_url;
    otlp.service_name = tracing.service_name;
    otlp.headers = tracing.headers;
    auto exporter = resched::server::trace::OtlpHttpExporter::Create(otlp);
    if (!exporter.ok()) {
      std::fprintf(stderr, "resched-server: %s\n",
                   std::string(exporter.status().message()).c_str());
      return 2;
    }
    resched::server::trace::TracerOptions tracer;
    tracer.sample_ratio = tracing.sample_ratio;
    app.EnableTracing(*std::move(exporter), tracer);
    Log(LogLevel::kInfo, "tracing",
        absl::StrFormat("traces to %s (sampling %g of the calls whose caller did not decide)",
                        otlp.url, tracer.sample_ratio),
        {{"url", otlp.url}, {"sample_ratio", absl::StrCat(tracer.sample_ratio)}});
  }
  // A data directory that already holds a journal keeps its clusters; the configuration's are
  // created in a new one only.
  bool fresh = true;
  // With etcd: clusters spread over the replicas, each served by one, the others forwarding
  // its calls there (docs/ha.md).
  resched::server::EtcdJournalStore* etcd_store = nullptr;  // the application's journal owns it
  std::unique_ptr<resched::server::SpreadCoordinator> coordinator;
  std::unique_ptr<resched::server::Forwarder> forwarder;
  if (options.store.etcd) {
    resched::server::StoreSettings store = options.store;
    if (absl::Status read = resched::server::ReadEtcdPassword(store); !read.ok()) {
      Log(LogLevel::kError, "start_failed", read.message());
      return 2;
    }
    store.etcd_options.on_clusters_lost = [](const std::vector<std::string>& lost) {
      if (resched::server::SpreadCoordinator* c = coordinator_for_losses.load()) c->Lost(lost);
    };
    absl::StatusOr<std::unique_ptr<resched::server::EtcdJournalStore>> etcd =
        resched::server::EtcdJournalStore::Connect(std::move(store.etcd_options));
    if (!etcd.ok()) {
      Log(LogLevel::kError, "start_failed", etcd.status().message());
      return 1;
    }
    etcd_store = etcd->get();
    // A new cluster is this replica's from its creation; a deleted one leaves the directory.
    resched::server::ClusterClaims claims;
    claims.claim_new = [etcd_store](const std::string& name) -> absl::StatusOr<std::int64_t> {
      absl::Status claimed = etcd_store->Acquire(name, /*create=*/true);
      if (absl::IsFailedPrecondition(claimed)) {
        return absl::AlreadyExistsError(
            absl::StrCat("cluster '", name, "' already exists (", claimed.message(), ")"));
      }
      if (!claimed.ok()) return claimed;
      return etcd_store->LastRecordLsn(name);
    };
    claims.forget = [etcd_store](const std::string& name) { (void)etcd_store->Forget(name); };
    if (absl::Status opened = app.OpenSpreadStore(*std::move(etcd), std::move(claims));
        !opened.ok()) {
      Log(LogLevel::kError, "start_failed", opened.message());
      return 1;
    }
    coordinator = std::make_unique<resched::server::SpreadCoordinator>(*etcd_store, app);
    coordinator_for_losses = coordinator.get();
    // The other replicas listen as this one does: with TLS, this replica's certificate is its
    // client certificate, and --peer-tls-ca (else the client CA, else the system's roots)
    // verifies theirs.
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> peers =
        resched::transport::MakeChannelCredentials(
            {.ca = !options.peer_tls_ca.empty() ? options.peer_tls_ca : tls_files.client_ca,
             .cert = tls_files.cert,
             .key = tls_files.key});
    if (!peers.ok()) {
      Log(LogLevel::kError, "start_failed", peers.status().message());
      return 2;
    }
    forwarder = std::make_unique<resched::server::Forwarder>(etcd_store->replica_id(), *peers);
  } else if (!options.ephemeral) {
    absl::StatusOr<bool> opened = app.OpenDataDir(
        data_dir,
        resched::server::JournalOpenOptions{.accept_data_loss = options.accept_data_loss});
    if (!opened.ok()) {
      Log(LogLevel::kError, "start_failed", opened.status().message(), {{"data_dir", data_dir}});
      return 1;
    }
    fresh = *opened;
  }
  if (!options.audit_log.empty()) {
    resched::server::auth::AuditLogOptions audit_options;
    audit_options.path = options.audit_log;
    if (config.audit_log_max_bytes() != 0) audit_options.max_bytes = config.audit_log_max_bytes();
    if (config.audit_log_max_files() != 0) audit_options.max_files = config.audit_log_max_files();
    absl::StatusOr<std::unique_ptr<resched::server::auth::AuditLog>> audit =
        resched::server::auth::AuditLog::Open(audit_options);
    if (!audit.ok()) {
      Log(LogLevel::kError, "start_failed", audit.status().message());
      return 1;
    }
    app.EnableAudit(*std::move(audit));
  }
  if (fresh && !options.store.etcd) {
    if (auto status = app.CreateConfiguredClusters(config); !status.ok()) {
      Log(LogLevel::kError, "start_failed", absl::StrCat("config: ", status.message()));
      return 2;
    }
  }

  const std::string& metrics_listen = options.metrics_listen;
  std::unique_ptr<prometheus::Exposer> metrics;
  if (!metrics_listen.empty()) {
    absl::StatusOr<std::string> metrics_warning = resched::server::CheckListenSecurity(
        metrics_listen,
        {.insecure = options.insecure || options.metrics_insecure, .metrics = true});
    if (!metrics_warning.ok()) {
      Log(LogLevel::kError, "start_failed",
          absl::StrCat("--metrics-listen: ", metrics_warning.status().message()));
      return 2;
    }
    if (!metrics_warning->empty()) Log(LogLevel::kWarning, "insecure", *metrics_warning);
    auto served = resched::server::ServeMetrics(metrics_listen, app.MetricsCollectables());
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
  const int max_bytes = options.max_message_bytes;
  builder.SetMaxReceiveMessageSize(max_bytes);
  resched::server::ReschedService service(app, coordinator.get(), forwarder.get());
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
  app.SetHealthListener([health](bool serving) { health->SetServingStatus(serving); });
  const std::string& http_listen = options.http_listen;
  std::unique_ptr<resched::server::web::HttpView> http_view;
  if (!http_listen.empty()) {
    absl::StatusOr<std::string> http_warning = resched::server::CheckListenSecurity(
        http_listen, {.insecure = options.insecure, .plain_http = true});
    absl::StatusOr<std::string> access_warning = resched::server::CheckWebViewAccess(
        !tls_files.client_ca.empty(), tokens != nullptr, options.insecure);
    for (const absl::StatusOr<std::string>* checked : {&http_warning, &access_warning}) {
      if (!checked->ok()) {
        Log(LogLevel::kError, "start_failed",
            absl::StrCat("--http-listen: ", checked->status().message()));
        return 2;
      }
    }
    resched::server::web::HttpView::Options view;
    view.address = http_listen;
    view.channel = server->InProcessChannel({});
    view.watches = &service.watches();
    view.metrics = app.MetricsCollectables();
    view.max_body_bytes = static_cast<size_t>(max_bytes);
    view.site.allowed_hosts = options.http_allowed_hosts;
    absl::StatusOr<std::unique_ptr<resched::server::web::HttpView>> started =
        resched::server::web::HttpView::Start(std::move(view));
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
  if (etcd_store != nullptr) {
    const std::string address =
        resched::server::AdvertisedAddress(options.store.advertise_address, listen, port);
    if (absl::Status published = etcd_store->Publish(address); !published.ok()) {
      Log(LogLevel::kError, "start_failed", published.message());
      return 1;
    }
    // The configuration's clusters, until etcd says they were all created once: those a replica
    // starting beside this one, or a start of this one cut short, created are left as they are.
    absl::StatusOr<bool> configured = etcd_store->Configured();
    if (!configured.ok()) {
      Log(LogLevel::kError, "start_failed", configured.status().message());
      return 1;
    }
    if (!*configured) {
      if (absl::Status created = app.CreateConfiguredClusters(config, /*skip_existing=*/true);
          !created.ok()) {
        Log(LogLevel::kError, "start_failed", absl::StrCat("config: ", created.message()));
        return 2;
      }
      if (absl::Status marked = etcd_store->MarkConfigured(); !marked.ok()) {
        Log(LogLevel::kError, "start_failed", marked.message());
        return 1;
      }
    }
    coordinator->Start();
    Log(LogLevel::kInfo, "listening",
        absl::StrFormat("listening on %s (%s) as replica %s, reached at %s; journal in the %s",
                        listen, transport, etcd_store->replica_id(), address, etcd_store->name()),
        {{"address", listen},
         {"transport", transport},
         {"replica", etcd_store->replica_id()},
         {"advertised", address},
         {"journal", etcd_store->location()}});
  } else {
    Log(LogLevel::kInfo, "listening",
        absl::StrFormat("listening on %s (%s, %d cluster(s)), %s", listen, transport,
                        app.ClusterCount(),
                        options.ephemeral ? std::string("ephemeral (nothing kept on disk)")
                                          : absl::StrCat("data in ", data_dir)),
        {{"address", listen},
         {"transport", transport},
         {"clusters", absl::StrCat(app.ClusterCount())},
         {"journal", app.journal() != nullptr ? app.journal()->location() : std::string()}});
  }

  resched::server::CredentialReloader reloader({options.tokens_file, app.token_store(), tls},
                                               kCredentialsPoll);
  int sig = 0;
  while ((sig = WaitForSignal()) == SIGHUP) {
    if (options.tokens_file.empty() && tls == nullptr) {
      Log(LogLevel::kInfo, "reload", "SIGHUP received: no tokens file and no TLS to reload");
      continue;
    }
    Log(LogLevel::kInfo, "reload", "SIGHUP received: reloading the tokens and TLS files");
    reloader.ReloadAll();
  }
  Log(LogLevel::kInfo, "stopping", absl::StrCat(strsignal(sig), " received, shutting down"));
  if (coordinator != nullptr) coordinator->Stop();
  http_view.reset();  // its event streams are calls on the server
  app.SetHealthListener(nullptr);
  app.BeginShutdown();
  service.BeginShutdown();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  Log(LogLevel::kInfo, "stopped", "stopped");
  coordinator_for_losses = nullptr;
  return 0;
}
