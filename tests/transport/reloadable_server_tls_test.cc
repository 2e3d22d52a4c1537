// Certificate rotation on the real service: after Reload, new connections get the new
// certificate (and, with mutual TLS, the new client CA); a bad new file is refused with the
// flag named, and the material in use stays.
#include "transport/reloadable_server_tls.h"

#include "tests/server/server_fixture.h"
#include "tests/transport/tls_fixture.h"

namespace resched::transport {
namespace {

using testing::Channel;
using testing::ListClusters;
using testing::TlsMaterial;

class ReloadTlsTest : public server::testing::ServerTest {
 protected:
  std::shared_ptr<grpc::ServerCredentials> ServerCredentials() override {
    std::tie(cert_, key_) = tls_.Write("server", tls_.server_ca.Issue("resched-server"));
    absl::StatusOr<std::unique_ptr<ReloadableServerTls>> loaded =
        ReloadableServerTls::Load({cert_, key_, MutualTls() ? tls_.client_ca_pem : ""});
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (!loaded.ok()) return grpc::InsecureServerCredentials();
    reloadable_ = *std::move(loaded);
    return reloadable_->credentials();
  }
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() override {
    return Channel({tls_.server_ca_pem, "", ""});
  }
  virtual bool MutualTls() { return false; }

  // Replaces the files the server was started with.
  void Overwrite(const std::string& path, const std::string& contents) {
    resched::testing::WriteTestFile(tls_.dir, path.substr(tls_.dir.size() + 1), contents);
  }

  TlsMaterial tls_;
  std::string cert_;
  std::string key_;
  std::unique_ptr<ReloadableServerTls> reloadable_;
};

TEST_F(ReloadTlsTest, ARotatedCertificateIsServedToNewConnectionsAfterReload) {
  ASSERT_OK(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_));
  // The files now hold a certificate of another CA: nothing changes until Reload.
  const resched::testing::KeyAndCertificate next = tls_.stranger_ca.Issue("resched-server");
  Overwrite(cert_, next.certificate_pem);
  Overwrite(key_, next.key_pem);
  EXPECT_EQ(ListClusters(Channel({tls_.stranger_ca_pem, "", ""}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  ASSERT_OK(reloadable_->Reload());
  EXPECT_OK(ListClusters(Channel({tls_.stranger_ca_pem, "", ""}), target_));
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(ReloadTlsTest, ABadNewFileIsRefusedAndTheMaterialInUseStays) {
  // A key that is not the certificate's, as a half-finished rotation leaves it.
  Overwrite(key_, tls_.stranger_ca.Issue("resched-server").key_pem);
  absl::Status refused = reloadable_->Reload();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("--tls-key: '" + key_ + "' is not the private key"),
            std::string::npos)
      << refused;
  EXPECT_OK(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_));
  // A file that is not PEM at all.
  Overwrite(cert_, "not a certificate");
  refused = reloadable_->Reload();
  EXPECT_NE(refused.message().find("--tls-cert: '" + cert_ + "' holds no PEM block"),
            std::string::npos)
      << refused;
  EXPECT_OK(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_));
}

class ReloadMutualTlsTest : public ReloadTlsTest {
 protected:
  bool MutualTls() override { return true; }
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() override {
    const auto [cert, key] = tls_.Write("client", tls_.client_ca.Issue("workflow-engine"));
    return Channel({tls_.server_ca_pem, cert, key});
  }
};

TEST_F(ReloadMutualTlsTest, ARotatedClientCaAdmitsItsClientsAfterReload) {
  const auto [old_cert, old_key] = tls_.Write("old-client", tls_.client_ca.Issue("engine"));
  const auto [new_cert, new_key] = tls_.Write("new-client", tls_.stranger_ca.Issue("engine"));
  ASSERT_OK(ListClusters(Channel({tls_.server_ca_pem, old_cert, old_key}), target_));
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, new_cert, new_key}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  Overwrite(tls_.client_ca_pem, tls_.stranger_ca.certificate_pem());
  ASSERT_OK(reloadable_->Reload());
  EXPECT_OK(ListClusters(Channel({tls_.server_ca_pem, new_cert, new_key}), target_));
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, old_cert, old_key}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // Still mutual TLS: a client without a certificate is refused.
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace resched::transport
