// The metrics endpoint through real HTTP (libcurl) against a durable service: the calls,
// their codes and latencies, planning time, journal commits, the per-cluster gauges and the
// watch streams move as the service is used.
#include <curl/curl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/process/metrics_endpoint.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::testing {
namespace {

std::size_t Append(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// The body of GET url; fails the test on an HTTP error.
std::string Get(const std::string& url) {
  std::string body;
  CURL* curl = curl_easy_init();
  EXPECT_NE(curl, nullptr);
  if (curl == nullptr) return body;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  EXPECT_EQ(code, CURLE_OK) << curl_easy_strerror(code);
  EXPECT_EQ(status, 200);
  return body;
}

// The value of the sample `name` whose labels include every one of `labels` (Prometheus text
// format), or -1 when there is none.
double Sample(const std::string& text, const std::string& name,
              const std::map<std::string, std::string>& labels = {}) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t name_end = line.find_first_of("{ ");
    if (line.substr(0, name_end) != name) continue;
    bool all = true;
    for (const auto& [key, value] : labels) {
      all = all && absl::StrContains(line, absl::StrCat(key, "=\"", value, "\""));
    }
    double v = 0;
    if (all && absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &v)) return v;
  }
  return -1;
}

class MetricsTest : public ServerTest {
 protected:
  MetricsTest() { data_dir_ = temp_.path(); }

  void SetUp() override {
    ServerTest::SetUp();
    auto exposer = ServeMetrics("127.0.0.1:0", app_->MetricsCollectables());
    ASSERT_OK(exposer);
    exposer_ = *std::move(exposer);
    ASSERT_FALSE(exposer_->GetListeningPorts().empty());
    url_ = absl::StrCat("http://127.0.0.1:", exposer_->GetListeningPorts()[0], "/metrics");
  }
  void TearDown() override {
    exposer_.reset();
    ServerTest::TearDown();
  }

  std::unique_ptr<prometheus::Exposer> exposer_;
  std::string url_;
  const resched::testing::TempDir temp_{"resched-metrics"};
};

TEST_F(MetricsTest, ScrapedValuesMoveWithTheCalls) {
  CreateSim("c", 8, "conservative");
  const std::string before = Get(url_);
  EXPECT_EQ(Sample(before, "resched_cluster_queued_jobs", {{"cluster", "c"}}), 0);
  EXPECT_EQ(Sample(before, "resched_cluster_processors", {{"cluster", "c"}}), 8);
  const double created =
      Sample(before, "resched_calls_total", {{"method", "CreateCluster"}, {"code", "OK"}});
  EXPECT_GE(created, 1);

  for (int i = 0; i < 5; ++i) {
    pb::SubmitJobResponse response;
    ASSERT_OK(Submit("c", Rigid(8, 600), &response));
  }
  pb::GetJobRequest missing;
  missing.set_cluster("c");
  missing.set_id("j404");
  pb::Job job;
  grpc::ClientContext context;
  EXPECT_EQ(stub_->GetJob(&context, missing, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  auto stream = Watch("c");
  pb::ScheduleEvent first;
  ASSERT_TRUE(stream->reader->Read(&first));

  const std::string after = Get(url_);
  EXPECT_EQ(Sample(after, "resched_calls_total", {{"method", "SubmitJob"}, {"code", "OK"}}), 5);
  EXPECT_EQ(Sample(after, "resched_call_duration_seconds_count",
                   {{"method", "SubmitJob"}, {"code", "OK"}}),
            5);
  EXPECT_GT(
      Sample(after, "resched_call_duration_seconds_sum", {{"method", "SubmitJob"}, {"code", "OK"}}),
      0);
  EXPECT_EQ(Sample(after, "resched_calls_total", {{"method", "GetJob"}, {"code", "NOT_FOUND"}}), 1);
  // One job runs on all 8 processors; the other four wait.
  EXPECT_EQ(Sample(after, "resched_cluster_running_jobs", {{"cluster", "c"}}), 1);
  EXPECT_EQ(Sample(after, "resched_cluster_queued_jobs", {{"cluster", "c"}}), 4);
  EXPECT_GE(
      Sample(after, "resched_planning_duration_seconds_count", {{"algorithm", "conservative"}}), 5);
  // Durable: every submission was committed, some sharing a transaction.
  const double commits = Sample(after, "resched_journal_commit_duration_seconds_count");
  EXPECT_GE(commits, 1);
  EXPECT_GE(Sample(after, "resched_journal_commit_records_sum"), 6);  // creation + 5 jobs
  EXPECT_EQ(Sample(after, "resched_watch_streams"), 1);

  stream->context.TryCancel();
  (void)Drain(*stream);
  // The stream's end reaches the gauge once gRPC is done with it.
  double watching = 1;
  for (int i = 0; i < 100 && watching != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    watching = Sample(Get(url_), "resched_watch_streams");
  }
  EXPECT_EQ(watching, 0);

  pb::DeleteClusterRequest deleted;
  deleted.set_name("c");
  deleted.set_force(true);
  pb::DeleteClusterResponse gone;
  grpc::ClientContext delete_context;
  ASSERT_OK(stub_->DeleteCluster(&delete_context, deleted, &gone));
  EXPECT_EQ(Sample(Get(url_), "resched_cluster_queued_jobs", {{"cluster", "c"}}), -1)
      << "a deleted cluster's series go with it";
}

TEST_F(MetricsTest, AnAddressInUseIsRefusedNamingIt) {
  const std::string taken = absl::StrCat("127.0.0.1:", exposer_->GetListeningPorts()[0]);
  auto second = ServeMetrics(taken, app_->MetricsCollectables());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find(taken), std::string::npos) << second.status();
}

}  // namespace
}  // namespace resched::server::testing
