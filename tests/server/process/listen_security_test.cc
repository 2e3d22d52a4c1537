// The secure default: loopback always; another address only with TLS and tokens, or with
// --insecure, which is warned about.
#include "server/process/listen_security.h"

#include <gtest/gtest.h>

namespace resched::server {
namespace {

TEST(ListenSecurity, LoopbackNeedsNothing) {
  absl::StatusOr<std::string> warning = CheckListenSecurity("127.0.0.1:50051", {});
  ASSERT_TRUE(warning.ok()) << warning.status();
  EXPECT_EQ(*warning, "");
}

TEST(ListenSecurity, AReachableAddressWithoutProtectionIsRefusedNamingWhatIsMissing) {
  absl::StatusOr<std::string> bare = CheckListenSecurity("0.0.0.0:50051", {});
  EXPECT_EQ(bare.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(bare.status().message(),
            "refusing to listen on 0.0.0.0:50051 without TLS (--tls-cert, --tls-key) and bearer "
            "tokens (--tokens-file): anyone who reaches it could change every cluster. Listen on a "
            "loopback "
            "address (127.0.0.1:PORT), add the missing protection, or pass --insecure to accept "
            "the risk");
  absl::StatusOr<std::string> tls_only = CheckListenSecurity("[::]:50051", {.tls = true});
  EXPECT_EQ(tls_only.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(tls_only.status().message().find("without bearer tokens (--tokens-file):"),
            std::string::npos);
  absl::StatusOr<std::string> tokens_only = CheckListenSecurity("10.1.2.3:50051", {.tokens = true});
  EXPECT_NE(tokens_only.status().message().find("without TLS (--tls-cert, --tls-key):"),
            std::string::npos);
}

TEST(ListenSecurity, TlsAndTokensTogetherServeAnyAddress) {
  absl::StatusOr<std::string> warning =
      CheckListenSecurity("0.0.0.0:50051", {.tls = true, .tokens = true});
  ASSERT_TRUE(warning.ok()) << warning.status();
  EXPECT_EQ(*warning, "");
}

TEST(ListenSecurity, InsecureServesButWarns) {
  absl::StatusOr<std::string> warning =
      CheckListenSecurity("0.0.0.0:50051", {.tls = true, .insecure = true});
  ASSERT_TRUE(warning.ok()) << warning.status();
  EXPECT_EQ(*warning,
            "--insecure: listening on 0.0.0.0:50051 without bearer tokens (--tokens-file): anyone "
            "who reaches "
            "this address can change every cluster");
}

// The web view is plain HTTP: the server's TLS and tokens do not protect it, and the refusal says
// so rather than asking for protections the server already has.
TEST(ListenSecurity, APlainHttpListenerNeedsLoopbackOrInsecureWhateverTheServerHas) {
  EXPECT_EQ(*CheckListenSecurity("127.0.0.1:8080", {.plain_http = true}), "");
  absl::StatusOr<std::string> refused =
      CheckListenSecurity("0.0.0.0:8080", {.tls = true, .tokens = true, .plain_http = true});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("refusing to listen on 0.0.0.0:8080 without TLS (it serves "
                                   "plain HTTP"));
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::Not(::testing::HasSubstr("--tokens-file")));
  absl::StatusOr<std::string> warned =
      CheckListenSecurity("0.0.0.0:8080", {.insecure = true, .plain_http = true});
  ASSERT_TRUE(warned.ok());
  EXPECT_THAT(*warned, ::testing::HasSubstr("--insecure: listening on 0.0.0.0:8080 without TLS"));
}

// Metrics are read-only but unauthenticated: a reachable address needs an explicit choice, which
// TLS and tokens on the gRPC port do not make.
TEST(ListenSecurity, AReachableMetricsListenerNeedsMetricsInsecureWhateverTheServerHas) {
  EXPECT_EQ(*CheckListenSecurity("127.0.0.1:9090", {.metrics = true}), "");
  absl::StatusOr<std::string> refused =
      CheckListenSecurity("0.0.0.0:9090", {.tls = true, .tokens = true, .metrics = true});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("refusing to serve metrics on 0.0.0.0:9090: they are served "
                                   "over plain HTTP without authentication"));
  EXPECT_THAT(std::string(refused.status().message()), ::testing::HasSubstr("--metrics-insecure"));
  absl::StatusOr<std::string> warned =
      CheckListenSecurity("0.0.0.0:9090", {.insecure = true, .metrics = true});
  ASSERT_TRUE(warned.ok());
  EXPECT_THAT(*warned, ::testing::HasSubstr("metrics on 0.0.0.0:9090 over plain HTTP"));
}

// Under mutual TLS without tokens the web view would let anyone past the client certificate.
TEST(ListenSecurity, TheWebViewNeedsTokensOrInsecureWhenGrpcRequiresClientCertificates) {
  EXPECT_EQ(*CheckWebViewAccess(/*client_certificates=*/false, /*tokens=*/false, false), "");
  EXPECT_EQ(*CheckWebViewAccess(/*client_certificates=*/true, /*tokens=*/true, false), "");
  absl::StatusOr<std::string> refused = CheckWebViewAccess(true, false, /*insecure=*/false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("refusing to serve the web view: the gRPC port requires a "
                                   "client certificate (--tls-client-ca) and there is no "
                                   "--tokens-file"));
  absl::StatusOr<std::string> warned = CheckWebViewAccess(true, false, /*insecure=*/true);
  ASSERT_TRUE(warned.ok());
  EXPECT_THAT(*warned, ::testing::HasSubstr("--insecure: the gRPC port requires a client"));
}

}  // namespace
}  // namespace resched::server
