// What the TLS tests share: certificate files made at test time, and a call over a channel with
// given credentials.
#pragma once

#include <grpcpp/create_channel.h>
#include <stdlib.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "resched/v1/service.grpc.pb.h"
#include "tests/testing/temp_dir.h"
#include "tests/transport/test_certificates.h"
#include "transport/tls_credentials.h"

namespace resched::transport::testing {

using resched::testing::KeyAndCertificate;
using resched::testing::TestCertificateAuthority;
using resched::testing::WriteTestFile;

// Files shared by the fixtures: a server CA and its server certificate, a client CA and its
// client certificate, and a CA that signed neither.
struct TlsMaterial {
  const resched::testing::TempDir temp{"resched-tls"};
  std::string dir = temp.path();
  TestCertificateAuthority server_ca{"resched test server CA"};
  TestCertificateAuthority client_ca{"resched test client CA"};
  TestCertificateAuthority stranger_ca{"someone else's CA"};
  std::string server_ca_pem = WriteTestFile(dir, "server-ca.pem", server_ca.certificate_pem());
  std::string client_ca_pem = WriteTestFile(dir, "client-ca.pem", client_ca.certificate_pem());
  std::string stranger_ca_pem =
      WriteTestFile(dir, "stranger-ca.pem", stranger_ca.certificate_pem());

  // Writes a certificate and its key; returns {certificate path, key path}.
  std::pair<std::string, std::string> Write(const std::string& name, const KeyAndCertificate& c) {
    return {WriteTestFile(dir, name + ".pem", c.certificate_pem),
            WriteTestFile(dir, name + "-key.pem", c.key_pem)};
  }
};

inline grpc::Status ListClusters(const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                                 const std::string& target) {
  auto stub = v1::Resched::NewStub(grpc::CreateChannel(target, credentials));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::ListClustersResponse response;
  return stub->ListClusters(&context, v1::ListClustersRequest(), &response);
}

inline std::shared_ptr<grpc::ChannelCredentials> Channel(const ClientTlsFiles& files) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials(files);
  EXPECT_TRUE(credentials.ok()) << credentials.status();
  return credentials.ok() ? *credentials : grpc::InsecureChannelCredentials();
}

}  // namespace resched::transport::testing
