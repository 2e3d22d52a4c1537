// resched-loadgen against a real in-process server: a closed-loop run of a mixed workload makes
// exactly the calls asked for, every kind of them, and the server holds the jobs submitted; an
// open-loop run keeps to its rate; the JSON report parses and carries the figures; given several
// targets, the calls reach the one that serves.
#include "loadgen/runner.h"

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "loadgen/report.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

using loadgen::Op;

// Through the fixture's real server on loopback.
class LoadgenTest : public ServerTest {};

loadgen::Options MixedLoad(const std::string& target) {
  loadgen::Options options;
  options.target = target;
  options.clients = 4;
  options.count = 400;
  options.clusters = 2;
  options.processors = 16;
  options.health_baseline = 20;
  for (const auto& [op, name] : loadgen::OpNames()) options.mix[op] = 1;
  options.mix[Op::kSubmit] = 6;
  return options;
}

TEST_F(LoadgenTest, ClosedLoopMakesTheCallsAskedFor) {
  loadgen::Options options = MixedLoad(target_);
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  ASSERT_OK(result);
  ASSERT_FALSE(result->ops.empty());
  const loadgen::OpSummary& all = result->ops.back();
  EXPECT_EQ(all.op, "all");
  EXPECT_EQ(all.calls + all.not_made, 400);
  EXPECT_GT(all.p50, 0);
  EXPECT_LE(all.p50, all.p99);
  EXPECT_LE(all.p99, all.max);
  // Every kind of call was made (13 kinds, 400 calls, weights 6:1:...:1).
  EXPECT_EQ(result->ops.size(), loadgen::OpNames().size() + 1);
  ASSERT_EQ(result->baseline.size(), 2u);
  EXPECT_EQ(result->baseline.front().op, "health");
  EXPECT_EQ(result->baseline.front().calls, 20);
  EXPECT_TRUE(result->baseline.front().errors.empty());
  // The submissions that succeeded are on the server, beside the jobs made for cancel and
  // report (named so).
  std::int64_t submitted_ok = 0;
  for (const auto& s : result->ops) {
    if (s.op == "submit" || s.op == "submit-moldable") {
      std::int64_t errors = 0;
      for (const auto& [code, n] : s.errors) errors += n;
      submitted_ok += s.calls - errors;
    }
  }
  std::int64_t jobs = 0;
  for (const char* cluster : {"loadgen-0", "loadgen-1"}) {
    pb::ListJobsRequest request;
    request.set_cluster(cluster);
    request.set_page_size(1000);
    pb::ListJobsResponse listed;
    grpc::ClientContext context;
    ASSERT_OK(stub_->ListJobs(&context, request, &listed));
    for (const pb::Job& job : listed.jobs()) jobs += job.spec().name() != "resched-loadgen-target";
  }
  EXPECT_EQ(jobs, submitted_ok);

  const std::string json = loadgen::JsonReport(options, *result);
  const nlohmann::json parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["clients"], 4);
  EXPECT_EQ(parsed["calls"].back()["call"], "all");
  EXPECT_EQ(
      parsed["calls"].back()["calls"].get<int>() + parsed["calls"].back()["not_made"].get<int>(),
      400);
  EXPECT_EQ(parsed["baseline"][0]["calls"], 20);
  EXPECT_NE(loadgen::TextReport(options, *result).find("p99.9 ms"), std::string::npos);
}

// Cancel and report act on valid targets only (a job of the client's own that has not ended,
// one that runs), so an error in their lines would be the server refusing something valid.
TEST_F(LoadgenTest, CancelAndReportActOnJobsTheyAreValidFor) {
  loadgen::Options options;
  options.target = target_;
  options.clients = 4;
  options.count = 400;
  options.clusters = 2;
  options.processors = 16;
  options.mix = {
      {Op::kCancel, 2}, {Op::kReport, 2}, {Op::kSubmit, 1}, {Op::kAdvance, 1}, {Op::kReserve, 1}};
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  ASSERT_OK(result);
  std::map<std::string, loadgen::OpSummary> by_op;
  for (const loadgen::OpSummary& s : result->ops) by_op[s.op] = s;
  for (const char* op : {"cancel", "report"}) {
    SCOPED_TRACE(op);
    ASSERT_TRUE(by_op.contains(op));
    EXPECT_GT(by_op[op].calls, 50);
    EXPECT_TRUE(by_op[op].errors.empty()) << loadgen::TextReport(options, *result);
    // Made, but for the rare report whose job the plan kept from starting.
    EXPECT_LE(by_op[op].not_made, by_op[op].calls / 10);
  }
}

TEST_F(LoadgenTest, OpenLoopKeepsToItsRate) {
  loadgen::Options options;
  options.target = target_;
  options.clients = 4;
  options.rate = 200;
  options.duration = absl::Seconds(2);
  options.clusters = 1;
  options.mix = {{Op::kGetCluster, 1}};
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  ASSERT_OK(result);
  // 200 calls/s for 2 s, due at fixed instants: 400 calls, give or take the edges.
  EXPECT_NEAR(static_cast<double>(result->ops.back().calls), 400, 8);
  EXPECT_NE(progress.str().find("calls/s"), std::string::npos) << progress.str();
}

TEST_F(LoadgenTest, SeveralTargetsReachTheOneThatServes) {
  // An address where nothing listens first, then the server.
  loadgen::Options options = MixedLoad(absl::StrCat("127.0.0.1:1,", target_));
  options.count = 40;
  options.health_baseline = 0;
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  ASSERT_OK(result);
  ASSERT_FALSE(result->ops.empty());
  EXPECT_EQ(result->ops.back().calls, 40);
  EXPECT_EQ(result->ops.back().errors.count("UNAVAILABLE"), 0u) << progress.str();
  options.target = "127.0.0.1:1,,127.0.0.1:2";
  EXPECT_EQ(loadgen::Run(options, progress).status().message(),
            "--target: an empty server in '127.0.0.1:1,,127.0.0.1:2'");
}

TEST(LoadgenRunTest, AnUnreachableServerIsUnavailable) {
  loadgen::Options options;
  options.target = "127.0.0.1:1";
  options.clusters = 1;
  std::ostringstream progress;
  absl::StatusOr<loadgen::RunResult> result = loadgen::Run(options, progress);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("127.0.0.1:1"), std::string::npos) << result.status();
}

}  // namespace
}  // namespace resched::server::testing
