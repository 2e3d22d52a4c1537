// The commands end to end against an in-process fake server: the requests they send, what
// they print, and their exit status.
#include "client/cli.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "tests/testing/status.h"
#include "tests/testing/text_proto.h"

namespace resched::cli {
namespace {

using resched::testing::Text;

using grpc::ServerContext;
using grpc::Status;
namespace v1 = resched::v1;

class FakeResched final : public v1::Resched::Service {
 public:
  FakeResched() {
    clusters_["default"] = Text<v1::Cluster>(R"pb(
      spec {
        name: "default"
        processors: 64
        clock: WALL
        policy { name: "conservative" }
      }
      capacity: 64
      now { seconds: 1795341600 }
      queued_jobs: 2
      utilization: 0.25)pb");
    clusters_["sim"] = Text<v1::Cluster>(R"pb(
      spec {
        name: "sim"
        processors: 8
        clock: SIMULATED
        policy { name: "easy" }
      }
      capacity: 8
      now { seconds: 3600 })pb");
  }

  Status GetCluster(ServerContext*, const v1::GetClusterRequest* r, v1::Cluster* out) override {
    auto it = clusters_.find(r->name());
    if (it == clusters_.end()) return Status(grpc::NOT_FOUND, "no cluster \"" + r->name() + "\"");
    *out = it->second;
    return Status::OK;
  }
  Status ListAlgorithms(ServerContext*, const v1::ListAlgorithmsRequest*,
                        v1::ListAlgorithmsResponse* out) override {
    *out = Text<v1::ListAlgorithmsResponse>(R"pb(
      algorithms {
        name: "dl_rc_cpar"
        kind: DAG_PLANNER
        description: "RESSCHEDDL resource-conservative"
        params { name: "lambda" default_value: 1.5 min: 0 max: 1000 }
        params {
          name: "fallback"
          default_value: 2
          min: 0
          max: 2
          integer: true
          choices: [ "none", "cpa-bounded", "widest" ]
        }
      }
    )pb");
    return Status::OK;
  }
  Status ListClusters(ServerContext*, const v1::ListClustersRequest*,
                      v1::ListClustersResponse* out) override {
    for (const auto& [name, c] : clusters_) *out->add_clusters() = c;
    return Status::OK;
  }
  Status CreateCluster(ServerContext*, const v1::CreateClusterRequest* r,
                       v1::Cluster* out) override {
    Record(*r);
    *out->mutable_spec() = r->spec();
    out->set_capacity(r->spec().processors());
    return Status::OK;
  }
  Status SubmitJob(ServerContext*, const v1::SubmitJobRequest* r,
                   v1::SubmitJobResponse* out) override {
    Record(*r);
    if (r->job().name() == "during-a-takeover") {
      // Twice UNAVAILABLE (a takeover), then the first try turns out applied: ALREADY_EXISTS
      // with the first answer, for the same request id.
      std::lock_guard<std::mutex> lock(mu_);
      takeover_ids_.push_back(r->request_id());
      if (takeover_ids_.size() <= 2) {
        google::rpc::RetryInfo retry;
        retry.mutable_retry_delay()->set_nanos(20'000'000);
        google::rpc::Status details;
        details.set_code(grpc::UNAVAILABLE);
        details.set_message("a takeover is under way; retry");
        details.add_details()->PackFrom(retry);
        return Status(grpc::UNAVAILABLE, details.message(), details.SerializeAsString());
      }
      v1::SubmitJobResponse first;
      first.mutable_job()->set_id("j-first");
      first.mutable_job()->set_cluster("sim");
      google::rpc::Status details;
      details.set_code(grpc::ALREADY_EXISTS);
      details.set_message("request id seen");
      details.add_details()->PackFrom(first);
      return Status(grpc::ALREADY_EXISTS, details.message(), details.SerializeAsString());
    }
    if (r->job().model().has_rigid() && r->job().model().rigid().k() < 1) {
      google::rpc::BadRequest bad;
      auto* v = bad.add_field_violations();
      v->set_field("job.model.rigid.k");
      v->set_description("must be in [1, 8], got 0");
      google::rpc::Status details;
      details.set_code(grpc::INVALID_ARGUMENT);
      details.set_message("invalid job");
      details.add_details()->PackFrom(bad);
      return Status(grpc::INVALID_ARGUMENT, "invalid job", details.SerializeAsString());
    }
    *out = Text<v1::SubmitJobResponse>(R"pb(
      job {
        id: "j-7"
        cluster: "sim"
        state: QUEUED
        guaranteed: true
        allocation {
          processors: 4
          start { seconds: 3600 }
          end { seconds: 7200 }
        }
      }
      moved_jobs {
        id: "j-5"
        state: QUEUED
        allocation {
          processors: 2
          start { seconds: 7200 }
          end { seconds: 9000 }
        }
      })pb");
    *out->mutable_job()->mutable_spec() = r->job();
    return Status::OK;
  }
  Status GetJob(ServerContext*, const v1::GetJobRequest* r, v1::Job* out) override {
    if (r->id() != "j-7") return Status(grpc::NOT_FOUND, "no job \"" + r->id() + "\"");
    *out = Text<v1::Job>(R"pb(
      id: "j-7"
      cluster: "sim"
      state: FINISHED
      guaranteed: true
      spec {
        name: "solver"
        owner: "ana"
        model {
          rigid {
            k: 4
            time { seconds: 3600 }
          }
        }
      }
      allocation {
        processors: 4
        start { seconds: 3600 }
        end { seconds: 7200 }
        processor_ids: [ 0, 1, 2, 3 ]
      }
      submitted { seconds: 3600 }
      sequential_time { seconds: 14400 })pb");
    return Status::OK;
  }
  Status ListJobs(ServerContext*, const v1::ListJobsRequest* r,
                  v1::ListJobsResponse* out) override {
    Record(*r);
    if (r->page_token().empty()) {
      *out = Text<v1::ListJobsResponse>(R"pb(
        jobs {
          id: "j-1"
          state: RUNNING
          allocation {
            processors: 2
            start {}
            end { seconds: 60 }
          }
        }
        next_page_token: "p2")pb");
    } else {
      *out = Text<v1::ListJobsResponse>(R"pb(
        jobs {
          id: "j-2"
          spec { name: "b" }
          state: QUEUED
          allocation {
            processors: 8
            start { seconds: 60 }
            end { seconds: 90 }
          }
        })pb");
    }
    return Status::OK;
  }
  Status AddReservation(ServerContext*, const v1::AddReservationRequest* r,
                        v1::Reservation* out) override {
    Record(*r);
    out->set_id("r-1");
    out->set_processors(r->processors());
    *out->mutable_start() = r->start();
    *out->mutable_end() = r->end();
    out->set_reason(r->reason());
    return Status::OK;
  }
  Status AdvanceClock(ServerContext*, const v1::AdvanceClockRequest* r,
                      v1::AdvanceClockResponse* out) override {
    Record(*r);
    out->mutable_now()->set_seconds(3600 + r->by().seconds());
    return Status::OK;
  }

  Status ReserveDAG(ServerContext*, const v1::ReserveDAGRequest* r,
                    v1::ReserveDAGResponse* out) override {
    Record(*r);
    if (r->algorithm().name() == "cpa") return Status(grpc::UNIMPLEMENTED, "cpa is not built");
    if (!clusters_.contains(r->cluster())) {
      return Status(grpc::NOT_FOUND, "no cluster \"" + r->cluster() + "\"");
    }
    Plan(r->dag(), out->mutable_placements());
    out->mutable_completion()->set_seconds(3600 + 600 * r->dag().tasks_size());
    // The busier "default" takes 5 minutes longer, so that offers have an order.
    out->mutable_turnaround()->set_seconds(600 * r->dag().tasks_size() +
                                           (r->cluster() == "default" ? 300 : 0));
    out->set_cpu_hours(0.5);
    if (!r->dry_run()) out->set_dag_id("d1");
    return Status::OK;
  }
  Status QueryDeadline(ServerContext*, const v1::QueryDeadlineRequest* r,
                       v1::QueryDeadlineResponse* out) override {
    Record(*r);
    out->set_feasible(true);
    if (!r->has_deadline()) out->mutable_tightest_deadline()->set_seconds(7200);
    Plan(r->dag(), out->mutable_placements());
    out->mutable_completion()->set_seconds(3600 + 600 * r->dag().tasks_size());
    out->set_cpu_hours(0.25);
    if (r->commit()) out->set_dag_id("d2");
    return Status::OK;
  }
  Status GetDagReservation(ServerContext*, const v1::GetDagReservationRequest* r,
                           v1::DagReservation* out) override {
    Record(*r);
    if (r->id() != "d1")
      return Status(grpc::NOT_FOUND, "DAG reservation '" + r->id() + "' not found");
    *out = Text<v1::DagReservation>(R"pb(
      id: "d1"
      cluster: "sim"
      algorithm: "bl_cpar_bd_cpar"
      release { seconds: 3600 }
      completion { seconds: 7200 }
      cpu_hours: 1.5
      label: "nightly"
      placements {
        task: "a"
        allocation {
          processors: 8
          start { seconds: 3600 }
          end { seconds: 5400 }
        }
      }
      placements {
        task: "b"
        allocation {
          processors: 4
          start { seconds: 5400 }
          end { seconds: 7200 }
        }
      }
      edges { from: "a" to: "b" })pb");
    return Status::OK;
  }
  Status ReportDagTaskEvent(ServerContext*, const v1::ReportDagTaskEventRequest* r,
                            v1::DagReservation* out) override {
    v1::GetDagReservationRequest get;
    get.set_id(r->id());
    const Status found = GetDagReservation(nullptr, &get, out);
    Record(*r);  // after the lookup, which records its own request
    if (!found.ok()) return found;
    v1::TaskPlacement* a = out->mutable_placements(0);
    a->set_state(r->kind() == v1::FAILED_EVENT ? v1::TASK_FAILED : v1::TASK_FINISHED);
    a->mutable_started()->set_seconds(3600);
    *a->mutable_ended() = r->time();
    if (r->kind() == v1::FAILED_EVENT) out->mutable_placements(1)->set_state(v1::TASK_RELEASED);
    return Status::OK;
  }
  Status ListDagReservations(ServerContext*, const v1::ListDagReservationsRequest* r,
                             v1::ListDagReservationsResponse* out) override {
    Record(*r);
    v1::GetDagReservationRequest get;
    get.set_id("d1");
    return GetDagReservation(nullptr, &get, out->add_dags());
  }
  Status ReleaseDAG(ServerContext*, const v1::ReleaseDAGRequest* r,
                    v1::ReleaseDAGResponse*) override {
    Record(*r);
    return Status::OK;
  }
  Status Replan(ServerContext*, const v1::ReplanRequest* r, v1::ReplanResponse* out) override {
    Record(*r);
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_replan_ = *r;
    }
    *out = Text<v1::ReplanResponse>(R"pb(
      before {
        makespan { seconds: 5400 }
        weighted_completion: 5400
        jobs: 1
        max_stretch: 1.5
      }
      after {
        makespan { seconds: 9000 }
        weighted_completion: 9000
        jobs: 1
        max_stretch: 2.5
      }
      applied: false
      outcome: "dry run: nothing was changed"
      objective: MAKESPAN
      makespan_lower_bound { seconds: 5400 }
      planner_time { nanos: 3000000 }
      attempts: 1
      moves {
        job_id: "j-7"
        before {
          processors: 4
          start { seconds: 3600 }
          end { seconds: 5400 }
        }
        after {
          processors: 2
          start { seconds: 5400 }
          end { seconds: 9000 }
        }
      })pb");
    return Status::OK;
  }
  Status GetSchedule(ServerContext*, const v1::GetScheduleRequest* r, v1::Schedule* out) override {
    Record(*r);
    *out = Text<v1::Schedule>(R"pb(
      cluster: "sim"
      capacity: 8
      now { seconds: 3600 }
      from { seconds: 3600 }
      to { seconds: 7200 }
      jobs {
        id: "j-7"
        spec { name: "solver" }
        state: QUEUED
        allocation {
          processors: 4
          start { seconds: 3600 }
          end { seconds: 5400 }
          processor_ids: [ 0, 1, 2, 3 ]
        }
      }
      dag_tasks {
        dag_id: "d1"
        task: "stage-in"
        allocation {
          processors: 4
          start { seconds: 3600 }
          end { seconds: 7200 }
          processor_ids: [ 4, 5, 6, 7 ]
        }
      })pb");
    return Status::OK;
  }

  // The last request the CLI sent, compared as a message with `text` in the text format of its
  // type: field order and spacing do not matter, every field does, but for the request id the
  // CLI makes up when `text` names none (which must then be one it made up, or none for a dry
  // run).
  ::testing::AssertionResult LastIs(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_ == nullptr) return ::testing::AssertionFailure() << "no request was sent";
    std::unique_ptr<google::protobuf::Message> expected(last_->New());
    if (!google::protobuf::TextFormat::ParseFromString(text, expected.get())) {
      return ::testing::AssertionFailure() << "not a text " << last_->GetTypeName() << ": " << text;
    }
    std::unique_ptr<google::protobuf::Message> sent(last_->New());
    sent->CopyFrom(*last_);
    if (const google::protobuf::FieldDescriptor* id =
            sent->GetDescriptor()->FindFieldByName("request_id");
        id != nullptr && expected->GetReflection()->GetString(*expected, id).empty()) {
      const std::string made_up = sent->GetReflection()->GetString(*sent, id);
      const google::protobuf::FieldDescriptor* dry_run =
          sent->GetDescriptor()->FindFieldByName("dry_run");
      const bool dry = dry_run != nullptr && sent->GetReflection()->GetBool(*sent, dry_run);
      if (made_up.substr(0, 4) != (dry ? "" : "cli-")) {
        return ::testing::AssertionFailure()
               << "sent request id '" << made_up << "', not one the CLI made up";
      }
      sent->GetReflection()->ClearField(sent.get(), id);
    }
    if (google::protobuf::util::MessageDifferencer::Equals(*sent, *expected)) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "sent " << last_->ShortDebugString() << "\nexpected " << expected->ShortDebugString();
  }

  // The request ids of the tries of the "during-a-takeover" submission.
  std::vector<std::string> TakeoverIds() {
    std::lock_guard<std::mutex> lock(mu_);
    return takeover_ids_;
  }

  // The last request, which must be a T.
  template <typename T>
  T LastAs() {
    std::lock_guard<std::mutex> lock(mu_);
    T out;
    if (last_ == nullptr || last_->GetDescriptor() != T::descriptor()) {
      ADD_FAILURE() << "the last request is not a " << T::descriptor()->full_name();
      return out;
    }
    out.CopyFrom(*last_);
    return out;
  }

 private:
  std::vector<std::string> takeover_ids_;
  void Record(const google::protobuf::Message& m) {
    std::lock_guard<std::mutex> lock(mu_);
    last_.reset(m.New());
    last_->CopyFrom(m);
  }
  // One placement per task: 2 processors each, one after the other from @1h, 10 min each.
  static void Plan(const v1::Dag& dag, google::protobuf::RepeatedPtrField<v1::TaskPlacement>* out) {
    for (int i = 0; i < dag.tasks_size(); ++i) {
      v1::TaskPlacement* p = out->Add();
      p->set_task(dag.tasks(i).name());
      p->mutable_allocation()->set_processors(2);
      p->mutable_allocation()->mutable_start()->set_seconds(3600 + 600 * i);
      p->mutable_allocation()->mutable_end()->set_seconds(4200 + 600 * i);
    }
  }
  std::map<std::string, v1::Cluster> clusters_;
  std::mutex mu_;
  v1::ReplanRequest last_replan_;  // Replan is followed by a GetSchedule for the chart

 public:
  v1::ReplanRequest LastReplan() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_replan_;
  }

 private:
  std::unique_ptr<google::protobuf::Message> last_;
};

struct Result {
  int rc;
  std::string out, err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override { server_->Shutdown(); }

  Result Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    auto open_channel =
        [&](const Connection& connection) -> absl::StatusOr<std::shared_ptr<grpc::Channel>> {
      EXPECT_EQ(connection.server, expected_server_);
      return server_->InProcessChannel(grpc::ChannelArguments());
    };
    int rc = RunCli(args, open_channel, "127.0.0.1:50051", out, err);
    return {rc, out.str(), err.str()};
  }

  FakeResched service_;
  std::unique_ptr<grpc::Server> server_;
  std::string expected_server_ = "127.0.0.1:50051";
};

TEST_F(CliTest, ClusterList) {
  Result r = Run({"cluster", "list"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "NAME      P  CLOCK      POLICY        NOW                   QUEUED  RUNNING  "
            "RESERVATIONS   UTIL\n"
            "default  64  wall       conservative  2026-11-22T10:00:00Z       2        0  "
            "           0  25.0%\n"
            "sim       8  simulated  easy          @1h                        0        0  "
            "           0   0.0%\n");
}

TEST_F(CliTest, ClusterCreateSendsTheSpec) {
  Result r = Run({"cluster", "create", "sim2", "--group", "fat:4:2", "--group", ":8", "--clock",
                  "simulated", "--policy", "easy", "--param", "rho=0.5"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs(
      "spec { name: \"sim2\" groups { name: \"fat\" count: 4 speed: 2 } groups { count: 8 } "
      "clock: SIMULATED policy { name: \"easy\" params { key: \"rho\" value: 0.5 } } }"));
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "created cluster sim2");
}

TEST_F(CliTest, ClusterCreateSendsThePeriodicReplan) {
  Result r = Run({"cluster", "create", "p", "--processors", "8", "--replan-every", "10m",
                  "--replan-algorithm", "bicriteria", "--replan-objective", "weighted"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(
      service_.LastIs("spec { name: \"p\" processors: 8 policy { } replan_every { seconds: 600 } "
                      "replan_algorithm { name: "
                      "\"bicriteria\" } replan_objective: WEIGHTED_COMPLETION }"));
  r = Run({"cluster", "create", "p", "--processors", "8", "--replan-objective", "fast"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("--replan-objective fast: expected makespan, weighted, stretch or "
                       "bicriteria"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, ClusterCreateUsageErrors) {
  Result r = Run({"cluster", "create", "x"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error: give the size: --processors N or --group NAME:COUNT:SPEED");
  EXPECT_NE(r.err.find("usage: resched cluster create"), std::string::npos);
  r = Run({"cluster", "create", "x", "--processors", "4", "--clock", "lunar"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "error: --clock lunar: expected wall or simulated");
}

TEST_F(CliTest, JobSubmitPrintsThePlacement) {
  Result r = Run({"job", "submit", "--cluster", "sim", "--rigid", "4:1h", "--release", "+30m",
                  "--name", "solver", "--weight", "2", "--request-id", "q1"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(
      service_.LastIs("cluster: \"sim\" job { name: \"solver\" release { seconds: 5400 } weight: 2 "
                      "model { rigid { k: 4 time { seconds: 3600 } } } } request_id: \"q1\""));
  EXPECT_EQ(r.out,
            "ID   NAME    STATE   K  START  END\n"
            "j-7  solver  QUEUED  4  @1h    @2h\n"
            "\n"
            "moved 1 queued job(s):\n"
            "ID   NAME  STATE   K  START  END\n"
            "j-5        QUEUED  2  @2h    @2h30m\n");
}

// A path in TempDir() that no other test process uses at the same time.
std::string UniqueTempPath(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "/" + (test != nullptr ? test->name() : "none") + "-" +
         std::to_string(::getpid()) + "-" + name;
}

TEST_F(CliTest, JobSubmitFromAFileWithOverrides) {
  const std::string path = UniqueTempPath("job.yaml");
  std::ofstream(path) << "name: from-file\nowner: ana\nmodel:\n  rigid: {k: 2, time: 60s}\n";
  Result r = Run({"job", "submit", "-f", path, "--cluster", "sim", "--amdahl", "2h:0.1",
                  "--dry-run", "--release", "@0"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(
      service_.LastIs("cluster: \"sim\" job { name: \"from-file\" owner: \"ana\" release { } "
                      "model { amdahl { t1 { seconds: 7200 } alpha: 0.1 } } } dry_run: true"));
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "dry run: nothing was changed");

  std::ofstream(path) << "name: x\nmodell: {}\n";
  r = Run({"job", "submit", "-f", path});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error: " + path + ": resched.v1.JobSpec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("modell"), std::string::npos) << r.err;
  std::remove(path.c_str());
}

TEST_F(CliTest, UnavailableIsRetriedWithTheSameMadeUpRequestIdUntilAnswered) {
  Result r = Run({"--json", "job", "submit", "--cluster", "sim", "--rigid", "1:1h", "--name",
                  "during-a-takeover"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("j-first"));
  const std::vector<std::string> ids = service_.TakeoverIds();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].substr(0, 4), "cli-");
  EXPECT_EQ(ids[1], ids[0]);
  EXPECT_EQ(ids[2], ids[0]);
}

TEST_F(CliTest, ServerErrorsPrintCodeMessageAndViolations) {
  Result r = Run({"job", "submit", "--cluster", "sim", "--rigid", "0:1h"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error: INVALID_ARGUMENT: invalid job\n"
            "  job.model.rigid.k: must be in [1, 8], got 0\n");
  r = Run({"job", "get", "nope", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "error: NOT_FOUND: no job \"nope\"\n");
  r = Run({"dag", "reserve", "-f", "/dev/null", "--algorithm", "cpa"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.substr(0, 22), "error: UNIMPLEMENTED: ");
}

// A temporary file that is removed at the end of the test. ctest runs tests in parallel
// processes sharing TempDir(), so the path carries the test's name and the process id.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text) : path_(UniqueTempPath(name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr const char* kDagJson = R"({"tasks": [
  {"name": "prep", "model": {"amdahl": {"t1": "600s", "alpha": 0.1}}},
  {"name": "run", "model": {"rigid": {"k": 2, "time": "3600s"}}}],
  "edges": [{"from": "prep", "to": "run"}]})";

TEST_F(CliTest, ReplanSendsTheRequestAndPrintsFiguresMovesAndThePlannedChart) {
  Result r = Run({"replan", "--algorithm", "bicriteria", "--param", "shuffles=20", "--objective",
                  "makespan", "--dry-run", "--force", "--cluster", "sim", "--width", "40"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(
      service_.LastReplan().ShortDebugString(),
      "cluster: \"sim\" algorithm { name: \"bicriteria\" params { key: \"shuffles\" value: 20 "
      "} } objective: MAKESPAN dry_run: true force: true");
  EXPECT_EQ(service_.LastAs<v1::GetScheduleRequest>().cluster(), "sim");
  // Not applied: the chart draws j-7 where the plan puts it.
  EXPECT_EQ(r.out,
            "dry run: nothing was changed\n"
            "             JOBS  MAKESPAN  WEIGHTED COMPLETION  MEAN STRETCH  MAX STRETCH\n"
            "before          1  @1h30m                   5400         0.000        1.500\n"
            "after           1  @2h30m                   9000         0.000        2.500\n"
            "lower bound        @1h30m                      -             -            -\n"
            "planner time: 3ms, 1 plan(s) made\n"
            "\n"
            "moved 1 job(s):\n"
            "JOB       K  START          END\n"
            "j-7  4 -> 2  @1h -> @1h30m  @1h30m -> @2h30m\n"
            "\n"
            "sim: 8 processors, @1h .. @2h30m, 1 column = 2m30s\n"
            "0 |............000000000000000000000000|\n"
            "1 |............000000000000000000000000|\n"
            "2 |....................................|\n"
            "3 |....................................|\n"
            "4 |111111111111111111111111............|\n"
            "5 |111111111111111111111111............|\n"
            "6 |111111111111111111111111............|\n"
            "7 |111111111111111111111111............|\n"
            "  +-----------+-----------+------------+\n"
            "  @1h         @1h30m      @2h\n"
            "legend ('.' idle):\n"
            "   ID   STATE   K  START   END     NAME\n"
            "0  j-7  QUEUED  2  @1h30m  @2h30m  solver\n"
            "1  d1   DAG     4  @1h     @2h     stage-in\n");
  r = Run({"replan", "--algorithm", "mrt", "--objective", "fastest"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("expected makespan, weighted, stretch or bicriteria"), std::string::npos)
      << r.err;
}

TEST_F(CliTest, DagOffersAsksEveryClusterAndListsThemSoonestFirstWithTheCommandThatTakesOne) {
  TempFile dag("dag.json", kDagJson);
  Result r = Run({"dag", "offers", "-f", dag.path()});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(service_.LastAs<v1::ReserveDAGRequest>().algorithm().name(), "bl_cpar_bd_cpar");
  EXPECT_TRUE(service_.LastAs<v1::ReserveDAGRequest>().dry_run());
  const std::string take = absl::StrCat("resched dag query-deadline -f ", dag.path(),
                                        " --cluster sim --algorithm bl_cpar_bd_cpar --deadline "
                                        "@4800000000us --commit");
  EXPECT_EQ(r.out, absl::StrCat("CLUSTER  COMPLETION            TURNAROUND  CPU HOURS\n"
                                "sim      @1h20m                       20m       0.50\n"
                                "default  1970-01-01T01:20:00Z         25m       0.50\n"
                                "\n"
                                "take the soonest (refused, nothing reserved, if it went stale):\n"
                                "  ",
                                take, "\n"));
  // The printed command takes the offer: a commit under the offer's own completion.
  std::vector<std::string> take_args = absl::StrSplit(take, ' ');
  r = Run(std::vector<std::string>(take_args.begin() + 1, take_args.end()));
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto taken = service_.LastAs<v1::QueryDeadlineRequest>();
  EXPECT_EQ(taken.cluster(), "sim");
  EXPECT_EQ(taken.deadline().seconds(), 4800);
  EXPECT_TRUE(taken.commit());

  r = Run({"dag", "offers", "-f", dag.path(), "--clusters", "default,nope", "--json"});
  EXPECT_EQ(r.rc, 0) << r.err;
  const auto answer = nlohmann::json::parse(r.out);
  ASSERT_EQ(answer["offers"].size(), 1u) << r.out;
  EXPECT_EQ(answer["offers"][0]["cluster"], "default");
  EXPECT_EQ(answer["offers"][0]["plan"]["placements"].size(), 2u);
  EXPECT_EQ(answer["refusals"][0]["code"], "NOT_FOUND");

  r = Run({"dag", "offers", "-f", dag.path(), "--clusters", "nope"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "refused by nope: NOT_FOUND: no cluster \"nope\"\n");
}

TEST_F(CliTest, DagEventSendsTheTasksReportAndPrintsTheReportedStates) {
  Result r = Run({"dag", "event", "d1", "a", "FAILED", "--at", "@1h30m", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs(
      "cluster: \"sim\" id: \"d1\" task: \"a\" kind: FAILED_EVENT time { seconds: 5400 }"));
  EXPECT_EQ(r.out,
            "TASK  STATE     STARTED  ENDED\n"
            "a     FAILED    @1h      @1h30m\n"
            "b     RELEASED  -        -\n");
  r = Run({"dag", "event", "d1", "a", "exploded"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("expected started, finished or failed"), std::string::npos) << r.err;
  r = Run({"dag", "event", "d9", "a", "finished"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;
}

TEST_F(CliTest, DagReserveSendsTheDagAndPrintsThePlan) {
  TempFile dag("dag.json", kDagJson);
  Result r =
      Run({"dag", "reserve", "-f", dag.path(), "--cluster", "sim", "--param", "q=2", "--release",
           "+30m", "--label", "nightly", "--request-id", "q1", "--width", "40"});
  EXPECT_EQ(r.rc, 0) << r.err;
  // No --algorithm: the name stays empty and the server picks its default.
  EXPECT_TRUE(service_.LastIs(
      "cluster: \"sim\" dag { tasks { name: \"prep\" model { amdahl { t1 { seconds: 600 } "
      "alpha: 0.1 } } } tasks { name: \"run\" model { rigid { k: 2 time { seconds: 3600 } } "
      "} } edges { from: \"prep\" to: \"run\" } } algorithm { params { key: \"q\" value: 2 "
      "} } release { seconds: 5400 } request_id: \"q1\" label: \"nightly\""));
  EXPECT_EQ(r.out,
            "   TASK  K  START   END     DURATION\n"
            "0  prep  2  @1h     @1h10m       10m\n"
            "1  run   2  @1h10m  @1h20m       10m\n"
            "\n"
            "sim: 8 processors, @1h .. @1h20m, 1 column = ~33.3s\n"
            "0 |000000000000000000111111111111111111|\n"
            "1 |000000000000000000111111111111111111|\n"
            "2 |....................................|\n"
            "3 |....................................|\n"
            "4 |....................................|\n"
            "5 |....................................|\n"
            "6 |....................................|\n"
            "7 |....................................|\n"
            "  +--------+--------+--------+---------+\n"
            "  @1h      @1h5m    @1h10m   @1h15m\n"
            "\n"
            "completion:  @1h20m\n"
            "turnaround:  20m\n"
            "cpu hours:   0.50\n"
            "dag id:      d1\n");
}

TEST_F(CliTest, DagReserveDryRunOfImportedWorkflows) {
  TempFile wf("wf.json", R"({"workflow": {"tasks": [
      {"name": "x", "id": "x1", "runtimeInSeconds": 60, "parents": [], "children": ["y1"]},
      {"name": "y", "id": "y1", "runtimeInSeconds": 30}]}})");
  Result r = Run({"dag", "reserve", "-f", wf.path(), "--cluster", "sim", "--dry-run", "--alpha",
                  "0.3", "--algorithm", "bl_1_bd_all"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs(
      "cluster: \"sim\" dag { tasks { name: \"x1\" model { amdahl { t1 { seconds: 60 } "
      "alpha: 0.3 k_min: 1 } } } tasks { name: \"y1\" model { amdahl { t1 { seconds: 30 } "
      "alpha: 0.3 k_min: 1 } } } edges { from: \"x1\" to: \"y1\" } } "
      "algorithm { name: \"bl_1_bd_all\" } dry_run: true"));
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "dry run: nothing was changed");
  EXPECT_NE(r.out.find("dag id:      dry run\n"), std::string::npos) << r.out;

  // A DAX file, detected by its content despite the .txt name.
  TempFile dax("w.txt", R"(<?xml version="1.0"?>
<adag><job id="A" runtime="10"/><job id="B" runtime="20"/>
<child ref="B"><parent ref="A"/></child></adag>)");
  r = Run({"dag", "reserve", "-f", dax.path(), "--cluster", "sim", "--dry-run"});
  EXPECT_EQ(r.rc, 0) << r.err;
  const v1::ReserveDAGRequest sent = service_.LastAs<v1::ReserveDAGRequest>();
  ASSERT_EQ(sent.dag().edges_size(), 1);
  EXPECT_EQ(sent.dag().edges(0).from(), "A");
  EXPECT_EQ(sent.dag().edges(0).to(), "B");
  EXPECT_NE(r.out.find("0  A "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1  B "), std::string::npos) << r.out;

  // --format overrides the detection: this DAX is not a Dag.
  r = Run({"dag", "reserve", "-f", dax.path(), "--format", "dag"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.substr(0, 8 + dax.path().size()), "error: " + dax.path() + ":") << r.err;
}

TEST_F(CliTest, DagReserveUsageErrors) {
  TempFile dag("dag.json", kDagJson);
  Result r = Run({"dag", "reserve"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error: -f FILE is required: a Dag (JSON or YAML), WfCommons or DAX file");
  r = Run({"dag", "reserve", "-f", dag.path(), "--alpha", "0.3"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error: --alpha applies to WfCommons and DAX workflows only; " + dag.path() +
                " was read as a resched Dag (see --format)");
  r = Run({"dag", "reserve", "-f", dag.path(), "--format", "xml"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error: --format xml: expected dag, wfcommons or dax");
  r = Run({"dag", "reserve", "-f", dag.path(), "--format", "dax", "--alpha", "1.5"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "error: --alpha: must be in [0, 1], got 1.5");
  r = Run({"dag", "reserve", "-f", "/no/such/file.json"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "error: /no/such/file.json: cannot open the file\n");
}

TEST_F(CliTest, DagQueryDeadlineAsksForTheTightestDeadline) {
  TempFile dag("dag.json", kDagJson);
  Result r = Run({"dag", "query-deadline", "-f", dag.path(), "--cluster", "sim", "--width", "40"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(service_.LastAs<v1::QueryDeadlineRequest>().has_deadline());
  EXPECT_NE(r.out.find("\nfeasible:           yes\n"
                       "deadline:           - (asked for the tightest)\n"
                       "tightest deadline:  @2h\n"
                       "completion:         @1h20m\n"
                       "cpu hours:          0.25\n"
                       "dag id:             not committed\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1  run   2  @1h10m"), std::string::npos) << r.out;

  // `dag query` is an alias; --deadline and --commit are sent.
  r = Run({"dag", "query", "-f", dag.path(), "--cluster", "sim", "--deadline", "+2h", "--commit",
           "--algorithm", "dl_bd_cpa"});
  EXPECT_EQ(r.rc, 0) << r.err;
  const v1::QueryDeadlineRequest query = service_.LastAs<v1::QueryDeadlineRequest>();
  EXPECT_EQ(query.algorithm().name(), "dl_bd_cpa");
  EXPECT_EQ(query.deadline().seconds(), 10800);
  EXPECT_TRUE(query.commit());
  EXPECT_NE(r.out.find("feasible:    yes (reserved)\ndeadline:    @3h\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("dag id:      d2\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("tightest"), std::string::npos) << r.out;
}

TEST_F(CliTest, ANamedChoiceIsSentAsItsIndexAndListedByName) {
  Result r = Run({"algorithms"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("lambda=1.5,fallback=widest(none|cpa-bounded|widest)"), std::string::npos)
      << r.out;
  TempFile dag("dag.json", kDagJson);
  r = Run({"dag", "query", "-f", dag.path(), "--cluster", "sim", "--algorithm", "dl_rc_cpar",
           "--param", "fallback=none", "--param", "lambda=1"});
  EXPECT_EQ(r.rc, 0) << r.err;
  const v1::QueryDeadlineRequest sent = service_.LastAs<v1::QueryDeadlineRequest>();
  EXPECT_EQ(sent.algorithm().params().at("fallback"), 0);
  EXPECT_EQ(sent.algorithm().params().at("lambda"), 1);
  r = Run({"dag", "query", "-f", dag.path(), "--cluster", "sim", "--algorithm", "dl_rc_cpar",
           "--param", "fallback=latest"});
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--param fallback=latest: expected one of none, cpa-bounded, widest"),
            std::string::npos)
      << r.err;
  r = Run({"dag", "query", "-f", dag.path(), "--cluster", "sim", "--param", "fallback=none"});
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("a named choice needs --algorithm"), std::string::npos) << r.err;
}

TEST_F(CliTest, DagQueryDeadlineJson) {
  TempFile dag("dag.json", kDagJson);
  Result r = Run({"--json", "dag", "query-deadline", "-f", dag.path(), "--cluster", "sim"});
  EXPECT_EQ(r.rc, 0) << r.err;
  v1::QueryDeadlineResponse response;
  EXPECT_OK(google::protobuf::util::JsonStringToMessage(r.out, &response)) << r.out;
  EXPECT_EQ(response.placements_size(), 2);
  EXPECT_NE(r.out.find("\"tightest_deadline\""), std::string::npos) << r.out;
}

TEST_F(CliTest, DagShowListRelease) {
  Result r = Run({"dag", "show", "d1", "--cluster", "sim", "--width", "40"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs("cluster: \"sim\" id: \"d1\""));
  EXPECT_EQ(r.out.substr(0, r.out.find("\n\n")),
            "id:          d1\n"
            "cluster:     sim\n"
            "label:       nightly\n"
            "algorithm:   bl_cpar_bd_cpar\n"
            "release:     @1h\n"
            "completion:  @2h\n"
            "cpu hours:   1.50\n"
            "tasks:       2\n"
            "edges:       1");
  EXPECT_NE(r.out.find("0  a     8  @1h     @1h30m       30m\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sim: 8 processors, @1h .. @2h"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7 |000000000000000000..................|"), std::string::npos) << r.out;

  r = Run({"dag", "show", "d9", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "error: NOT_FOUND: DAG reservation 'd9' not found\n");
  EXPECT_EQ(Run({"dag", "show"}).rc, 2);

  r = Run({"dag", "list", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "ID  LABEL    ALGORITHM        TASKS  RELEASE  COMPLETION  CPU-HOURS\n"
            "d1  nightly  bl_cpar_bd_cpar      2  @1h      @2h              1.50\n");

  r = Run({"dag", "release", "d1", "--cluster", "sim", "--request-id", "r1"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs("cluster: \"sim\" id: \"d1\" request_id: \"r1\""));
  EXPECT_EQ(r.out, "released DAG reservation d1\n");
}

TEST_F(CliTest, ScheduleShowListsAndDrawsDagTasks) {
  Result r = Run({"schedule", "show", "--cluster", "sim", "--width", "40"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("DAG  TASK      K  START  END  PROCESSORS\n"
                       "d1   stage-in  4  @1h    @2h  4-7\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("4 |111111111111111111111111111111111111|"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1  d1   DAG     4  @1h    @2h     stage-in\n"), std::string::npos) << r.out;
}

TEST_F(CliTest, DagHelpListsTheVerbs) {
  Result r = Run({"dag", "--help"});
  EXPECT_EQ(r.rc, 0);
  for (const char* verb : {"reserve", "query-deadline", "query", "show", "release", "list"}) {
    EXPECT_NE(r.out.find(std::string("usage: resched dag ") + verb + " "), std::string::npos)
        << verb << "\n"
        << r.out;
  }
}

TEST_F(CliTest, JobSubmitUsageErrors) {
  Result r = Run({"job", "submit", "--rigid", "4:1h", "--ceil", "2:1h"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error: give one runtime model, not --rigid and --ceil");
  r = Run({"job", "submit"});
  EXPECT_EQ(r.rc, 2);
  r = Run({"job", "submit", "--rigid", "4:1h", "--release", "tomorrow"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("error: --release: invalid time \"tomorrow\""), std::string::npos);
  r = Run({"job", "submit", "--rigid", "4:1h", "--bogus"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "error: unknown flag --bogus");
  r = Run({"job", "frobnicate"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "error: unknown command \"job frobnicate\"");
}

TEST_F(CliTest, JobGetAsJsonKeepsProtoFieldNames) {
  Result r = Run({"--json", "job", "get", "j-7", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 0) << r.err;
  v1::Job job;
  google::protobuf::util::JsonParseOptions options;
  EXPECT_OK(google::protobuf::util::JsonStringToMessage(r.out, &job, options)) << r.out;
  EXPECT_EQ(job.id(), "j-7");
  EXPECT_NE(r.out.find("\"processor_ids\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"sequential_time\": \"14400s\""), std::string::npos) << r.out;
}

TEST_F(CliTest, JobGetDetails) {
  Result r = Run({"job", "get", "j-7", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "id:               j-7\n"
            "cluster:          sim\n"
            "name:             solver\n"
            "owner:            ana\n"
            "state:            FINISHED\n"
            "model:            rigid k=4 t=1h\n"
            "weight:           1\n"
            "release:          -\n"
            "deadline:         -\n"
            "processors:       4\n"
            "start:            @1h\n"
            "end:              @2h\n"
            "guaranteed:       yes\n"
            "submitted:        @1h\n"
            "sequential time:  4h\n"
            "processor ids:    0-3\n");
}

TEST_F(CliTest, JobListFollowsPagesAndParsesStates) {
  Result r = Run({"job", "list", "--cluster", "sim", "--state", "queued,Running"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(
      service_.LastIs("cluster: \"sim\" states: QUEUED states: RUNNING page_token: \"p2\""));
  EXPECT_EQ(r.out,
            "ID   NAME  STATE    K  START  END\n"
            "j-1        RUNNING  2  @0s    @1m\n"
            "j-2  b     QUEUED   8  @1m    @1m30s\n");
  r = Run({"job", "list", "--state", "sleeping"});
  EXPECT_EQ(r.rc, 2);
}

TEST_F(CliTest, ReservationTimesRelativeToTheClusterNow) {
  Result r = Run({"reservation", "add", "--cluster", "sim", "--processors", "2", "--start", "+1h",
                  "--duration", "30m", "--reason", "maintenance"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs(
      "cluster: \"sim\" processors: 2 start { seconds: 7200 } end { seconds: 9000 } "
      "reason: \"maintenance\""));
  EXPECT_EQ(r.out,
            "ID   K  START  END     REASON\n"
            "r-1  2  @2h    @2h30m  maintenance\n");
  r = Run({"reservation", "add", "--cluster", "sim", "--processors", "2", "--start", "+1h",
           "--duration", "30m", "--group", "1"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs(
      "cluster: \"sim\" processors: 2 start { seconds: 7200 } end { seconds: 9000 } group: 1"));
  r = Run({"reservation", "add", "--processors", "2", "--start", "now"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "error: give either --end or --duration");
}

TEST_F(CliTest, UnknownClusterForRelativeTimes) {
  Result r = Run({"reservation", "add", "--cluster", "nope", "--processors", "2", "--start", "+1h",
                  "--end", "+2h"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "error: NOT_FOUND: no cluster \"nope\"\n");
}

TEST_F(CliTest, ClockAdvance) {
  Result r = Run({"clock", "advance", "--by", "2h", "--cluster", "sim"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(service_.LastIs("cluster: \"sim\" by { seconds: 7200 }"));
  EXPECT_EQ(r.out, "now @3h\n");
  EXPECT_EQ(Run({"clock", "advance", "--cluster", "sim"}).rc, 2);
}

TEST_F(CliTest, GlobalFlags) {
  expected_server_ = "10.0.0.1:1234";
  Result r = Run({"--server", "10.0.0.1:1234", "cluster", "get", "sim", "--timeout", "5s"});
  EXPECT_EQ(r.rc, 0) << r.err;
  r = Run({"cluster", "get", "sim", "--server=10.0.0.1:1234", "--json"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 1), "{");
  expected_server_ = "127.0.0.1:50051";
  EXPECT_EQ(Run({"cluster", "get", "sim", "--timeout", "soon"}).rc, 2);
}

TEST_F(CliTest, Help) {
  Result r = Run({"help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("resched job submit MODEL"), std::string::npos);
  r = Run({"--help"});
  EXPECT_EQ(r.rc, 0);
  r = Run({});
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("usage: resched"), std::string::npos);
  r = Run({"job", "--help"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("usage: resched job cancel"), std::string::npos);
  r = Run({"help", "cluster"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("usage: resched cluster delete"), std::string::npos);
  r = Run({"schedule", "show", "-h"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.substr(0, 28), "usage: resched schedule show");
  r = Run({"frobnicate"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "error: unknown command \"frobnicate\"");
}

}  // namespace
}  // namespace resched::cli
