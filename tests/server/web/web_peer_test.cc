// The peer of the web view's calls: the service's audit log names the HTTP client behind a call
// the view made for it, which a client of the gRPC port cannot forge by sending the same
// metadata.
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/auth/audit_log.h"
#include "server/rpc/call_peer.h"
#include "tests/server/web/raw_http.h"
#include "tests/server/web/web_fixture.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::web {
namespace {

class WebPeerTest : public testing::HttpViewTest {
 protected:
  void Configure(Application& app) override {
    absl::StatusOr<std::unique_ptr<auth::AuditLog>> audit =
        auth::AuditLog::Open({.path = audit_path_});
    ASSERT_TRUE(audit.ok()) << audit.status();
    app.EnableAudit(*std::move(audit));
  }

  std::string AuditText() const {
    std::ifstream in(audit_path_);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  const resched::testing::TempDir audit_dir_{"resched-web-peer"};
  const std::string audit_path_ = audit_dir_ / "audit.jsonl";
};

TEST_F(WebPeerTest, AWebCallIsAuditedWithItsHttpClientsAddress) {
  CreateSim("sim", 8, "conservative");
  const std::string body = R"({"model": {"rigid": {"k": 4, "time": "50s"}}})";
  const int sock = testing::ConnectRaw(view_->port(), "127.0.0.2");
  ASSERT_GE(sock, 0);
  ASSERT_TRUE(testing::SendAll(
      sock, absl::StrCat("POST /api/v1/clusters/sim/what-if/job HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Content-Type: application/json\r\nContent-Length: ",
                         body.size(), "\r\nConnection: close\r\n\r\n", body)));
  const std::string answer = testing::ReadRaw(sock, std::chrono::seconds(10));
  close(sock);
  ASSERT_EQ(testing::RawStatus(answer), 200) << answer;
  const std::string audit = AuditText();
  EXPECT_NE(audit.find(R"("peer":"web ipv4:127.0.0.2:)"), std::string::npos) << audit;
}

TEST_F(WebPeerTest, AGrpcClientCannotPassForAWebClient) {
  pb::SubmitJobRequest request;
  request.set_cluster("default");
  *request.mutable_job() = Rigid(1, 60);
  pb::SubmitJobResponse response;
  grpc::ClientContext context;
  context.AddMetadata(kWebPeerMetadata, "ipv4:6.6.6.6:1");
  context.AddMetadata(kWebPeerKeyMetadata, std::string(32, '0'));  // a guess at the key
  ASSERT_OK(stub_->SubmitJob(&context, request, &response));
  const std::string audit = AuditText();
  EXPECT_NE(audit.find(R"("peer":"ipv4:127.0.0.1:)"), std::string::npos) << audit;
  EXPECT_EQ(audit.find("6.6.6.6"), std::string::npos) << audit;
}

}  // namespace
}  // namespace resched::server::web
