// The tokens and TLS files reloaded while the service runs: a revoked token is refused and a new
// one served after a reload, whether asked for (SIGHUP) or noticed as a change of the file; a
// file that does not load is refused with a log line, once per content, and what is in use
// stays.
#include "server/process/credential_reloader.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "server/base/log.h"
#include "tests/server/tenant_fixture.h"
#include "tests/transport/test_certificates.h"

namespace resched::server::testing {
namespace {

constexpr char kFirstToken[] = "reload-first-token-31a7";
constexpr char kSecondToken[] = "reload-second-token-8c02";

class CredentialReloaderTest : public TokenServerFixture {
 protected:
  void SetUp() override {
    SetLogFormat(LogFormat::kJson);  // whose lines carry the event's name
    SetLogSinkForTest([this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_ += line + "\n";
    });
    TokenServerFixture::SetUp();
    dir_ = ::testing::TempDir() + "/resched_reload_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir_);
    tokens_file_ = WriteTokens(kFirstToken);
  }
  void TearDown() override {
    TokenServerFixture::TearDown();
    SetLogSinkForTest(nullptr);
    SetLogFormat(LogFormat::kText);
    std::filesystem::remove_all(dir_);
  }
  std::string TokensYaml() const override {
    return absl::StrCat("tokens:\n", GrantLine(kFirstToken, "ops", "admin"));
  }

  std::string WriteTokens(const char* token) {
    return WriteFile("tokens.yaml", absl::StrCat("tokens:\n", GrantLine(token, "ops", "admin")));
  }
  // Replaces the file in one step, as Kubernetes updates a mounted Secret, so that a check for
  // changes never reads half of it.
  std::string WriteFile(const std::string& name, const std::string& contents) {
    const std::string staged = resched::testing::WriteTestFile(dir_, name + ".new", contents);
    const std::string path = dir_ + "/" + name;
    std::filesystem::rename(staged, path);
    return path;
  }

  grpc::StatusCode ListAs(const char* token) {
    pb::ListClustersResponse response;
    return Call(token, &pb::Resched::Stub::ListClusters, pb::ListClustersRequest(), &response)
        .error_code();
  }

  int LogLines(const std::string& name) {
    const std::string event = absl::StrCat("\"event\":\"", name, "\"");
    std::lock_guard<std::mutex> lock(log_mu_);
    int lines = 0;
    for (std::size_t at = log_.find(event); at != std::string::npos;
         at = log_.find(event, at + 1)) {
      ++lines;
    }
    return lines;
  }

  std::string Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return log_;
  }

  // Waits (10 s at most) until `done` holds.
  static bool Eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

  std::string dir_;
  std::string tokens_file_;
  std::mutex log_mu_;
  std::string log_;
};

TEST_F(CredentialReloaderTest, AReloadRevokesAndGrantsTokensAndABadFileChangesNothing) {
  CredentialReloader reloader({tokens_file_, app_->token_store(), nullptr}, std::chrono::hours(1));
  ASSERT_EQ(ListAs(kFirstToken), grpc::StatusCode::OK);
  WriteTokens(kSecondToken);
  EXPECT_EQ(ListAs(kSecondToken), grpc::StatusCode::UNAUTHENTICATED);  // not before the reload
  reloader.ReloadAll();
  EXPECT_EQ(ListAs(kFirstToken), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ListAs(kSecondToken), grpc::StatusCode::OK);
  EXPECT_EQ(LogLines("tokens_reloaded"), 1);
  // A file that does not parse: refused, named, and the second token still works.
  WriteFile("tokens.yaml", "tokens:\n  - {sha256: \"not-a-hash\", tenant: ops, role: admin}\n");
  reloader.ReloadAll();
  EXPECT_EQ(ListAs(kSecondToken), grpc::StatusCode::OK);
  EXPECT_EQ(LogLines("tokens_reload_refused"), 1);
  EXPECT_NE(Log().find(absl::StrCat("--tokens-file: ", tokens_file_)), std::string::npos) << Log();
  // A file that is gone for a moment (a rotation in progress): refused as well.
  std::filesystem::remove(tokens_file_);
  reloader.ReloadAll();
  EXPECT_EQ(ListAs(kSecondToken), grpc::StatusCode::OK);
  EXPECT_EQ(LogLines("tokens_reload_refused"), 2);
}

TEST_F(CredentialReloaderTest, AChangedFileIsReloadedWithoutBeingAskedAndLoggedOnce) {
  CredentialReloader reloader({tokens_file_, app_->token_store(), nullptr},
                              std::chrono::milliseconds(20));
  WriteTokens(kSecondToken);
  EXPECT_TRUE(Eventually([&] { return ListAs(kSecondToken) == grpc::StatusCode::OK; }));
  EXPECT_EQ(ListAs(kFirstToken), grpc::StatusCode::UNAUTHENTICATED);
  WriteFile("tokens.yaml", "not: [a tokens file");
  EXPECT_TRUE(Eventually([&] { return LogLines("tokens_reload_refused") == 1; }));
  // The same bad content is not tried, nor logged, again at every check.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(LogLines("tokens_reload_refused"), 1);
  EXPECT_EQ(LogLines("tokens_reloaded"), 1);
  EXPECT_EQ(ListAs(kSecondToken), grpc::StatusCode::OK);
}

TEST_F(CredentialReloaderTest, TlsFilesThatChangeAreReloadedAndBadOnesRefused) {
  const resched::testing::TestCertificateAuthority ca("resched reload test CA");
  const resched::testing::KeyAndCertificate first = ca.Issue("resched-server");
  const std::string cert = WriteFile("tls.crt", first.certificate_pem);
  const std::string key = WriteFile("tls.key", first.key_pem);
  absl::StatusOr<std::unique_ptr<transport::ReloadableServerTls>> tls =
      transport::ReloadableServerTls::Load({cert, key, ""});
  ASSERT_OK(tls);
  CredentialReloader reloader({"", nullptr, std::shared_ptr(*std::move(tls))},
                              std::chrono::milliseconds(20));
  const resched::testing::KeyAndCertificate second = ca.Issue("resched-server");
  WriteFile("tls.crt", second.certificate_pem);
  WriteFile("tls.key", second.key_pem);
  // The two files change one after the other: a check between them may refuse the pair.
  EXPECT_TRUE(Eventually([&] { return LogLines("tls_reloaded") == 1; }));
  const int refused = LogLines("tls_reload_refused");
  // A key that is not the certificate's.
  WriteFile("tls.key", first.key_pem);
  EXPECT_TRUE(Eventually([&] { return LogLines("tls_reload_refused") == refused + 1; }));
  EXPECT_NE(Log().find(absl::StrCat("--tls-key: '", key, "' is not the private key")),
            std::string::npos)
      << Log();
}

}  // namespace
}  // namespace resched::server::testing
