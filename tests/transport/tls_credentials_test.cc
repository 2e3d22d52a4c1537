// TLS on the real service with gRPC's credentials: the right CA gets through; another CA, a
// plaintext client, an expired server certificate and (for mutual TLS) a missing or foreign
// client certificate do not; `resched health` over TLS; and bad flags named in the errors.
#include "transport/tls_credentials.h"

#include <stdlib.h>

#include <chrono>
#include <sstream>

#include "client/cli.h"
#include "loadgen/runner.h"
#include "tests/server/server_fixture.h"
#include "tests/transport/test_certificates.h"
#include "tests/transport/tls_fixture.h"

namespace resched::transport {
namespace {

using resched::testing::KeyAndCertificate;
using resched::testing::TestCertificateAuthority;
using resched::testing::WriteTestFile;
using testing::Channel;
using testing::ListClusters;
using testing::TlsMaterial;

class TlsServerTest : public server::testing::ServerTest {
 protected:
  std::shared_ptr<grpc::ServerCredentials> ServerCredentials() override {
    const auto [cert, key] = tls_.Write("server", ServerCertificate());
    ServerTlsFiles files{cert, key, MutualTls() ? tls_.client_ca_pem : ""};
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
        MakeServerCredentials(files);
    EXPECT_TRUE(credentials.ok()) << credentials.status();
    return credentials.ok() ? *credentials : grpc::InsecureServerCredentials();
  }
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() override {
    return Channel({tls_.server_ca_pem, "", ""});
  }
  virtual KeyAndCertificate ServerCertificate() { return tls_.server_ca.Issue("resched-server"); }
  virtual bool MutualTls() { return false; }

  TlsMaterial tls_;
};

TEST_F(TlsServerTest, AClientTrustingTheServersCaIsServed) {
  EXPECT_OK(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_));
}

TEST_F(TlsServerTest, AClientTrustingAnotherCaIsRefused) {
  EXPECT_EQ(ListClusters(Channel({tls_.stranger_ca_pem, "", ""}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsServerTest, APlaintextClientIsRefused) {
  EXPECT_EQ(ListClusters(grpc::InsecureChannelCredentials(), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsServerTest, TheCliChecksHealthOverTls) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(
      cli::RunCli({"--tls-ca", tls_.server_ca_pem, "health"}, cli::OpenChannel, target_, out, err),
      0)
      << err.str();
  EXPECT_EQ(out.str(), "SERVING\n");
  // Without --tls-ca the CLI speaks plaintext, which the server refuses.
  std::ostringstream plain_out;
  std::ostringstream plain_err;
  EXPECT_EQ(cli::RunCli({"health"}, cli::OpenChannel, target_, plain_out, plain_err), 1);
  EXPECT_NE(plain_err.str().find("UNAVAILABLE"), std::string::npos) << plain_err.str();
}

TEST_F(TlsServerTest, TheLoadGeneratorRunsOverTls) {
  loadgen::Options options;
  options.target = target_;
  options.tls.ca = tls_.server_ca_pem;
  options.clients = 2;
  options.clusters = 1;
  options.count = 20;
  options.health_baseline = 3;
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  ASSERT_OK(result);
  ASSERT_FALSE(result->ops.empty());
  const loadgen::OpSummary& all = result->ops.back();
  EXPECT_EQ(all.calls, 20);
  EXPECT_TRUE(all.errors.empty());
  options.tls = {};  // plaintext against a TLS server: the cluster cannot even be created
  EXPECT_EQ(loadgen::Run(options, progress).status().code(), absl::StatusCode::kUnavailable);
}

class ExpiredCertificateTest : public TlsServerTest {
 protected:
  KeyAndCertificate ServerCertificate() override {
    return tls_.server_ca.Issue("resched-server", -std::chrono::hours(48), -std::chrono::hours(24));
  }
};

TEST_F(ExpiredCertificateTest, ClientsRefuseAnExpiredServerCertificate) {
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

class MutualTlsTest : public TlsServerTest {
 protected:
  bool MutualTls() override { return true; }
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() override {
    const auto [cert, key] = tls_.Write("client", tls_.client_ca.Issue("workflow-engine"));
    return Channel({tls_.server_ca_pem, cert, key});
  }
};

TEST_F(MutualTlsTest, AClientWithACertificateOfTheClientCaIsServed) {
  EXPECT_OK(ListClusters(ChannelCredentials(), target_));
}

// What a container's HEALTHCHECK runs: the bare command, its TLS files in the environment.
TEST_F(MutualTlsTest, TheCliTakesItsTlsFilesFromTheEnvironment) {
  const auto [cert, key] = tls_.Write("probe", tls_.client_ca.Issue("health-probe"));
  ASSERT_EQ(setenv("RESCHED_TLS_CA", tls_.server_ca_pem.c_str(), 1), 0);
  ASSERT_EQ(setenv("RESCHED_TLS_CERT", cert.c_str(), 1), 0);
  ASSERT_EQ(setenv("RESCHED_TLS_KEY", key.c_str(), 1), 0);
  std::ostringstream out;
  std::ostringstream err;
  const int served = cli::RunCli({"health"}, cli::OpenChannel, target_, out, err);
  // A flag wins over its variable: a CA that did not sign the server's certificate.
  std::ostringstream flag_out;
  std::ostringstream flag_err;
  const int refused = cli::RunCli({"--tls-ca", tls_.stranger_ca_pem, "health"}, cli::OpenChannel,
                                  target_, flag_out, flag_err);
  unsetenv("RESCHED_TLS_CA");
  unsetenv("RESCHED_TLS_CERT");
  unsetenv("RESCHED_TLS_KEY");
  EXPECT_EQ(served, 0) << err.str();
  EXPECT_EQ(out.str(), "SERVING\n");
  EXPECT_EQ(refused, 1);
  EXPECT_NE(flag_err.str().find("UNAVAILABLE"), std::string::npos) << flag_err.str();
}

TEST_F(MutualTlsTest, AClientWithoutACertificateIsRefused) {
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, "", ""}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST_F(MutualTlsTest, AClientCertificateOfAnotherCaIsRefused) {
  const auto [cert, key] = tls_.Write("stranger", tls_.stranger_ca.Issue("intruder"));
  EXPECT_EQ(ListClusters(Channel({tls_.server_ca_pem, cert, key}), target_).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

TEST(TlsFlagsTest, BadFilesAreNamedByTheirFlag) {
  TlsMaterial tls;
  const auto [cert, key] = tls.Write("server", tls.server_ca.Issue("resched-server"));
  const std::string not_pem = WriteTestFile(tls.dir, "notes.txt", "not a certificate\n");
  auto server_error = [](const ServerTlsFiles& files) {
    return std::string(MakeServerCredentials(files).status().message());
  };
  auto client_error = [](const ClientTlsFiles& files) {
    return std::string(MakeChannelCredentials(files).status().message());
  };
  EXPECT_EQ(server_error({cert, tls.dir + "/missing.pem", ""}),
            "--tls-key: cannot read '" + tls.dir + "/missing.pem': No such file or directory");
  EXPECT_EQ(server_error({not_pem, key, ""}),
            "--tls-cert: '" + not_pem + "' holds no PEM block (-----BEGIN ...)");
  EXPECT_EQ(server_error({cert, "", ""}),
            "--tls-cert needs --tls-key (the certificate's private key)");
  EXPECT_EQ(server_error({"", "", tls.client_ca_pem}),
            "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)");
  EXPECT_EQ(server_error({cert, key, not_pem}),
            "--tls-client-ca: '" + not_pem + "' holds no PEM block (-----BEGIN ...)");
  EXPECT_EQ(client_error({not_pem, "", ""}),
            "--tls-ca: '" + not_pem + "' holds no PEM block (-----BEGIN ...)");
  EXPECT_EQ(client_error({tls.server_ca_pem, "", key}),
            "--tls-key needs --tls-cert (the certificate it belongs to)");
  // A key of another certificate: said so, where gRPC would only fail to listen.
  const auto [other_cert, other_key] = tls.Write("other", tls.server_ca.Issue("someone-else"));
  EXPECT_EQ(server_error({cert, other_key, ""}),
            "--tls-key: '" + other_key +
                "' is not the private key of the certificate in "
                "--tls-cert '" +
                cert + "'");
  EXPECT_EQ(client_error({tls.server_ca_pem, other_cert, key}),
            "--tls-key: '" + key + "' is not the private key of the certificate in --tls-cert '" +
                other_cert + "'");
  EXPECT_TRUE(MakeServerCredentials({}).ok());  // no flag: plaintext
  EXPECT_TRUE(MakeChannelCredentials({}).ok());
}

TEST(TlsFlagsTest, TheCliReportsAnUnreadableCaFile) {
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(cli::RunCli({"--tls-ca", "/nonexistent/ca.pem", "cluster", "list"}, cli::OpenChannel,
                        "127.0.0.1:1", out, err),
            1);
  EXPECT_EQ(err.str(),
            "error: --tls-ca: cannot read '/nonexistent/ca.pem': No such file or directory\n");
}

}  // namespace
}  // namespace resched::transport
