#include "core/registry/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/testing/status.h"

namespace resched {
namespace {

TEST(RegistryTest, NamesAreUniqueAndDescribed) {
  std::set<std::string> names;
  for (const auto& info : AlgorithmRegistry()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_FALSE(info.paper.empty()) << info.name;
  }
  for (const char* name : {"conservative", "easy", "fcfs", "mrt", "bl_cpar_bd_cpar"}) {
    EXPECT_NE(FindAlgorithm(name), nullptr) << name;
  }
}

// Every registered algorithm is built: its factory is set, and it builds with its defaults.
TEST(RegistryTest, EveryEntryBuildsWithItsDefaults) {
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    switch (info.kind) {
      case AlgorithmKind::kPolicy:
        ASSERT_TRUE(info.make_policy) << info.name;
        break;
      case AlgorithmKind::kDagPlanner:
        ASSERT_TRUE(info.make_dag_planner) << info.name;
        EXPECT_OK(MakeDagPlanner(info.name, {}).status()) << info.name;
        break;
      case AlgorithmKind::kPlanner:
        ASSERT_TRUE(info.make_offline_planner) << info.name;
        EXPECT_OK(MakeOfflinePlanner(info.name, {}).status()) << info.name;
        break;
    }
  }
}

TEST(RegistryTest, ChecksNamesKindsAndParameters) {
  EXPECT_OK(CheckAlgorithm("policy", "easy", AlgorithmKind::kPolicy, {}));
  auto unknown = CheckAlgorithm("policy", "nope", AlgorithmKind::kPolicy, {});
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("policy.name must be a policy of the registry"),
            std::string::npos);
  EXPECT_EQ(CheckAlgorithm("policy", "mrt", AlgorithmKind::kPolicy, {}).code(),
            absl::StatusCode::kInvalidArgument);  // a planner, not a policy
  EXPECT_EQ(CheckAlgorithm("policy", "easy", AlgorithmKind::kPolicy, {{"rho", 2}}).code(),
            absl::StatusCode::kInvalidArgument);  // easy takes no parameters
  auto out_of_range = CheckAlgorithm("policy", "dbos", AlgorithmKind::kPolicy, {{"rho", 0.5}});
  EXPECT_EQ(out_of_range.message(), "policy.params.rho must be in [1, 64], got 0.5");
  EXPECT_OK(CheckAlgorithm("algorithm", "mrt", AlgorithmKind::kPlanner, {{"epsilon", 0.01}}));
}

}  // namespace
}  // namespace resched
