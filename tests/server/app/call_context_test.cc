// CallContext as ClusterState reads it: an inline call (tried on gRPC's own thread) runs only when
// nothing in it can wait, and a declined call has changed nothing (ClusterState declines it
// before running the call's code); a call with a DeferredDurability notes its journal waits.
#include "server/app/call_context.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "gtest/gtest.h"
#include "server/app/cluster_state.h"
#include "server/app/deferred_durability.h"
#include "server/store/journal.h"
#include "tests/server/simulated_cluster.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

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

// A SimulatedCluster journaled in a fresh directory, removed afterwards; `configure` adds to its
// durability.
struct DurableCluster {
  explicit DurableCluster(const std::function<void(Durability&)>& configure = {}) {
    journal = ::resched::testing::OkValue(Journal::Open(dir.path()));
    state = SimulatedCluster();
    Durability durability;
    durability.journal = journal.get();
    if (configure) configure(durability);
    state->AttachDurability(std::move(durability));
  }
  ~DurableCluster() {
    state.reset();
    journal.reset();  // closed before its directory goes
  }
  DurableCluster(const DurableCluster&) = delete;
  DurableCluster& operator=(const DurableCluster&) = delete;

  const resched::testing::TempDir dir{"resched-inline"};
  std::unique_ptr<Journal> journal;
  std::unique_ptr<ClusterState> state;
};

// An inline call, tried on gRPC's thread.
void MakeInline(CallContext& call) { call.set_runs_inline(true); }

TEST(InlineCall, TheServersOwnCallWaitsAndADeclineMarksTheCall) {
  CallContext own;
  EXPECT_FALSE(own.runs_inline());
  EXPECT_EQ(own.deferred(), nullptr);
  EXPECT_EQ(own.principal(), nullptr);
  EXPECT_EQ(own.tenant(), "");
  EXPECT_OK(own.Status());
  CallContext call;
  call.set_runs_inline(true);
  EXPECT_FALSE(call.declined());
  EXPECT_THAT(call.Decline(),
              ::resched::testing::StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  EXPECT_TRUE(call.declined());
  EXPECT_FALSE(own.declined());
  call.set_status_check([] { return absl::CancelledError("gone"); });
  EXPECT_THAT(call.Status(), ::resched::testing::StatusIs(absl::StatusCode::kCancelled, "gone"));
}

TEST(InlineCall, RunsOnAFreeFastCluster) {
  auto state = SimulatedCluster();
  CallContext call;
  MakeInline(call);
  bool read = false;
  EXPECT_OK(state->Run(call, [&](ClusterState::Txn&) { read = true; }));
  bool changed = false;
  EXPECT_OK(state->Change(call, Taking(std::chrono::microseconds(0), &changed)));
  EXPECT_TRUE(read);
  EXPECT_TRUE(changed);
  EXPECT_FALSE(call.declined());
}

TEST(InlineCall, IsDeclinedWithoutRunningWhileTheLockIsHeld) {
  auto state = SimulatedCluster();
  std::promise<void> holding;
  std::promise<void> release;
  std::thread holder([&] {
    CallContext own;
    EXPECT_OK(state->Run(own, [&](ClusterState::Txn&) {
      holding.set_value();
      release.get_future().wait();
    }));
  });
  holding.get_future().wait();
  {
    CallContext call;
    MakeInline(call);
    bool ran = false;
    EXPECT_FALSE(state->Run(call, [&](ClusterState::Txn&) { ran = true; }).ok());
    EXPECT_FALSE(state->Change(call, Taking(std::chrono::microseconds(0), &ran)).ok());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(call.declined());
  }
  release.set_value();
  holder.join();
}

TEST(InlineCall, IsDeclinedAfterASlowChangeUntilAFastOne) {
  auto state = SimulatedCluster();
  CallContext own;
  bool slow = false;
  EXPECT_OK(state->Change(own, Taking(std::chrono::milliseconds(5), &slow)));
  ASSERT_TRUE(slow);
  {
    CallContext call;
    MakeInline(call);
    bool ran = false;
    EXPECT_FALSE(state->Change(call, Taking(std::chrono::microseconds(0), &ran)).ok());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(call.declined());
  }
  // A fast change (on a worker) lets inline calls in again. Retried: on a loaded machine a
  // preempted change that does nothing can itself take longer than the limit.
  bool ran_inline = false;
  for (int attempt = 0; attempt < 100 && !ran_inline; ++attempt) {
    bool fast = false;
    EXPECT_OK(state->Change(own, Taking(std::chrono::microseconds(0), &fast)));
    CallContext call;
    MakeInline(call);
    bool ran = false;
    const absl::Status status = state->Change(call, Taking(std::chrono::microseconds(0), &ran));
    EXPECT_EQ(status.ok(), ran);
    ran_inline = ran && !call.declined();
  }
  EXPECT_TRUE(ran_inline);
}

TEST(InlineCall, IsDeclinedOnADurableClusterWhoseAnswerWaitsForTheJournal) {
  DurableCluster durable;
  CallContext call;
  MakeInline(call);  // and no DeferredDurability: its answer would block
  bool ran = false;
  EXPECT_FALSE(durable.state->Run(call, [&](ClusterState::Txn&) { ran = true; }).ok());
  EXPECT_FALSE(ran);
  EXPECT_TRUE(call.declined());
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
  DurableCluster durable;
  DeferredDurability deferred;
  CallContext call;
  MakeInline(call);
  call.set_deferred(&deferred);
  EXPECT_OK(durable.state->Change(call, Journaled));
  EXPECT_FALSE(call.declined());
  EXPECT_TRUE(deferred.pending());
  EXPECT_OK(Settle(deferred));
  EXPECT_TRUE(durable.journal->Durable(durable.journal->last_lsn()));
}

TEST(InlineCall, IsDeclinedOnADurableClusterWhoseRecordMayMakeASnapshotDue) {
  int captured = 0;
  DurableCluster durable([&](Durability& durability) {
    durability.snapshot = [&](ClusterImage capture) {
      ++captured;
      capture.in_flight->store(false);
    };
    durability.snapshot_every = 2;
  });
  DeferredDurability deferred;
  CallContext on_a_worker;
  on_a_worker.set_deferred(&deferred);
  // One record: the next one makes a snapshot due.
  EXPECT_OK(durable.state->Change(on_a_worker, Journaled));
  {
    CallContext call;
    MakeInline(call);
    call.set_deferred(&deferred);
    bool ran = false;
    EXPECT_FALSE(durable.state
                     ->Change(call,
                              [&](ClusterState::Txn& txn) {
                                ran = true;
                                return Journaled(txn);
                              })
                     .ok());
    EXPECT_FALSE(ran);
    EXPECT_TRUE(call.declined());
  }
  EXPECT_EQ(captured, 0);
  EXPECT_OK(durable.state->Change(on_a_worker, Journaled));  // on a worker, it runs and captures
  EXPECT_EQ(captured, 1);
  EXPECT_OK(Settle(deferred));
}

TEST(CallContext, ADeferredCallNotesItsWaitsAndABlockingOneWaits) {
  DurableCluster durable;
  CallContext blocking;
  EXPECT_OK(durable.state->Change(blocking, Journaled));
  // Answered only once durable: nothing is left to wait for.
  EXPECT_TRUE(durable.journal->Durable(durable.journal->last_lsn()));
  DeferredDurability deferred;
  CallContext call;
  call.set_deferred(&deferred);
  EXPECT_OK(durable.state->Change(call, Journaled));
  EXPECT_TRUE(deferred.pending());
  EXPECT_OK(Settle(deferred));
}

}  // namespace
}  // namespace resched::server
