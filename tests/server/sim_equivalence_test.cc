// Acceptance test of the simulator (issue 3): the same workload replayed by Simulate and, with
// the same loop, through the gRPC API of a SIMULATED cluster gives every job the same
// allocation, for conservative, easy and fcfs.
#include <map>

#include "core/sim/replay.h"
#include "core/sim/simulator.h"
#include "loadgen/grpc_sim_driver.h"
#include "tests/core/sim/random_workload.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

using SimEquivalenceTest = ServerTest;

TEST_F(SimEquivalenceTest, ServerAndSimulatorGiveEveryJobTheSameAllocation) {
  constexpr int kProcessors = 16;
  const Workload workload = ::resched::testing::RandomWorkload(2024, 200, kProcessors);
  for (const std::string policy : {"conservative", "easy", "fcfs"}) {
    SCOPED_TRACE(policy);
    const ClusterSpec spec{"sim", {{"", kProcessors, 1.0}}, ClockKind::kSimulated, policy, {}};
    auto simulated = Simulate(workload, spec, {});
    ASSERT_OK(simulated);

    const std::string cluster = "equivalence-" + policy;
    CreateSim(cluster, kProcessors, policy);
    loadgen::GrpcSimDriver driver(*stub_, cluster);
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
