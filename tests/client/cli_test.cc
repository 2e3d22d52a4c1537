// The commands end to end against an in-process fake server: the requests they send, what
// they print, and their exit status.
#include "client/cli.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace resched::cli {
namespace {

using grpc::ServerContext;
using grpc::Status;
namespace v1 = resched::v1;

template <typename T>
T Text(const std::string& text) {
  T m;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &m)) << text;
  return m;
}

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

  std::string Last() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

 private:
  void Record(const google::protobuf::Message& m) {
    std::lock_guard<std::mutex> lock(mu_);
    last_ = m.ShortDebugString();
  }
  std::map<std::string, v1::Cluster> clusters_;
  std::mutex mu_;
  std::string last_;
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
    auto make_stub = [&](const std::string& server) {
      EXPECT_EQ(server, expected_server_);
      return v1::Resched::NewStub(server_->InProcessChannel(grpc::ChannelArguments()));
    };
    int rc = RunCli(args, make_stub, "127.0.0.1:50051", out, err);
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
  EXPECT_EQ(service_.Last(),
            "spec { name: \"sim2\" groups { name: \"fat\" count: 4 speed: 2 } groups { count: 8 } "
            "clock: SIMULATED policy { name: \"easy\" params { key: \"rho\" value: 0.5 } } }");
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "created cluster sim2");
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
  EXPECT_EQ(service_.Last(),
            "cluster: \"sim\" job { name: \"solver\" release { seconds: 5400 } weight: 2 "
            "model { rigid { k: 4 time { seconds: 3600 } } } } request_id: \"q1\"");
  EXPECT_EQ(r.out,
            "ID   NAME    STATE   K  START  END\n"
            "j-7  solver  QUEUED  4  @1h    @2h\n"
            "\n"
            "moved 1 queued job(s):\n"
            "ID   NAME  STATE   K  START  END\n"
            "j-5        QUEUED  2  @2h    @2h30m\n");
}

TEST_F(CliTest, JobSubmitFromAFileWithOverrides) {
  std::string path = ::testing::TempDir() + "/job.yaml";
  std::ofstream(path) << "name: from-file\nowner: ana\nmodel:\n  rigid: {k: 2, time: 60s}\n";
  Result r = Run({"job", "submit", "-f", path, "--cluster", "sim", "--amdahl", "2h:0.1",
                  "--dry-run", "--release", "@0"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(service_.Last(),
            "cluster: \"sim\" job { name: \"from-file\" owner: \"ana\" release { } "
            "model { amdahl { t1 { seconds: 7200 } alpha: 0.1 } } } dry_run: true");
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "dry run: nothing was changed");

  std::ofstream(path) << "name: x\nmodell: {}\n";
  r = Run({"job", "submit", "-f", path});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("error: " + path + ": resched.v1.JobSpec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("modell"), std::string::npos) << r.err;
  std::remove(path.c_str());
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
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &job, options).ok()) << r.out;
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
  EXPECT_EQ(service_.Last(), "cluster: \"sim\" states: QUEUED states: RUNNING page_token: \"p2\"");
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
  EXPECT_EQ(service_.Last(),
            "cluster: \"sim\" processors: 2 start { seconds: 7200 } end { seconds: 9000 } "
            "reason: \"maintenance\"");
  EXPECT_EQ(r.out,
            "ID   K  START  END     REASON\n"
            "r-1  2  @2h    @2h30m  maintenance\n");
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
  EXPECT_EQ(service_.Last(), "cluster: \"sim\" by { seconds: 7200 }");
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
