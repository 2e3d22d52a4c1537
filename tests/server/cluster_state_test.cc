// ClusterState: a deleted cluster runs nothing more, even for a caller that found it before.
#include "server/cluster_state.h"

#include "gtest/gtest.h"
#include "tests/testing/status.h"

namespace resched::server {
namespace {

using ::resched::testing::StatusIs;

std::unique_ptr<ClusterState> SimulatedCluster() {
  ClusterSpec spec{"c", {{"", 4, 1.0}}, ClockKind::kSimulated, "fcfs"};
  return std::make_unique<ClusterState>(
      ::resched::testing::OkValue(ClusterPlan::Create(spec, {}, 0)), AlgorithmParams{});
}

TEST(ClusterState, DeleteRefusedByTheCheckChangesNothing) {
  auto state = SimulatedCluster();
  const absl::Status refused = state->Delete(
      [](const ClusterPlan&) { return absl::FailedPreconditionError("active jobs"); });
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kFailedPrecondition, "active jobs"));
  bool ran = false;
  EXPECT_OK(state->Run([&](ClusterState::Txn&) { ran = true; }));
  EXPECT_TRUE(ran);
}

TEST(ClusterState, AfterDeleteRunAndSnapshotAnswerNotFoundWithoutRunning) {
  auto state = SimulatedCluster();
  ASSERT_OK(state->Delete([](const ClusterPlan&) { return absl::OkStatus(); }));
  bool ran = false;
  EXPECT_THAT(state->Run([&](ClusterState::Txn&) { ran = true; }),
              StatusIs(absl::StatusCode::kNotFound, "cluster 'c' was deleted"));
  EXPECT_FALSE(ran);
  EXPECT_THAT(state->Snapshot(), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  EXPECT_THAT(state->Delete([](const ClusterPlan&) { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

}  // namespace
}  // namespace resched::server
