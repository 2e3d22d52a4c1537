#include "core/model/dag.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

Dag Chain(int n) {
  Dag dag;
  for (int i = 0; i < n; ++i) {
    dag.tasks.push_back({absl::StrCat("t", i), RuntimeModel(RigidModel{1, 10})});
  }
  for (int i = 0; i + 1 < n; ++i) dag.edges.push_back({i, i + 1, 0});
  return dag;
}

TEST(DagTest, TopologicalOrderIsDeterministic) {
  Dag dag = Chain(3);
  dag.tasks.push_back({"free", RuntimeModel(RigidModel{1, 10})});
  auto order = TopologicalOrder(dag);
  ASSERT_OK(order);
  EXPECT_EQ(*order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_OK(ValidateDag(dag, 4));
}

TEST(DagTest, CycleIsNamed) {
  Dag dag = Chain(3);
  dag.edges.push_back({2, 1, 0});
  const auto status = ValidateDag(dag, 4);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "dag.edges form a cycle: t2 -> t1 -> t2");
}

TEST(DagTest, RejectsBadEdgesAndNames) {
  Dag dag = Chain(2);
  dag.edges.push_back({0, 5, 0});
  EXPECT_NE(ValidateDag(dag, 4).message().find("dag.edges[1] must join tasks in [0, 2)"),
            std::string::npos);
  dag = Chain(2);
  dag.edges.push_back({1, 1, 0});
  EXPECT_NE(ValidateDag(dag, 4).message().find("self-loop"), std::string::npos);
  dag = Chain(2);
  dag.tasks[1].name = "t0";
  EXPECT_NE(ValidateDag(dag, 4).message().find("used twice"), std::string::npos);
  dag = Chain(2);
  dag.tasks[0].model = RuntimeModel(RigidModel{8, 10});
  EXPECT_NE(ValidateDag(dag, 4).message().find("dag.tasks[0].model: no allowed width"),
            std::string::npos);
  EXPECT_NE(ValidateDag(Dag{}, 4).message().find("dag.tasks is empty"), std::string::npos);
}

}  // namespace
}  // namespace resched
