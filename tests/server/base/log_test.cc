// The server's log lines: text and JSON, the W3C trace id taken from a call's traceparent, and
// one line for a failed call through the real server.
#include "server/base/log.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

// Captures the lines while alive; restores the text format and stderr after.
class CapturedLog {
 public:
  explicit CapturedLog(LogFormat format) {
    SetLogFormat(format);
    SetLogSinkForTest([this](const std::string& line) {
      std::lock_guard lock(mu_);
      lines_.push_back(line);
    });
  }
  ~CapturedLog() {
    SetLogSinkForTest(nullptr);
    SetLogFormat(LogFormat::kText);
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

constexpr char kTraceparent[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(LogTest, TextAndJsonLines) {
  {
    CapturedLog log(LogFormat::kText);
    Log(LogLevel::kInfo, "snapshot", "snapshot of cluster 'c'", {{"cluster", "c"}});
    Log(LogLevel::kWarning, "call_failed", "GetJob failed", {{"trace_id", "abc"}});
    const std::vector<std::string> lines = log.lines();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "resched-server: snapshot of cluster 'c'");
    EXPECT_EQ(lines[1], "resched-server: GetJob failed [trace abc]");
  }
  CapturedLog log(LogFormat::kJson);
  Log(LogLevel::kError, "start_failed", "cannot listen", {{"address", "h:1"}});
  const std::vector<std::string> lines = log.lines();
  ASSERT_EQ(lines.size(), 1u);
  const nlohmann::json line = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(line["level"], "error");
  EXPECT_EQ(line["event"], "start_failed");
  EXPECT_EQ(line["message"], "cannot listen");
  EXPECT_EQ(line["address"], "h:1");
  EXPECT_EQ(line["time"].get<std::string>().size(),
            std::string("2026-11-25T05:15:00.000000Z").size());
}

TEST_F(ServerTest, AFailedCallLogsOneLineWithItsTraceId) {
  CapturedLog log(LogFormat::kJson);
  pb::GetJobRequest request;
  request.set_cluster("default");
  request.set_id("j404");
  pb::Job job;
  grpc::ClientContext context;
  context.AddMetadata("traceparent", kTraceparent);
  EXPECT_EQ(stub_->GetJob(&context, request, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  pb::GetClusterRequest fine;
  fine.set_name("default");
  pb::Cluster cluster;
  grpc::ClientContext ok_context;
  ASSERT_OK(stub_->GetCluster(&ok_context, fine, &cluster));
  std::vector<nlohmann::json> failed;
  for (const std::string& line : log.lines()) {
    const nlohmann::json parsed = nlohmann::json::parse(line);
    if (parsed["event"] == "call_failed") failed.push_back(parsed);
  }
  ASSERT_EQ(failed.size(), 1u) << "one line for the failed call, none for the good one";
  EXPECT_EQ(failed[0]["method"], "GetJob");
  EXPECT_EQ(failed[0]["code"], "NOT_FOUND");
  EXPECT_EQ(failed[0]["trace_id"], "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(failed[0]["level"], "warning");
}

}  // namespace
}  // namespace resched::server::testing
