// Traces end to end: a durable server exports to an OTLP/HTTP collector stand-in (cpp-httplib),
// and the spans it receives carry the caller's trace, the parent/child links and the
// attributes; a collector that is down or stalled fails no call and its spans are counted as
// dropped.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/trace/otlp_http_exporter.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/free_port.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::testing {
namespace {

constexpr char kTraceId[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char kCallerSpan[] = "00f067aa0ba902b7";

std::string Traceparent(bool sampled) {
  return absl::StrCat("00-", kTraceId, "-", kCallerSpan, sampled ? "-01" : "-00");
}

// Accepts OTLP/HTTP JSON at /v1/traces and keeps every span; can stall its answers.
class Collector {
 public:
  Collector() {
    server_.Post("/v1/traces", [this](const httplib::Request& request, httplib::Response& reply) {
      std::unique_lock lock(mu_);
      unstalled_.wait(lock, [&] { return !stalled_; });
      const nlohmann::json body = nlohmann::json::parse(request.body);
      EXPECT_EQ(request.get_header_value("Content-Type"), "application/json");
      for (const auto& resource : body["resourceSpans"]) {
        EXPECT_EQ(resource["resource"]["attributes"][0]["value"]["stringValue"], "resched-test");
        for (const auto& scope : resource["scopeSpans"]) {
          for (const auto& span : scope["spans"]) spans_.push_back(span);
        }
      }
      reply.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Collector() {
    Unstall();
    server_.stop();
    thread_.join();
  }
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_); }
  void Stall() {
    std::lock_guard lock(mu_);
    stalled_ = true;
  }
  void Unstall() {
    {
      std::lock_guard lock(mu_);
      stalled_ = false;
    }
    unstalled_.notify_all();
  }
  std::vector<nlohmann::json> spans() {
    std::lock_guard lock(mu_);
    return spans_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable unstalled_;
  bool stalled_ = false;
  std::vector<nlohmann::json> spans_;
};

// An attribute's value as OTLP/JSON writes it ("stringValue", "intValue", ...), or null.
nlohmann::json Attribute(const nlohmann::json& span, const std::string& key) {
  for (const auto& attribute : span["attributes"]) {
    if (attribute["key"] == key) return attribute["value"].begin().value();
  }
  return nullptr;
}

// A counter's value in the service's metrics registry.
double Counter(Application& app, const std::string& name) {
  for (const auto& family : app.metrics().registry()->Collect()) {
    if (family.name == name && !family.metric.empty()) return family.metric[0].counter.value;
  }
  return -1;
}

class TraceExportTest : public ServerTest {
 protected:
  // Durable: calls that change a cluster wait for a commit.
  TraceExportTest() { data_dir_ = temp_.path(); }

  void Configure(Application& app) override {
    trace::OtlpHttpOptions otlp;
    otlp.url = trace::OtlpTracesUrl(collector_url_.empty() ? collector_.url() : collector_url_);
    otlp.service_name = "resched-test";
    otlp.timeout = std::chrono::milliseconds(10'000);
    auto exporter = trace::OtlpHttpExporter::Create(otlp);
    ASSERT_OK(exporter);
    app.EnableTracing(*std::move(exporter), tracer_options_);
  }

  // The spans of the caller's trace the collector holds once the server flushed.
  std::vector<nlohmann::json> CallerTrace() {
    app_->FlushTraces();
    std::vector<nlohmann::json> out;
    for (const auto& span : collector_.spans()) {
      if (span["traceId"] == kTraceId) out.push_back(span);
    }
    return out;
  }

  static const nlohmann::json* Named(const std::vector<nlohmann::json>& spans,
                                     const std::string& name) {
    for (const auto& span : spans) {
      if (span["name"] == name) return &span;
    }
    return nullptr;
  }

  Collector collector_;
  std::string collector_url_;  // another collector than collector_ when set
  trace::TracerOptions tracer_options_;
  const resched::testing::TempDir temp_{"resched-trace"};
};

TEST_F(TraceExportTest, EveryCallOnAClusterNamesItIncludingItsCreation) {
  auto traced = [] {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("traceparent", Traceparent(true));
    return context;
  };
  pb::CreateClusterRequest create;
  create.mutable_spec()->set_name("made");
  create.mutable_spec()->set_processors(4);
  create.mutable_spec()->set_clock(pb::SIMULATED);
  pb::Cluster made;
  ASSERT_OK(stub_->CreateCluster(traced().get(), create, &made));
  pb::GetClusterRequest get;
  get.set_name("made");
  pb::Cluster got;
  ASSERT_OK(stub_->GetCluster(traced().get(), get, &got));
  const std::vector<nlohmann::json> spans = CallerTrace();
  for (const char* method : {"CreateCluster", "GetCluster"}) {
    const nlohmann::json* call = Named(spans, absl::StrCat("resched.v1.Resched/", method));
    ASSERT_NE(call, nullptr) << method;
    EXPECT_EQ(Attribute(*call, "resched.cluster"), "made") << method;
  }
}

TEST_F(TraceExportTest, ASubmissionContinuesTheCallersTraceWithItsChildSpans) {
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobRequest request;
  request.set_cluster("sim");
  *request.mutable_job() = Rigid(4, 600);
  pb::SubmitJobResponse response;
  grpc::ClientContext context;
  context.AddMetadata("traceparent", Traceparent(true));
  ASSERT_OK(stub_->SubmitJob(&context, request, &response));
  ExpectValid(Schedule("sim"));

  const std::vector<nlohmann::json> spans = CallerTrace();
  const nlohmann::json* call = Named(spans, "resched.v1.Resched/SubmitJob");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ((*call)["kind"], 2);
  EXPECT_EQ((*call)["parentSpanId"], kCallerSpan);
  EXPECT_EQ(Attribute(*call, "rpc.system"), "grpc");
  EXPECT_EQ(Attribute(*call, "rpc.service"), "resched.v1.Resched");
  EXPECT_EQ(Attribute(*call, "rpc.method"), "SubmitJob");
  EXPECT_EQ(Attribute(*call, "rpc.grpc.status_code"), "0");
  EXPECT_EQ(Attribute(*call, "resched.cluster"), "sim");
  EXPECT_EQ((*call)["status"]["code"], 0);

  // Each child names the call's span as its parent, and lies within it. (No resched.lock_wait:
  // the submission ran on gRPC's thread, which only takes a free lock: server/app/call_context.h.)
  const std::string call_id = (*call)["spanId"];
  for (const char* name : {"resched.validate", "resched.plan", "resched.journal.commit"}) {
    const nlohmann::json* child = Named(spans, name);
    ASSERT_NE(child, nullptr) << name;
    EXPECT_EQ((*child)["parentSpanId"], call_id) << name;
    EXPECT_EQ((*child)["kind"], 1) << name;
    EXPECT_GE(std::stoll((*child)["startTimeUnixNano"].get<std::string>()),
              std::stoll((*call)["startTimeUnixNano"].get<std::string>()))
        << name;
    EXPECT_LE(std::stoll((*child)["endTimeUnixNano"].get<std::string>()),
              std::stoll((*call)["endTimeUnixNano"].get<std::string>()))
        << name;
  }
  const nlohmann::json& plan = *Named(spans, "resched.plan");
  EXPECT_EQ(Attribute(plan, "resched.algorithm"), "conservative");
  EXPECT_EQ(Attribute(plan, "resched.step"), "submit");
  EXPECT_EQ(Attribute(plan, "resched.jobs.queued"), "0");
  EXPECT_EQ(Attribute(plan, "resched.jobs.running"), "0");
  EXPECT_EQ(Attribute(plan, "resched.job.id"), response.job().id());
  EXPECT_EQ(Attribute(plan, "resched.job.state"), "RUNNING");
  EXPECT_EQ(Attribute(plan, "resched.job.processors"), "4");
  EXPECT_TRUE(Attribute(plan, "resched.algorithm.params").is_string());
  EXPECT_TRUE(
      Attribute(*Named(spans, "resched.journal.commit"), "resched.journal.lsn").is_string());
}

// A read, and a change refused before it changed anything, wait for the cluster's last change to
// be durable (they must not show what a crash could lose) but commit nothing: once that change
// is durable they carry no journal span at all, rather than a commit naming its LSN.
TEST_F(TraceExportTest, AReadAndARefusedChangeCarryNoCommitOfAnEarlierChange) {
  CreateSim("sim", 8, "conservative");
  pb::SubmitJobResponse submitted;
  ASSERT_OK(Submit("sim", Rigid(2, 600), &submitted));
  auto traced = [] {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("traceparent", Traceparent(true));
    return context;
  };
  pb::GetJobRequest get;
  get.set_cluster("sim");
  get.set_id(submitted.job().id());
  pb::Job job;
  ASSERT_OK(stub_->GetJob(traced().get(), get, &job));
  pb::CancelJobRequest cancel;
  cancel.set_cluster("sim");
  cancel.set_id("j404");
  EXPECT_EQ(stub_->CancelJob(traced().get(), cancel, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
  const std::vector<nlohmann::json> spans = CallerTrace();
  ASSERT_NE(Named(spans, "resched.v1.Resched/GetJob"), nullptr);
  ASSERT_NE(Named(spans, "resched.v1.Resched/CancelJob"), nullptr);
  EXPECT_EQ(Named(spans, "resched.journal.commit"), nullptr);
  EXPECT_EQ(Named(spans, "resched.journal.wait"), nullptr);
}

// A call that plans on a copy and commits under the lock shows each attempt as a span, its lock
// waits, planning and commit inside it.
TEST_F(TraceExportTest, AReserveDagShowsItsPlanAttempt) {
  CreateSim("sim", 16, "conservative");
  pb::ReserveDAGRequest request;
  request.set_cluster("sim");
  for (const char* name : {"a", "b"}) {
    pb::DagTask* task = request.mutable_dag()->add_tasks();
    task->set_name(name);
    task->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(3600);
  }
  pb::ReserveDAGResponse response;
  grpc::ClientContext context;
  context.AddMetadata("traceparent", Traceparent(true));
  ASSERT_OK(stub_->ReserveDAG(&context, request, &response));
  const std::vector<nlohmann::json> spans = CallerTrace();
  const nlohmann::json* attempt = Named(spans, "resched.plan.attempt");
  ASSERT_NE(attempt, nullptr);
  EXPECT_EQ(Attribute(*attempt, "resched.attempt"), "1");
  EXPECT_EQ((*attempt)["parentSpanId"], (*Named(spans, "resched.v1.Resched/ReserveDAG"))["spanId"]);
  for (const char* name : {"resched.lock_wait", "resched.plan", "resched.journal.commit"}) {
    const nlohmann::json* child = Named(spans, name);
    ASSERT_NE(child, nullptr) << name;
    EXPECT_EQ((*child)["parentSpanId"], (*attempt)["spanId"]) << name;
  }
}

TEST_F(TraceExportTest, AFailedCallsSpanCarriesItsStatus) {
  pb::GetJobRequest request;
  request.set_cluster("default");
  request.set_id("j404");
  pb::Job job;
  grpc::ClientContext context;
  context.AddMetadata("traceparent", Traceparent(true));
  EXPECT_EQ(stub_->GetJob(&context, request, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  const std::vector<nlohmann::json> spans = CallerTrace();
  const nlohmann::json* call = Named(spans, "resched.v1.Resched/GetJob");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ((*call)["status"]["code"], 2);
  EXPECT_EQ((*call)["status"]["message"], "job 'j404' not found");
  EXPECT_EQ(Attribute(*call, "rpc.grpc.status_code"), "5");
}

TEST_F(TraceExportTest, ADagPlannersSpanNamesItsAlgorithmTasksAndAnswer) {
  CreateSim("sim", 16, "conservative");
  pb::QueryDeadlineRequest request;
  request.set_cluster("sim");
  for (const char* name : {"a", "b"}) {
    pb::DagTask* task = request.mutable_dag()->add_tasks();
    task->set_name(name);
    task->mutable_model()->mutable_amdahl()->mutable_t1()->set_seconds(3600);
    task->mutable_model()->mutable_amdahl()->set_alpha(0.1);
  }
  request.mutable_dag()->add_edges()->set_from("a");
  request.mutable_dag()->mutable_edges(0)->set_to("b");
  request.mutable_deadline()->set_seconds(7200);
  request.mutable_algorithm()->set_name("dl_rc_cpar");
  request.set_commit(true);
  pb::QueryDeadlineResponse response;
  grpc::ClientContext context;
  context.AddMetadata("traceparent", Traceparent(true));
  ASSERT_OK(stub_->QueryDeadline(&context, request, &response));
  ASSERT_TRUE(response.feasible());
  ExpectValid(Schedule("sim"));

  const std::vector<nlohmann::json> spans = CallerTrace();
  const nlohmann::json* plan = Named(spans, "resched.plan");
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(Attribute(*plan, "resched.algorithm"), "dl_rc_cpar");
  EXPECT_EQ(Attribute(*plan, "resched.dag.tasks"), "2");
  EXPECT_EQ(Attribute(*plan, "resched.dag.edges"), "1");
  EXPECT_EQ(Attribute(*plan, "resched.deadline.feasible"), true);
  EXPECT_NE(Named(spans, "resched.validate"), nullptr);
  EXPECT_NE(Named(spans, "resched.journal.commit"), nullptr);
}

class UnsampledTraceTest : public TraceExportTest {
 protected:
  UnsampledTraceTest() { tracer_options_.sample_ratio = 0; }
};

TEST_F(UnsampledTraceTest, TheCallersDecisionWinsOverTheRatio) {
  for (const bool sampled : {false, true}) {
    pb::GetClusterRequest request;
    request.set_name("default");
    pb::Cluster cluster;
    grpc::ClientContext context;
    context.AddMetadata("traceparent", Traceparent(sampled));
    ASSERT_OK(stub_->GetCluster(&context, request, &cluster));
  }
  pb::ListClustersRequest list;
  pb::ListClustersResponse clusters;
  grpc::ClientContext context;
  ASSERT_OK(stub_->ListClusters(&context, list, &clusters));  // no caller: ratio 0
  app_->FlushTraces();
  const std::vector<nlohmann::json> all = collector_.spans();
  ASSERT_FALSE(all.empty());
  // Only the sampled caller's call: its server span and its lock wait.
  for (const auto& span : all) EXPECT_EQ(span["traceId"], kTraceId);
  EXPECT_NE(Named(all, "resched.v1.Resched/GetCluster"), nullptr);
  EXPECT_EQ(Named(all, "resched.v1.Resched/ListClusters"), nullptr);
}

class StalledCollectorTest : public TraceExportTest {
 protected:
  StalledCollectorTest() {
    tracer_options_.max_queue = 8;
    tracer_options_.max_batch = 4;
    collector_.Stall();
  }
};

TEST_F(StalledCollectorTest, CallsSucceedAndSpansAreDroppedAndCounted) {
  constexpr int kCalls = 50;
  for (int i = 0; i < kCalls; ++i) {
    pb::GetClusterRequest request;
    request.set_name("default");
    pb::Cluster cluster;
    grpc::ClientContext context;
    ASSERT_OK(stub_->GetCluster(&context, request, &cluster));
  }
  // Each call ends two spans (its own and its lock wait); at most a batch in export and a full
  // queue are kept.
  EXPECT_GE(
      Counter(*app_, "resched_trace_spans_dropped_total"),
      2 * kCalls - static_cast<double>(tracer_options_.max_batch + tracer_options_.max_queue));
  collector_.Unstall();
  app_->FlushTraces();
  EXPECT_GT(Counter(*app_, "resched_trace_spans_exported_total"), 0);
}

class CollectorDownTest : public TraceExportTest {
 protected:
  CollectorDownTest() {
    const int port = resched::testing::FreeLoopbackPort();  // nothing listens there
    EXPECT_NE(port, 0);
    collector_url_ = absl::StrCat("http://127.0.0.1:", port);
  }
};

TEST_F(CollectorDownTest, CallsSucceedAndEverySpanIsCountedAsDropped) {
  for (int i = 0; i < 5; ++i) {
    pb::SubmitJobResponse response;
    ASSERT_OK(Submit("default", Rigid(1, 60), &response));
  }
  app_->FlushTraces();
  EXPECT_EQ(Counter(*app_, "resched_trace_spans_exported_total"), 0);
  // 5 calls of at least 4 spans each (call, validate, plan, commit).
  EXPECT_GE(Counter(*app_, "resched_trace_spans_dropped_total"), 20);
  ExpectValid(Schedule("default"));
}

}  // namespace
}  // namespace resched::server::testing
