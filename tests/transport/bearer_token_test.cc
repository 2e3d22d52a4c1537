// Bearer tokens from the clients' side: the CLI (--token-file, RESCHED_TOKEN) and the load
// generator send the token with every call, over plaintext and TLS alike, and a server with a
// tokens file serves them; without the token it refuses.
#include "transport/bearer_token.h"

#include <stdlib.h>

#include <sstream>

#include "client/cli.h"
#include "loadgen/runner.h"
#include "server/auth/tokens.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/tokens.h"
#include "tests/transport/test_certificates.h"

namespace resched::transport {
namespace {

constexpr char kToken[] = "workflow-engine-token-31f7";

class TokenServerTest : public server::testing::ServerTest {
 protected:
  void Configure(server::Application& app) override {
    const std::string hex = resched::testing::Sha256Hex(kToken);
    absl::StatusOr<server::auth::TokenTable> tokens = server::auth::TokenTable::Parse(
        absl::StrCat("tokens:\n  - {sha256: \"", hex, "\", tenant: engine, role: admin}\n"));
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    app.RequireTokens(std::make_shared<const server::auth::TokenTable>(*std::move(tokens)));
  }

  int Cli(const std::vector<std::string>& args, std::string* out_text, std::string* err_text) {
    std::ostringstream out;
    std::ostringstream err;
    const int status = cli::RunCli(args, cli::OpenChannel, target_, out, err);
    *out_text = out.str();
    *err_text = err.str();
    return status;
  }

  const resched::testing::TempDir temp_{"resched-token"};
  const std::string dir_ = temp_.path();
};

TEST_F(TokenServerTest, TheCliSendsTheTokenOfItsFileOrEnvironment) {
  const std::string token_file =
      resched::testing::WriteTestFile(dir_, "token", "  " + std::string(kToken) + "\n");
  std::string out;
  std::string err;
  EXPECT_EQ(Cli({"--token-file", token_file, "cluster", "list"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("default"), std::string::npos) << out;
  EXPECT_EQ(Cli({"cluster", "list"}, &out, &err), 1);
  EXPECT_NE(err.find("UNAUTHENTICATED"), std::string::npos) << err;
  EXPECT_EQ(err.find(kToken), std::string::npos);
  setenv("RESCHED_TOKEN", kToken, 1);
  EXPECT_EQ(Cli({"cluster", "list"}, &out, &err), 0) << err;
  unsetenv("RESCHED_TOKEN");
  EXPECT_EQ(Cli({"--token-file", dir_ + "/missing", "cluster", "list"}, &out, &err), 1);
  EXPECT_EQ(err, "error: --token-file: cannot read '" + dir_ + "/missing'\n");
}

TEST_F(TokenServerTest, TheLoadGeneratorSendsTheToken) {
  loadgen::Options options;
  options.target = target_;
  options.clients = 2;
  options.clusters = 1;
  options.count = 10;
  std::ostringstream progress;
  EXPECT_EQ(loadgen::Run(options, progress).status().code(), absl::StatusCode::kUnauthenticated);
  options.token = kToken;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->ops.back().calls, 10);
  EXPECT_TRUE(result->ops.back().errors.empty());
}

TEST(ReadTokenFile, NamesTheFlagAndNeverTheToken) {
  const resched::testing::TempDir temp("resched-token");
  const std::string dir = temp.path();
  const std::string blank = resched::testing::WriteTestFile(dir, "blank", " \n");
  EXPECT_EQ(ReadTokenFile("--token-file", blank).status().message(),
            "--token-file: '" + blank + "' holds no token");
  const std::string good = resched::testing::WriteTestFile(dir, "good", "abc\n");
  absl::StatusOr<std::string> token = ReadTokenFile("--token-file", good);
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(*token, "abc");
}

}  // namespace
}  // namespace resched::transport
