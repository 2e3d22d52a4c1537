// ClusterState: a deleted cluster runs nothing more, even for a caller that found it before;
// calls, watchers and deletion from many threads at once (run under ThreadSanitizer by
// make test-tsan, without gRPC, whose Debian build TSan cannot see into).
#include "server/cluster_state.h"

#include <atomic>
#include <thread>
#include <vector>

#include "core/metrics/validate.h"
#include "gtest/gtest.h"
#include "tests/server/simulated_cluster.h"
#include "tests/testing/status.h"

namespace resched::server {
namespace {

using ::resched::testing::StatusIs;

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

// Collects what a cluster pushes, as a WatchSchedule stream would, from the publishing threads.
class RecordingSink final : public ScheduleSink {
 public:
  void Push(const pb::ScheduleEvent& event) override {
    MutexLock lock(&mu_);
    sequences_.push_back(event.sequence());
  }
  void End(const absl::Status&) override {
    MutexLock lock(&mu_);
    ended_ = true;
  }
  bool Closed() const override { return false; }

  std::vector<std::int64_t> sequences() {
    MutexLock lock(&mu_);
    return sequences_;
  }
  bool ended() {
    MutexLock lock(&mu_);
    return ended_;
  }

 private:
  Mutex mu_;
  std::vector<std::int64_t> sequences_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

Job RigidJob(int k, Duration seconds) {
  Job job;
  job.model = RuntimeModel(RigidModel{k, seconds * kMicrosPerSecond});
  return job;
}

TEST(ClusterState, ConcurrentSubmissionsWatchersAndADeletionStayConsistent) {
  auto state = SimulatedCluster();
  auto early = std::make_shared<RecordingSink>();
  ASSERT_TRUE(state->Watch(early, [](const ClusterPlan&) { return pb::Schedule(); }).has_value());
  constexpr int kThreads = 4;
  constexpr int kSubmissionsEach = 50;
  std::atomic<int> accepted = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSubmissionsEach; ++i) {
        const absl::Status ran = state->Run([&](ClusterState::Txn& txn) {
          if (txn.plan.Submit(RigidJob(1 + i % 4, 10)).ok()) ++accepted;
        });
        if (!ran.ok()) return;  // deleted meanwhile
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 20; ++i) {
      auto sink = std::make_shared<RecordingSink>();
      (void)state->Watch(sink, [](const ClusterPlan&) { return pb::Schedule(); });
      absl::StatusOr<std::unique_ptr<ClusterPlan>> copy = state->Snapshot();
      if (copy.ok()) {
        EXPECT_OK(ValidateSchedule((*copy)->ToValidate()));
      }
    }
  });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(accepted.load(), kThreads * kSubmissionsEach);
  // Every event reached the early watcher once, in sequence order: at least one per job.
  const std::vector<std::int64_t> seen = early->sequences();
  ASSERT_GE(seen.size(), static_cast<std::size_t>(kThreads * kSubmissionsEach));
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[i - 1] + 1);

  std::thread deleter([&] {
    EXPECT_OK(state->Delete([](const ClusterPlan&) { return absl::OkStatus(); }));
    state->EndWatchers(absl::NotFoundError("deleted"));
  });
  std::thread late([&] {
    const absl::Status ran = state->Run([](ClusterState::Txn&) {});
    EXPECT_TRUE(ran.ok() || absl::IsNotFound(ran)) << ran;
  });
  deleter.join();
  late.join();
  EXPECT_TRUE(early->ended());
}

}  // namespace
}  // namespace resched::server
