// ClusterState: a deleted cluster runs nothing more, even for a caller that found it before;
// calls, watchers and deletion from many threads at once (run under ThreadSanitizer by
// make test-tsan, without gRPC, whose Debian build TSan cannot see into).
#include "server/app/cluster_state.h"

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "core/metrics/validate.h"
#include "core/plan/cluster_plan_image.h"
#include "core/plan/plan_change.h"
#include "gtest/gtest.h"
#include "proto/resched/snapshot_convert.h"
#include "tests/core/plan/same_image.h"
#include "tests/server/simulated_cluster.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server {
namespace {

using ::resched::testing::StatusIs;

TEST(ClusterState, DeleteRefusedByTheCheckChangesNothing) {
  CallContext own;
  auto state = SimulatedCluster();
  const absl::Status refused = state->Delete(
      [](const ClusterPlan&) { return absl::FailedPreconditionError("active jobs"); });
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kFailedPrecondition, "active jobs"));
  bool ran = false;
  EXPECT_OK(state->Run(own, [&](ClusterState::Txn&) { ran = true; }));
  EXPECT_TRUE(ran);
}

TEST(ClusterState, AfterDeleteRunAndSnapshotAnswerNotFoundWithoutRunning) {
  CallContext own;
  auto state = SimulatedCluster();
  ASSERT_OK(state->Delete([](const ClusterPlan&) { return absl::OkStatus(); }));
  bool ran = false;
  EXPECT_THAT(state->Run(own, [&](ClusterState::Txn&) { ran = true; }),
              StatusIs(absl::StatusCode::kNotFound, "cluster 'c' was deleted"));
  EXPECT_FALSE(ran);
  EXPECT_THAT(state->CopyPlan(own), StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  EXPECT_THAT(state->Delete([](const ClusterPlan&) { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

// A failed call's undo (its re-bookings under new ids) goes with the next record; calls that keep
// failing journal it alone once it outgrows the bound, so it cannot pile up in memory. Applying
// the records to a copy of the cluster as it was gives the cluster's state, reservation ids and
// all.
TEST(ClusterState, AnUndoThatOutgrowsTheBoundIsJournaledAlone) {
  CallContext own;
  const resched::testing::TempDir dir("resched-undo");
  auto journal = Journal::Open(dir.path());
  ASSERT_OK(journal);
  auto state = SimulatedCluster();
  auto follower =
      ClusterPlan::FromImage(::resched::testing::OkValue(state->CopyPlan(own))->Image());
  ASSERT_OK(follower);
  Durability durability;
  durability.journal = journal->get();
  durability.max_carried_ops = 20;
  state->AttachDurability(durability);
  auto submit = [&](Time seconds) {
    return state->Change(own, [&](ClusterState::Txn& txn) -> std::optional<pb::JournalRecord> {
      Job job;
      job.model = RuntimeModel(RigidModel{4, seconds * kMicrosPerSecond});
      if (!txn.plan.Submit(job).ok()) return std::nullopt;
      return pb::JournalRecord();
    });
  };
  for (int i = 0; i < 6; ++i) ASSERT_OK(submit(100));
  // A hold the queue makes room for, which does not fit even then: every queued job is unbooked
  // and booked again where it was, under a new id, and the call fails.
  auto refused_hold = [&] {
    ASSERT_OK(state->Change(own, [&](ClusterState::Txn& txn) -> std::optional<pb::JournalRecord> {
      EXPECT_FALSE(txn.plan.AddReservation(4, 0, 50 * kMicrosPerSecond, "", true).ok());
      return std::nullopt;
    }));
  };
  const std::int64_t before = (*journal)->last_lsn();
  for (int i = 0; i < 10; ++i) refused_hold();
  EXPECT_GT((*journal)->last_lsn(), before) << "the undos were journaled alone";
  ASSERT_OK(submit(100));
  ASSERT_OK((*journal)->Scan([&](const StoredRecord& stored) {
    pb::JournalRecord record;
    EXPECT_TRUE(record.ParseFromString(stored.payload));
    absl::StatusOr<PlanChange> change = FromJournal(record.plan_change());
    if (!change.ok()) return change.status();
    return (*follower)->ApplyChange(*std::move(change));
  }));
  ::resched::testing::ExpectSameImage(::resched::testing::OkValue(state->CopyPlan(own))->Image(),
                                      (*follower)->Image());
}

// Collects what a cluster pushes, as a WatchSchedule stream would, from the publishing threads.
class RecordingSink final : public ScheduleSink {
 public:
  void Push(const SharedEvent& event) override {
    MutexLock lock(&mu_);
    sequences_.push_back(event.event->sequence());
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
  CallContext own;
  auto state = SimulatedCluster();
  auto early = std::make_shared<RecordingSink>();
  ASSERT_TRUE(
      state->Watch(early, [](const ClusterPlan&, const ProcessorRows&) { return pb::Schedule(); })
          .has_value());
  constexpr int kThreads = 4;
  constexpr int kSubmissionsEach = 50;
  std::atomic<int> accepted = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSubmissionsEach; ++i) {
        const absl::Status ran = state->Run(own, [&](ClusterState::Txn& txn) {
          if (txn.plan.Submit(RigidJob(1 + i % 4, 10)).ok()) ++accepted;
        });
        if (!ran.ok()) return;  // deleted meanwhile
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 20; ++i) {
      auto sink = std::make_shared<RecordingSink>();
      (void)state->Watch(sink,
                         [](const ClusterPlan&, const ProcessorRows&) { return pb::Schedule(); });
      absl::StatusOr<std::unique_ptr<ClusterPlan>> copy = state->CopyPlan(own);
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
    const absl::Status ran = state->Run(own, [](ClusterState::Txn&) {});
    EXPECT_TRUE(ran.ok() || absl::IsNotFound(ran)) << ran;
  });
  deleter.join();
  late.join();
  EXPECT_TRUE(early->ended());
}

}  // namespace
}  // namespace resched::server
