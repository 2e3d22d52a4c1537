#include "transport/reloadable_server_tls.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace resched::transport {

// std::mutex rather than absl::Mutex, which ThreadSanitizer cannot see in Debian's Abseil.
struct ReloadableServerTls::State {
  std::mutex mu;
  ServerTlsMaterial material;    // guarded by mu
  std::uint64_t generation = 1;  // guarded by mu; bumped by every successful Reload
};

namespace {

// What one C credentials object's fetcher reads: the shared state, and the generation it last
// handed to gRPC.
struct FetchTarget {
  std::shared_ptr<ReloadableServerTls::State> state;
  std::uint64_t served = 0;  // guarded by state->mu
};

// gRPC's C credentials give no hook to free their fetcher's data, and a listener may hold them
// past any C++ owner: the targets live for the process (a few per process, one per port).
std::vector<std::unique_ptr<FetchTarget>>& Targets() {
  static auto* targets = new std::vector<std::unique_ptr<FetchTarget>>();
  return *targets;
}
std::mutex& TargetsMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}

grpc_ssl_certificate_config_reload_status FetchConfig(void* user_data,
                                                      grpc_ssl_server_certificate_config** config) {
  auto* target = static_cast<FetchTarget*>(user_data);
  ReloadableServerTls::State& state = *target->state;
  const std::lock_guard<std::mutex> lock(state.mu);
  if (target->served == state.generation) return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
  const ServerTlsMaterial& material = state.material;
  const grpc_ssl_pem_key_cert_pair pair{material.key.c_str(), material.cert.c_str()};
  // gRPC needs roots for client certificates in a fetched config even when it requests none.
  // Without mutual TLS the server's own chain stands in; no client is ever checked against it.
  const std::string& client_roots = material.client_ca.empty() ? material.cert : material.client_ca;
  *config = grpc_ssl_server_certificate_config_create(client_roots.c_str(), &pair, 1);
  target->served = state.generation;
  return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
}

// grpc::SslServerCredentials with its certificates fixed at creation is the only SSL server
// credential gRPC's C++ API builds; this one wraps the C credentials that fetch them instead,
// and adds its port as gRPC's own secure credentials do.
class FetchingServerCredentials final : public grpc::ServerCredentials {
 public:
  FetchingServerCredentials(FetchTarget* target, bool require_client_certificate)
      : credentials_(grpc_ssl_server_credentials_create_with_options(
            grpc_ssl_server_credentials_create_options_using_config_fetcher(
                require_client_certificate
                    ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                    : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
                &FetchConfig, target))) {}
  ~FetchingServerCredentials() override { grpc_server_credentials_release(credentials_); }
  FetchingServerCredentials(const FetchingServerCredentials&) = delete;
  FetchingServerCredentials& operator=(const FetchingServerCredentials&) = delete;

  // resched authenticates calls with bearer tokens in its own gate (server/auth/), not with an
  // AuthMetadataProcessor.
  void SetAuthMetadataProcessor(
      const std::shared_ptr<grpc::AuthMetadataProcessor>& /*processor*/) override {}

 private:
  int AddPortToServer(const std::string& addr, grpc_server* server) override {
    return grpc_server_add_http2_port(server, addr.c_str(), credentials_);
  }

  grpc_server_credentials* const credentials_;
};

}  // namespace

ReloadableServerTls::ReloadableServerTls(ServerTlsFiles files, std::shared_ptr<State> state)
    : files_(std::move(files)), state_(std::move(state)) {}

absl::StatusOr<std::unique_ptr<ReloadableServerTls>> ReloadableServerTls::Load(
    const ServerTlsFiles& files) {
  absl::StatusOr<ServerTlsMaterial> material = ReadServerTls(files);
  if (!material.ok()) return material.status();
  auto state = std::make_shared<State>();
  {
    const std::lock_guard<std::mutex> lock(state->mu);
    state->material = *std::move(material);
  }
  return std::unique_ptr<ReloadableServerTls>(new ReloadableServerTls(files, std::move(state)));
}

std::shared_ptr<grpc::ServerCredentials> ReloadableServerTls::credentials() const {
  FetchTarget* target = nullptr;
  {
    const std::lock_guard<std::mutex> lock(TargetsMutex());
    Targets().push_back(std::make_unique<FetchTarget>(FetchTarget{state_, 0}));
    target = Targets().back().get();
  }
  return std::make_shared<FetchingServerCredentials>(target, !files_.client_ca.empty());
}

absl::Status ReloadableServerTls::Reload() {
  absl::StatusOr<ServerTlsMaterial> material = ReadServerTls(files_);
  if (!material.ok()) return material.status();
  const std::lock_guard<std::mutex> lock(state_->mu);
  state_->material = *std::move(material);
  ++state_->generation;
  return absl::OkStatus();
}

}  // namespace resched::transport
