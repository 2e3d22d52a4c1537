// InlineCall: a call tried on gRPC's own thread runs only when nothing in it can wait, and a
// declined call has changed nothing (ClusterState declines it before running the call's code).
#include "server/inline_call.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "gtest/gtest.h"
#include "server/cluster_state.h"
#include "server/deferred_durability.h"
#include "server/store/journal.h"
#include "tests/server/simulated_cluster.h"
#include "tests/testing/status.h"

namespace resched::server {
namespace {

// A change that records nothing, taking at least `busy`.
ClusterState::ChangeFn Taking(std::chrono::microseconds busy, bool* ran) {
  return [busy, ran](ClusterState::Txn&) -> std::optional<pb::JournalRecord> {
    std::this_thread::sleep_for(busy);
    *ran = true;
    return std::nullopt;
  };
}

TEST(InlineCall, MarksOnlyItsOwnThreadForItsScope) {
  EXPECT_FALSE(InlineCall::Running());
  {
    InlineCall call;
    EXPECT_TRUE(InlineCall::Running());
    std::thread([] { EXPECT_FALSE(InlineCall::Running()); }).join();
    EXPECT_FALSE(call.declined());
    EXPECT_THAT(InlineCall::Decline(),
                ::resched::testing::StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
    EXPECT_TRUE(call.declined());
  }
  EXPECT_FALSE(InlineCall::Running());
  // Outside an inline call, declining marks nothing and does not crash.
  EXPECT_FALSE(InlineCall::Decline().ok());
}

TEST(InlineCall, RunsOnAFreeFastCluster) {
  auto state = SimulatedCluster();
  InlineCall call;
  bool read = false;
  EXPECT_OK(state->Run([&](ClusterState::Txn&) { read = true; }));
  bool changed = false;
  EXPECT_OK(state->Change(Taking(std::chrono::microseconds(0), &changed)));
  EXPECT_TRUE(read);
  EXPECT_TRUE(changed);
  EXPECT_FALSE(call.declined());
}

TEST(InlineCall, IsDeclinedWithoutRunningWhileTheLockIsHeld) {
  auto state = SimulatedCluster();
  std::promise<void> holding;
  std::promise<void> release;
  std::thread holder([&] {
    EXPECT_OK(state->Run([&](ClusterState::Txn&) {
      holding.set_value();
      release.get_future().wait();
    }));
  });
  holding.get_future().wait();
  {
    InlineCall call;
    bool ran = false;
    EXPECT_FALSE(state->Run([&](ClusterState::Txn&) { ran = true; }).ok());
    EXPECT_FALSE(state->Change(Taking(std::chrono::microseconds(0), &ran)).ok());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(call.declined());
  }
  release.set_value();
  holder.join();
}

TEST(InlineCall, IsDeclinedAfterASlowChangeUntilAFastOne) {
  auto state = SimulatedCluster();
  bool slow = false;
  EXPECT_OK(state->Change(Taking(std::chrono::milliseconds(5), &slow)));
  ASSERT_TRUE(slow);
  {
    InlineCall call;
    bool ran = false;
    EXPECT_FALSE(state->Change(Taking(std::chrono::microseconds(0), &ran)).ok());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(call.declined());
  }
  // A fast change (on a worker) lets inline calls in again. Retried: on a loaded machine a
  // preempted change that does nothing can itself take longer than the limit.
  bool ran_inline = false;
  for (int attempt = 0; attempt < 100 && !ran_inline; ++attempt) {
    bool fast = false;
    EXPECT_OK(state->Change(Taking(std::chrono::microseconds(0), &fast)));
    InlineCall call;
    bool ran = false;
    const absl::Status status = state->Change(Taking(std::chrono::microseconds(0), &ran));
    EXPECT_EQ(status.ok(), ran);
    ran_inline = ran && !call.declined();
  }
  EXPECT_TRUE(ran_inline);
}

TEST(InlineCall, IsDeclinedOnADurableClusterWhoseAnswerWaitsForTheJournal) {
  char pattern[] = "/tmp/resched-inline-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  {
    auto journal = ::resched::testing::OkValue(Journal::Open(dir));
    auto state = SimulatedCluster();
    Durability durability;
    durability.journal = journal.get();
    state->AttachDurability(std::move(durability));
    InlineCall call;
    bool ran = false;
    EXPECT_FALSE(state->Run([&](ClusterState::Txn&) { ran = true; }).ok());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(call.declined());
  }
  std::filesystem::remove_all(dir);
}

// A change that journals a record (of nothing but its method).
std::optional<pb::JournalRecord> Journaled(ClusterState::Txn&) {
  pb::JournalRecord record;
  record.set_method("test");
  return record;
}

// Settles `deferred` and returns what it settled with.
absl::Status Settle(DeferredDurability& deferred) {
  std::promise<absl::Status> settled;
  std::move(deferred).Then([&](absl::Status status) { settled.set_value(std::move(status)); });
  return settled.get_future().get();
}

TEST(InlineCall, RunsOnADurableClusterWhenItsWaitIsDeferred) {
  char pattern[] = "/tmp/resched-inline-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  {
    auto journal = ::resched::testing::OkValue(Journal::Open(dir));
    auto state = SimulatedCluster();
    Durability durability;
    durability.journal = journal.get();
    state->AttachDurability(std::move(durability));
    DeferredDurability deferred;
    {
      InlineCall call;
      EXPECT_OK(state->Change(Journaled));
      EXPECT_FALSE(call.declined());
    }
    EXPECT_TRUE(deferred.pending());
    EXPECT_OK(Settle(deferred));
    EXPECT_TRUE(journal->Durable(journal->last_lsn()));
  }
  std::filesystem::remove_all(dir);
}

TEST(InlineCall, IsDeclinedOnADurableClusterWhoseRecordMayMakeASnapshotDue) {
  char pattern[] = "/tmp/resched-inline-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  {
    auto journal = ::resched::testing::OkValue(Journal::Open(dir));
    auto state = SimulatedCluster();
    int captured = 0;
    Durability durability;
    durability.journal = journal.get();
    durability.snapshot = [&](CapturedSnapshot capture) {
      ++captured;
      capture.in_flight->store(false);
    };
    durability.snapshot_every = 2;
    state->AttachDurability(std::move(durability));
    DeferredDurability deferred;
    EXPECT_OK(state->Change(Journaled));  // one record: the next one makes a snapshot due
    {
      InlineCall call;
      bool ran = false;
      EXPECT_FALSE(state
                       ->Change([&](ClusterState::Txn& txn) {
                         ran = true;
                         return Journaled(txn);
                       })
                       .ok());
      EXPECT_FALSE(ran);
      EXPECT_TRUE(call.declined());
    }
    EXPECT_EQ(captured, 0);
    EXPECT_OK(state->Change(Journaled));  // on a worker, it runs and captures
    EXPECT_EQ(captured, 1);
    EXPECT_OK(Settle(deferred));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace resched::server
