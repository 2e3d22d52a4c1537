// The journal over a store of its own (Journal::Start, server/store/journal_store.h), apart from
// SQLite: LSNs go on after the store's last, a batch goes to the store whole, a failed commit
// fails its batch and what was queued after it and the journal probes the store until a write
// works again, a store that opens unwritable refuses changes from the start, and snapshots and
// compactions wait for a working store.
#include "server/store/journal_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/base/mutex.h"
#include "server/store/journal.h"

namespace resched::server {
namespace {

// Records and snapshots in memory; its writes fail while `failing` is set.
class MemoryStore final : public JournalStore {
 public:
  struct Shared {
    Mutex mu;
    bool failing ABSL_GUARDED_BY(mu) = false;
    std::vector<std::vector<StoredRecord>> batches ABSL_GUARDED_BY(mu);
    std::vector<StoredRecord> snapshots ABSL_GUARDED_BY(mu);
    int probes ABSL_GUARDED_BY(mu) = 0;
    // Commits wait while `hold` is set, so that a test can queue records behind one.
    bool hold ABSL_GUARDED_BY(mu) = false;
    bool held ABSL_GUARDED_BY(mu) = false;  // a commit waits
    std::condition_variable released;
    std::size_t max_records = SIZE_MAX;
    std::int64_t max_bytes = INT64_MAX;
  };

  MemoryStore(std::shared_ptr<Shared> shared, std::int64_t last_lsn, std::string open_fault)
      : shared_(std::move(shared)), last_lsn_(last_lsn), open_fault_(std::move(open_fault)) {}

  const std::string& name() const override { return name_; }
  const std::string& location() const override { return name_; }
  std::int64_t last_lsn() const override { return last_lsn_; }
  const std::string& open_fault() const override { return open_fault_; }
  const std::string& recovery_note() const override { return note_; }
  bool lost_data() const override { return false; }
  std::size_t max_batch_records() const override { return shared_->max_records; }
  std::int64_t max_batch_bytes() const override { return shared_->max_bytes; }

  absl::Status Commit(const std::vector<StoredRecord>& batch) override {
    MutexLock lock(&shared_->mu);
    while (shared_->hold) {
      shared_->held = true;
      shared_->mu.Wait(shared_->released);
    }
    if (shared_->failing) return absl::UnavailableError("memory store: full");
    shared_->batches.push_back(batch);
    return absl::OkStatus();
  }
  absl::Status Probe() override {
    MutexLock lock(&shared_->mu);
    ++shared_->probes;
    return shared_->failing ? absl::UnavailableError("memory store: full") : absl::OkStatus();
  }
  absl::Status WriteSnapshot(const std::string& cluster, std::int64_t lsn,
                             std::string_view payload) override {
    MutexLock lock(&shared_->mu);
    shared_->snapshots.push_back({lsn, cluster, std::string(payload)});
    return absl::OkStatus();
  }
  absl::Status DropClusterBefore(const std::string&, std::int64_t) override {
    return absl::OkStatus();
  }
  absl::Status Scan(const std::function<absl::Status(const StoredRecord&)>& fn,
                    const std::string*) const override {
    std::vector<StoredRecord> all;
    {
      MutexLock lock(&shared_->mu);
      for (const auto& batch : shared_->batches) all.insert(all.end(), batch.begin(), batch.end());
    }
    for (const StoredRecord& record : all) {
      if (absl::Status s = fn(record); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  absl::Status ScanSnapshots(const std::function<absl::Status(const StoredRecord&)>&,
                             const std::string*) const override {
    return absl::OkStatus();
  }

 private:
  const std::shared_ptr<Shared> shared_;
  const std::int64_t last_lsn_;
  const std::string open_fault_;
  const std::string name_ = "memory store";
  const std::string note_;
};

// Up to 2 s for the journal's probes (every 200 ms) to find the store working.
void WaitUntilWritable(const Journal& journal) {
  for (int i = 0; i < 100 && !journal.CheckWritable().ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

TEST(JournalStoreTest, LsnsGoOnAfterTheStoresLastAndBatchesReachItWhole) {
  auto shared = std::make_shared<MemoryStore::Shared>();
  auto journal = Journal::Start(std::make_unique<MemoryStore>(shared, 41, ""));
  EXPECT_TRUE(journal->Durable(41));
  const std::int64_t first = journal->Append("a", "one");
  const std::int64_t second = journal->Append("b", "two");
  EXPECT_EQ(first, 42);
  EXPECT_EQ(second, 43);
  ASSERT_TRUE(journal->WaitDurable(second).ok());
  std::vector<std::int64_t> lsns;
  ASSERT_TRUE(journal
                  ->Scan([&](const StoredRecord& record) {
                    lsns.push_back(record.lsn);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(lsns, (std::vector<std::int64_t>{42, 43}));
  ASSERT_TRUE(journal->WriteSnapshot("a", first, "image").ok());
  MutexLock lock(&shared->mu);
  ASSERT_EQ(shared->snapshots.size(), 1u);
  EXPECT_EQ(shared->snapshots[0].lsn, 42);
}

TEST(JournalStoreTest, AQueueLongerThanTheStoreTakesIsCommittedInSeveralBatches) {
  auto shared = std::make_shared<MemoryStore::Shared>();
  shared->max_records = 3;
  shared->max_bytes = 8;  // cluster name and payload
  {
    MutexLock lock(&shared->mu);
    shared->hold = true;
  }
  auto journal = Journal::Start(std::make_unique<MemoryStore>(shared, 0, ""));
  journal->Append("a", "held");  // its commit waits; the others queue behind it
  for (int i = 0; i < 500; ++i) {
    {
      MutexLock lock(&shared->mu);
      if (shared->held) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::int64_t last = 0;
  for (int i = 0; i < 7; ++i) last = journal->Append("a", "12");
  last = journal->Append("a", std::string(20, 'x'));  // alone over the byte limit: still goes
  {
    MutexLock lock(&shared->mu);
    shared->hold = false;
  }
  shared->released.notify_all();
  ASSERT_TRUE(journal->WaitDurable(last).ok());
  MutexLock lock(&shared->mu);
  std::vector<std::size_t> sizes;
  std::int64_t next_lsn = 1;
  for (const auto& batch : shared->batches) {
    sizes.push_back(batch.size());
    for (const StoredRecord& record : batch) EXPECT_EQ(record.lsn, next_lsn++);
  }
  // Three records of 3 bytes pass the record limit but not the byte limit: two per batch.
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 2, 2, 2, 1, 1}));
}

TEST(JournalStoreTest, AFailedCommitFailsItsBatchAndTheJournalProbesUntilTheStoreWorks) {
  auto shared = std::make_shared<MemoryStore::Shared>();
  auto journal = Journal::Start(std::make_unique<MemoryStore>(shared, 0, ""));
  ASSERT_TRUE(journal->WaitDurable(journal->Append("a", "kept")).ok());
  {
    MutexLock lock(&shared->mu);
    shared->failing = true;
  }
  const std::int64_t lost = journal->Append("a", "lost");
  EXPECT_EQ(journal->WaitDurable(lost).code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(journal->Failed(lost));
  // Refused at once while the store fails, snapshots too.
  EXPECT_EQ(journal->CheckWritable().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(journal->Failed(journal->Append("a", "refused")));
  EXPECT_EQ(journal->WriteSnapshot("a", 1, "image").code(), absl::StatusCode::kUnavailable);
  {
    MutexLock lock(&shared->mu);
    shared->failing = false;
  }
  WaitUntilWritable(*journal);
  ASSERT_TRUE(journal->CheckWritable().ok());
  const std::int64_t after = journal->Append("a", "after");
  ASSERT_TRUE(journal->WaitDurable(after).ok());
  std::vector<std::string> payloads;
  ASSERT_TRUE(journal
                  ->Scan([&](const StoredRecord& record) {
                    payloads.push_back(record.payload);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(payloads, (std::vector<std::string>{"kept", "after"}));
  MutexLock lock(&shared->mu);
  EXPECT_GE(shared->probes, 1);
}

TEST(JournalStoreTest, AStoreThatOpensUnwritableRefusesChangesUntilAProbeWorks) {
  auto shared = std::make_shared<MemoryStore::Shared>();
  {
    MutexLock lock(&shared->mu);
    shared->failing = true;
  }
  auto journal = Journal::Start(std::make_unique<MemoryStore>(shared, 7, "memory store: full"));
  EXPECT_EQ(journal->CheckWritable().message(), "memory store: full");
  EXPECT_TRUE(journal->Failed(journal->Append("a", "refused")));
  {
    MutexLock lock(&shared->mu);
    shared->failing = false;
  }
  WaitUntilWritable(*journal);
  EXPECT_TRUE(journal->CheckWritable().ok());
  // The refused record's LSN is not given out again.
  EXPECT_EQ(journal->Append("a", "kept"), 9);
}

}  // namespace
}  // namespace resched::server
