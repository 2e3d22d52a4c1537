// Acceptance test of the simulator (issue 3): the same workload replayed by Simulate and, with
// the same loop, through the gRPC API of a SIMULATED cluster gives every job the same
// allocation, for conservative, easy and fcfs.
#include <map>

#include "core/sim/replay.h"
#include "core/sim/simulator.h"
#include "tests/core/sim/random_workload.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

// A SimDriver over the API of one SIMULATED cluster of a server.
class GrpcDriver final : public SimDriver {
 public:
  GrpcDriver(pb::Resched::Stub& stub, std::string cluster)
      : stub_(stub), cluster_(std::move(cluster)) {}

  absl::StatusOr<JobId> Submit(const Job& job) override {
    pb::SubmitJobRequest request;
    request.set_cluster(cluster_);
    *request.mutable_job() = ToProto(job);
    pb::SubmitJobResponse response;
    grpc::ClientContext context;
    if (auto s = stub_.SubmitJob(&context, request, &response); !s.ok()) return FromGrpc(s);
    return response.job().id();
  }

  absl::Status ReportEnded(const JobId& id, Time t) override {
    pb::ReportJobEventRequest request;
    request.set_cluster(cluster_);
    request.set_id(id);
    request.set_kind(pb::FINISHED_EVENT);
    *request.mutable_time() = ToTimestamp(t);
    pb::Job response;
    grpc::ClientContext context;
    return FromGrpc(stub_.ReportJobEvent(&context, request, &response));
  }

  absl::Status AdvanceTo(Time t) override {
    pb::AdvanceClockRequest request;
    request.set_cluster(cluster_);
    *request.mutable_to() = ToTimestamp(t);
    pb::AdvanceClockResponse response;
    grpc::ClientContext context;
    return FromGrpc(stub_.AdvanceClock(&context, request, &response));
  }

  absl::StatusOr<std::vector<JobView>> ActiveJobs() override {
    std::vector<JobView> out;
    std::string token;
    do {
      pb::ListJobsRequest request;
      request.set_cluster(cluster_);
      request.add_states(pb::QUEUED);
      request.add_states(pb::RUNNING);
      request.set_page_size(10'000);
      request.set_page_token(token);
      pb::ListJobsResponse response;
      grpc::ClientContext context;
      if (auto s = stub_.ListJobs(&context, request, &response); !s.ok()) return FromGrpc(s);
      for (const pb::Job& job : response.jobs()) {
        auto start = FromProto(job.allocation().start(), "start");
        auto end = FromProto(job.allocation().end(), "end");
        if (!start.ok()) return start.status();
        if (!end.ok()) return end.status();
        out.push_back(JobView{job.id(),
                              job.state() == pb::RUNNING ? JobState::kRunning : JobState::kQueued,
                              {job.allocation().processors(), *start, *end}});
      }
      token = response.next_page_token();
    } while (!token.empty());
    return out;
  }

 private:
  pb::Resched::Stub& stub_;
  const std::string cluster_;
};

using SimEquivalenceTest = ServerTest;

TEST_F(SimEquivalenceTest, ServerAndSimulatorGiveEveryJobTheSameAllocation) {
  constexpr int kProcessors = 16;
  const Workload workload = ::resched::testing::RandomWorkload(2024, 200, kProcessors);
  for (const std::string policy : {"conservative", "easy", "fcfs"}) {
    SCOPED_TRACE(policy);
    const ClusterSpec spec{"sim", {{"", kProcessors, 1.0}}, ClockKind::kSimulated, policy};
    auto simulated = Simulate(workload, spec, {});
    ASSERT_OK(simulated);

    const std::string cluster = "equivalence-" + policy;
    CreateSim(cluster, kProcessors, policy);
    GrpcDriver driver(*stub_, cluster);
    auto served = Replay(workload, driver);
    ASSERT_OK(served);

    ASSERT_EQ(served->size(), simulated->jobs.size());
    int early = 0;
    for (size_t i = 0; i < served->size(); ++i) {
      const SimJobRecord& s = simulated->jobs[i];
      const SimJobRecord& g = (*served)[i];
      SCOPED_TRACE(s.id);
      EXPECT_EQ(g.id, s.id);
      EXPECT_EQ(g.k, s.k);
      EXPECT_EQ(g.start, s.start);
      EXPECT_EQ(g.end, s.end);
      EXPECT_EQ(g.ended_early, s.ended_early);
      early += s.ended_early;
    }
    EXPECT_GT(early, 0);

    // The server's own schedule: valid, and what the replay recorded.
    const pb::Schedule schedule = Schedule(cluster);
    ExpectValid(schedule);
    ASSERT_EQ(schedule.jobs_size(), static_cast<int>(served->size()));
    std::map<std::string, const SimJobRecord*> by_id;
    for (const SimJobRecord& r : *served) by_id[r.id] = &r;
    for (const pb::Job& job : schedule.jobs()) {
      SCOPED_TRACE(job.id());
      ASSERT_TRUE(by_id.count(job.id()));
      const SimJobRecord& r = *by_id[job.id()];
      EXPECT_EQ(job.state(), pb::FINISHED);
      EXPECT_EQ(job.allocation().processors(), r.k);
      EXPECT_EQ(*FromProto(job.allocation().start(), "start"), r.start);
      EXPECT_EQ(*FromProto(job.allocation().end(), "end"), r.end);
    }
  }
}

}  // namespace
}  // namespace resched::server::testing
