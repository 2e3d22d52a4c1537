// ClusterPlan::Copy, the copy a dry run works on: from the moment of the copy, the same
// operations must give the same schedule on the copy as on the plan, for every policy, also
// for those that remember something between calls (the parts of Split and of the reservation
// scheme).
#include <map>
#include <string>
#include <vector>

#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"
#include "gtest/gtest.h"
#include "tests/core/online/random_ops.h"

namespace resched {
namespace {

using testing::MakePlanWith;
using testing::RandomOptions;
using testing::RunRandomOps;

void ExpectSameSchedule(const ClusterPlan& a, const ClusterPlan& b) {
  const std::vector<const JobRecord*> ja = a.Jobs();
  const std::vector<const JobRecord*> jb = b.Jobs();
  ASSERT_EQ(ja.size(), jb.size());
  for (std::size_t i = 0; i < ja.size(); ++i) {
    SCOPED_TRACE(ja[i]->job.id);
    ASSERT_EQ(ja[i]->job.id, jb[i]->job.id);
    EXPECT_EQ(ja[i]->state, jb[i]->state);
    EXPECT_EQ(ja[i]->placed, jb[i]->placed);
    EXPECT_EQ(ja[i]->allocation.k, jb[i]->allocation.k);
    EXPECT_EQ(ja[i]->allocation.start, jb[i]->allocation.start);
    EXPECT_EQ(ja[i]->allocation.end, jb[i]->allocation.end);
  }
}

struct Case {
  std::string policy;
  AlgorithmParams params;
};

// Parameters that make the partitioned policies split an 8-processor test cluster and its short
// jobs into several parts; every other policy runs with its defaults.
TEST(ClusterPlanCopyTest, ACopyGoesOnAsThePlanDoes) {
  int policies = 0;
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    if (info.kind != AlgorithmKind::kPolicy) continue;
    ++policies;
    const Case c{info.name, testing::PolicyTestParams(info.name)};
    for (std::uint64_t seed : {1, 2, 3}) {
      SCOPED_TRACE(c.policy + " seed " + std::to_string(seed));
      auto plan = MakePlanWith(c.policy, 8, c.params);
      ASSERT_NE(plan, nullptr);
      const RandomOptions options{.steps = 60, .max_k = 8};
      RunRandomOps({plan.get()}, seed, options);
      auto copy = plan->Copy();
      ExpectSameSchedule(*plan, *copy);
      RunRandomOps({plan.get(), copy.get()}, seed + 100, options,
                   [&](int) { ExpectSameSchedule(*plan, *copy); });
    }
  }
  EXPECT_GE(policies, 10);
}

}  // namespace
}  // namespace resched
