#include "core/registry/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "core/dag/resscheddl.h"
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

// Counts, processors and seeds are whole numbers, and flags 0 or 1: a fraction is refused,
// naming the parameter, rather than rounded.
TEST(RegistryTest, WholeNumberParametersRefuseFractions) {
  EXPECT_EQ(CheckAlgorithm("policy", "split", AlgorithmKind::kPolicy, {{"rho", 2.5}}).message(),
            "policy.params.rho must be a whole number, got 2.5");
  EXPECT_EQ(
      CheckAlgorithm("algorithm", "bicriteria", AlgorithmKind::kPlanner, {{"seed", 1.5}}).message(),
      "algorithm.params.seed must be a whole number, got 1.5");
  EXPECT_EQ(CheckAlgorithm("algorithm", "dl_rc_cpar", AlgorithmKind::kDagPlanner,
                           {{"cpa_reallocate", 0.5}})
                .message(),
            "algorithm.params.cpa_reallocate must be 0 or 1, got 0.5");
  EXPECT_EQ(
      CheckAlgorithm("algorithm", "dl_rc_cpa", AlgorithmKind::kDagPlanner, {{"fallback", 1.5}})
          .message(),
      "algorithm.params.fallback must be one of 0 (none), 1 (cpa-bounded), 2 (widest), "
      "got 1.5");
  EXPECT_OK(CheckAlgorithm("policy", "dbos", AlgorithmKind::kPolicy, {{"rho", 2.5}}));
  EXPECT_OK(CheckAlgorithm("policy", "split", AlgorithmKind::kPolicy, {{"rho", 3}}));
}

TEST(RegistryTest, EveryDefaultFitsItsRangeAndType) {
  for (const AlgorithmInfo& info : AlgorithmRegistry()) {
    for (const ParamInfo& param : info.params) {
      SCOPED_TRACE(info.name + "." + param.name);
      EXPECT_FALSE(param.description.empty());
      EXPECT_OK(
          CheckAlgorithm("algorithm", info.name, info.kind, {{param.name, param.default_value}}));
      if (param.type == ParamType::kFlag) {
        EXPECT_EQ(param.min, 0);
        EXPECT_EQ(param.max, 1);
      }
    }
  }
}

// A parameter reaches the algorithm's typed options; one left out takes the entry's default.
TEST(RegistryTest, ParametersReachTheTypedOptions) {
  constexpr Duration kHourMicros = 3600LL * 1'000'000;
  auto windowed = MakeDagPlanner("bl_cpar_bd_cpar", {{"q_window_hours", 2}});
  ASSERT_OK(windowed);
  EXPECT_EQ((*windowed)->HistoryWindow(), 2 * kHourMicros);
  auto deadline = MakeDagPlanner("dl_bd_cpa", {});
  ASSERT_OK(deadline);
  EXPECT_EQ((*deadline)->HistoryWindow(), 168 * kHourMicros);
  const ParamInfo* lambda = nullptr;
  for (const ParamInfo& p : FindAlgorithm("dl_rc_cpar")->params) {
    if (p.name == "lambda") lambda = &p;
  }
  ASSERT_NE(lambda, nullptr);
  EXPECT_EQ(lambda->default_value, 1.5);
  EXPECT_EQ(FindAlgorithm("split")->params[0].type, ParamType::kInteger);
  const ParamInfo* fallback = nullptr;
  for (const ParamInfo& p : FindAlgorithm("dl_rc_cpa")->params) {
    if (p.name == "fallback") fallback = &p;
  }
  ASSERT_NE(fallback, nullptr);
  EXPECT_EQ(fallback->type, ParamType::kChoice);
  EXPECT_EQ(fallback->choices, DlRcFallbackNames());
  EXPECT_EQ(fallback->choices[static_cast<int>(fallback->default_value)], "cpa-bounded");
  EXPECT_EQ(fallback->max, 2);
}

}  // namespace
}  // namespace resched
