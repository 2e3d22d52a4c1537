// The runtime-model contract, for every algorithm the registry builds: a task or job is placed
// only at a width its model allows, for exactly the time its model gives at that width. Random
// tasks of every model kind, including rigid k > 1 and k_min > 1.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/metrics/validate.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/dag/dag_test_util.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using testing::kHour;
using testing::kMinute;

constexpr int kCapacity = 16;

// A valid model of a random kind; widths may start above 1.
RuntimeModel RandomModel(std::mt19937_64& rng) {
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const Duration t1 = std::uniform_int_distribution<Duration>(kMinute, 4 * kHour)(rng);
  switch (rng() % 7) {
    case 0: {
      TableModel table;
      Duration time = t1;
      for (int k = between(1, 4); k <= kCapacity; k += between(1, 6)) {
        table.entries.push_back({k, time});
        time = std::max<Duration>(1, time * 3 / 4);
      }
      return RuntimeModel(table);
    }
    case 1: {
      const int k_min = between(1, 6);
      return RuntimeModel(AmdahlModel{t1, uniform(0, 0.3), k_min, between(0, 1) * kCapacity});
    }
    case 2:
      return RuntimeModel(DowneyModel{t1, uniform(1, 32), uniform(0, 2), between(1, 4), 0});
    case 3:
      return RuntimeModel(RigidModel{between(1, kCapacity), t1});
    case 4: {
      PowerOfTwoModel steps;
      Duration time = t1;
      for (int k = 1; k <= kCapacity; k *= 2) {
        steps.times.push_back(time);
        time = std::max<Duration>(1, time * 2 / 3);
      }
      return RuntimeModel(steps);
    }
    case 5:
      return RuntimeModel(CeilModel{between(1, kCapacity), t1 / 4 + 1});
    default:
      return RuntimeModel(CommunicationModel{uniform(1e11, 1e13), uniform(100, 2000), 1e-4, 1e8,
                                             1e9, between(1, 3), 0});
  }
}

// `k` is allowed by `model` on the test cluster and [start, end) lasts the model's time at k.
void ExpectHonoursModel(const RuntimeModel& model, int k, Time start, Time end,
                        const std::string& what) {
  const std::vector<int> widths = model.Widths(kCapacity);
  EXPECT_TRUE(std::find(widths.begin(), widths.end(), k) != widths.end())
      << what << ": width " << k << " is not allowed by its " << model.KindName() << " model";
  if (k > 0) {
    EXPECT_EQ(end - start, model.TimeOn(k)) << what << " on " << k << " processors";
  }
}

bool AllowsOneProcessor(const Dag& dag) {
  return std::all_of(dag.tasks.begin(), dag.tasks.end(), [](const Task& t) {
    const std::vector<int> widths = t.model.Widths(kCapacity);
    return !widths.empty() && widths.front() == 1;
  });
}

TEST(RuntimeContract, EveryDagPlannerPlacesTasksAsTheirModelsSay) {
  int planners = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kDagPlanner) continue;
    ++planners;
    const std::unique_ptr<DagPlanner> planner = testing::OkValue(MakeDagPlanner(info.name, {}));
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(info.name + " seed " + std::to_string(seed));
      std::mt19937_64 rng(seed);
      Dag dag = testing::RandomDag(rng, 12);
      for (Task& task : dag.tasks) task.model = RandomModel(rng);
      const Timeline busy = testing::RandomTimeline(rng, kCapacity, 40, 24 * kHour);
      const DagPlanningInput input{&dag, &busy, kHour, kCapacity / 2, {}, {}};
      absl::StatusOr<DagPlan> plan = planner->Plan(input);
      if (info.name == "heft" && !AllowsOneProcessor(dag)) {
        EXPECT_THAT(plan, testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                            ::testing::HasSubstr("does not allow width 1")));
        continue;
      }
      ASSERT_OK(plan);
      testing::ExpectValidPlan(dag, *plan, busy, input.release);
      for (std::size_t i = 0; i < dag.tasks.size(); ++i) {
        const TaskReservation& t = plan->tasks[i];
        ExpectHonoursModel(dag.tasks[i].model, t.k, t.start, t.end, dag.tasks[i].name);
      }
    }
  }
  EXPECT_GE(planners, 24);
}

TEST(RuntimeContract, EveryPolicyPlacesJobsAsTheirModelsSay) {
  int policies = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    ++policies;
    SCOPED_TRACE(info.name);
    std::mt19937_64 rng(7);
    const ClusterSpec spec{
        "contract", {{"", kCapacity, 1.0}}, ClockKind::kSimulated, info.name, {}};
    std::unique_ptr<ClusterPlan> plan = testing::OkValue(ClusterPlan::Create(spec, {}, 0));
    std::vector<RuntimeModel> models;
    for (int j = 0; j < 40; ++j) {
      Job job;
      job.model = RandomModel(rng);
      job.release = std::uniform_int_distribution<Time>(0, 2 * kHour)(rng);
      models.push_back(job.model);
      ASSERT_OK(plan->Submit(std::move(job)));
      if (j % 10 == 9) {
        ASSERT_OK(plan->AdvanceTo(plan->now() + 30 * kMinute));
      }
    }
    ASSERT_OK(ValidateSchedule(plan->ToValidate()));
    const std::vector<const JobRecord*> jobs = plan->Jobs();
    ASSERT_EQ(jobs.size(), models.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const Allocation& a = jobs[j]->allocation;
      ExpectHonoursModel(models[j], a.k, a.start, a.end, jobs[j]->job.id);
    }
  }
  EXPECT_GE(policies, 10);
}

}  // namespace
}  // namespace resched
