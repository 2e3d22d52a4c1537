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
  EXPECT_TRUE(FindAlgorithm("conservative")->implemented());
  EXPECT_TRUE(FindAlgorithm("easy")->implemented());
  EXPECT_TRUE(FindAlgorithm("fcfs")->implemented());
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
  // Every algorithm the five papers define is built: none answers UNIMPLEMENTED any more.
  for (const AlgorithmInfo& info : AlgorithmRegistry())
    EXPECT_TRUE(info.implemented()) << info.name;
  EXPECT_OK(CheckAlgorithm("algorithm", "mrt", AlgorithmKind::kPlanner, {{"epsilon", 0.01}}));
}

}  // namespace
}  // namespace resched
