// Every built policy on random workloads: valid schedules (Simulate validates), deterministic
// records, independence from the plan's retention limit; and the replay loop's guards.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "core/registry/registry.h"
#include "core/sim/simulator.h"
#include "tests/core/sim/random_workload.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

ClusterSpec RandomSimSpec(const std::string& policy, int processors) {
  return ClusterSpec{"sim", {{"", processors, 1.0}}, ClockKind::kSimulated, policy, {}};
}

void ExpectSameRecords(const std::vector<SimJobRecord>& a, const std::vector<SimJobRecord>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].id);
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].release, b[i].release);
    EXPECT_EQ(a[i].k, b[i].k);
    EXPECT_EQ(a[i].start, b[i].start);
    EXPECT_EQ(a[i].end, b[i].end);
    EXPECT_EQ(a[i].sequential_time, b[i].sequential_time);
    EXPECT_EQ(a[i].ended_early, b[i].ended_early);
  }
}

TEST(RandomSim, EveryBuiltPolicyGivesAValidSchedule) {
  // A lighter load than the other tests: some policies slow down with very long queues.
  const Workload w = testing::RandomWorkload(7, 300, 16, 360 * kMicrosPerSecond);
  int policies = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    SCOPED_TRACE(info.name);
    ++policies;
    auto result = Simulate(w, RandomSimSpec(info.name, 16), {});
    ASSERT_OK(result);
    ASSERT_EQ(result->jobs.size(), w.jobs.size());
    int early = 0;
    for (const SimJobRecord& r : result->jobs) {
      EXPECT_GE(r.start, r.release) << r.id;
      EXPECT_GT(r.end, r.start) << r.id;
      early += r.ended_early;
    }
    EXPECT_GT(early, 0);
    EXPECT_EQ(result->metrics.jobs, 300);
    EXPECT_GT(result->metrics.utilization, 0);
    EXPECT_LE(result->metrics.utilization, 1);
    int classified = 0;
    for (const FairnessBin& bin : result->fairness.bins) classified += bin.jobs;
    EXPECT_EQ(classified, 300);
  }
  EXPECT_GE(policies, 3);
}

TEST(RandomSim, Deterministic) {
  const Workload w = testing::RandomWorkload(11, 300, 8);
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    SCOPED_TRACE(policy);
    auto first = Simulate(w, RandomSimSpec(policy, 8), {});
    auto second = Simulate(w, RandomSimSpec(policy, 8), {});
    ASSERT_OK(first);
    ASSERT_OK(second);
    ExpectSameRecords(first->jobs, second->jobs);
    EXPECT_EQ(first->metrics.mean_stretch, second->metrics.mean_stretch);
  }
}

TEST(RandomSim, MoreJobsThanThePlanRetains) {
  const Workload w = testing::RandomWorkload(13, 300, 8);
  SimOptions forgetful;
  forgetful.limits.max_retained_ended = 3;
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    SCOPED_TRACE(policy);
    auto full = Simulate(w, RandomSimSpec(policy, 8), {});
    auto pruned = Simulate(w, RandomSimSpec(policy, 8), {}, forgetful);
    ASSERT_OK(full);
    ASSERT_OK(pruned);
    ExpectSameRecords(full->jobs, pruned->jobs);
  }
}

// A cluster that plans every job one microsecond after now and never starts it.
class StallingDriver : public SimDriver {
 public:
  absl::StatusOr<JobId> Submit(const Job&) override {
    ids_.push_back(absl::StrCat("j", ids_.size() + 1));
    return ids_.back();
  }
  absl::Status ReportEnded(const JobId&, Time) override { return absl::OkStatus(); }
  absl::Status AdvanceTo(Time t) override {
    now_ = t;
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<JobView>> ActiveJobs() override {
    std::vector<JobView> out;
    for (const JobId& id : ids_) out.push_back({id, JobState::kQueued, {1, now_ + stall_, 0}});
    return out;
  }
  Time stall_ = 1;  // 0: the planned start is never after now

 private:
  std::vector<JobId> ids_;
  Time now_ = 0;
};

TEST(Replay, GuardsAgainstAClusterThatNeverStartsJobs) {
  const Workload w = testing::RandomWorkload(3, 5, 4);
  StallingDriver postponing;
  auto result = Replay(w, postponing);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal) << result.status();
  StallingDriver stuck;
  stuck.stall_ = 0;
  result = Replay(w, stuck);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal) << result.status();
}

}  // namespace
}  // namespace resched
