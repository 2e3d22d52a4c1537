// Acceptance test of the simulator: the same workload replayed by Simulate and, with
// the same loop, through the gRPC API of a SIMULATED cluster gives every job the same
// allocation, for conservative, easy and fcfs, on one pool of processors and on two groups of
// different speeds.
#include <algorithm>
#include <map>

#include "core/sim/replay.h"
#include "core/sim/simulator.h"
#include "loadgen/grpc_sim_driver.h"
#include "tests/core/sim/random_workload.h"
#include "tests/server/server_fixture.h"
#include "tests/testing/status.h"

namespace resched::server::testing {
namespace {

constexpr int kProcessors = 16;

// The workload's widths (up to kProcessors) all fit the slow group.
const std::vector<ProcessorGroup> kOnePool = {{"", kProcessors, 1.0}};
const std::vector<ProcessorGroup> kTwoSpeeds = {{"slow", kProcessors, 1.0}, {"fast", 8, 2.0}};

class SimEquivalenceTest : public ServerTest {
 protected:
  void ExpectSameAllocations(const std::vector<ProcessorGroup>& groups, const std::string& name);
};

void SimEquivalenceTest::ExpectSameAllocations(const std::vector<ProcessorGroup>& groups,
                                               const std::string& name) {
  const Workload workload = ::resched::testing::RandomWorkload(2024, 200, kProcessors);
  for (const std::string policy : {"conservative", "easy", "fcfs"}) {
    SCOPED_TRACE(policy);
    const ClusterSpec spec{"sim", groups, ClockKind::kSimulated, policy, {}};
    auto simulated = Simulate(workload, spec, {});
    ASSERT_OK(simulated);

    const std::string cluster = name + "-" + policy;
    CreateSimOn(cluster, groups, policy);
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
      EXPECT_EQ(g.group, s.group);
      early += s.ended_early;
    }
    EXPECT_GT(early, 0);
    if (groups.size() > 1) {  // both groups ran jobs
      for (int group = 0; group < static_cast<int>(groups.size()); ++group) {
        EXPECT_GT(std::count_if(served->begin(), served->end(),
                                [&](const SimJobRecord& r) { return r.group == group; }),
                  0)
            << groups[group].name;
      }
    }

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
    EXPECT_EQ(schedule.groups_size(), groups.size() > 1 ? static_cast<int>(groups.size()) : 0);
  }
}

TEST_F(SimEquivalenceTest, ServerAndSimulatorGiveEveryJobTheSameAllocation) {
  ExpectSameAllocations(kOnePool, "equivalence");
}

TEST_F(SimEquivalenceTest, ServerAndSimulatorAgreeOnGroupsOfTwoSpeeds) {
  ExpectSameAllocations(kTwoSpeeds, "speeds");
}

}  // namespace
}  // namespace resched::server::testing
