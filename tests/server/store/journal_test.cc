#include "server/store/journal.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/base/mutex.h"
#include "server/store/wal_scan.h"
#include "tests/server/store/commit_gate.h"
#include "tests/server/store/full_disk_vfs.h"
#include "tests/testing/temp_dir.h"

namespace resched::server {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  std::vector<StoredRecord> ReadAll(const Journal& journal, const std::string* cluster = nullptr) {
    std::vector<StoredRecord> out;
    EXPECT_TRUE(journal
                    .Scan(
                        [&](const StoredRecord& r) {
                          out.push_back(r);
                          return absl::OkStatus();
                        },
                        cluster)
                    .ok());
    return out;
  }

  const resched::testing::TempDir temp_{"resched-journal"};
  const std::string dir_ = temp_.path();
};

TEST_F(JournalTest, RecordsSurviveReopeningInLsnOrder) {
  {
    auto journal = Journal::Open(dir_);
    ASSERT_TRUE(journal.ok()) << journal.status();
    const std::int64_t a = (*journal)->Append("alpha", "one");
    const std::int64_t b = (*journal)->Append("beta", std::string("t\0wo", 4));
    const std::int64_t c = (*journal)->Append("alpha", "three");
    EXPECT_EQ(a, 1);
    EXPECT_EQ(c, 3);
    EXPECT_TRUE((*journal)->WaitDurable(b).ok());
    EXPECT_TRUE((*journal)->WaitDurable(c).ok());
  }
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok()) << journal.status();
  const std::vector<StoredRecord> all = ReadAll(**journal);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].cluster, "beta");
  EXPECT_EQ(all[1].payload, std::string("t\0wo", 4));
  const std::string alpha = "alpha";
  const std::vector<StoredRecord> only_alpha = ReadAll(**journal, &alpha);
  ASSERT_EQ(only_alpha.size(), 2u);
  EXPECT_EQ(only_alpha[1].payload, "three");
  // LSNs continue after the last durable one.
  EXPECT_EQ((*journal)->Append("alpha", "four"), 4);
}

TEST_F(JournalTest, ASecondJournalOnTheSameDirectoryIsRefused) {
  auto first = Journal::Open(dir_);
  ASSERT_TRUE(first.ok());
  auto second = Journal::Open(dir_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find(dir_), std::string::npos) << second.status();
  EXPECT_NE(second.status().message().find(absl::StrCat("pid ", getpid())), std::string::npos)
      << second.status();
  first->reset();
  EXPECT_TRUE(Journal::Open(dir_).ok());
}

TEST_F(JournalTest, ConcurrentWritersShareCommits) {
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::int64_t lsn = (*journal)->Append(absl::StrCat("c", t), absl::StrCat(i));
        EXPECT_TRUE((*journal)->WaitDurable(lsn).ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(ReadAll(**journal).size(), static_cast<std::size_t>(kThreads * kPerThread));
  // Each writer waits for its record before appending the next, so without group commit there
  // would be one transaction per record.
  EXPECT_LT((*journal)->commits(), kThreads * kPerThread);
  // Per cluster, records keep their append order.
  const std::string c3 = "c3";
  const std::vector<StoredRecord> mine = ReadAll(**journal, &c3);
  ASSERT_EQ(mine.size(), static_cast<std::size_t>(kPerThread));
  for (int i = 0; i < kPerThread; ++i) EXPECT_EQ(mine[i].payload, absl::StrCat(i));
}

// What WhenDurable's callbacks heard, from whichever thread called them.
struct Heard {
  Mutex mu;
  std::condition_variable called;
  std::vector<std::pair<std::int64_t, absl::Status>> outcomes ABSL_GUARDED_BY(mu);
  std::vector<std::thread::id> threads ABSL_GUARDED_BY(mu);

  absl::AnyInvocable<void(absl::Status) &&> For(std::int64_t lsn) {
    return [this, lsn](absl::Status status) {
      MutexLock lock(&mu);
      outcomes.emplace_back(lsn, std::move(status));
      threads.push_back(std::this_thread::get_id());
      called.notify_all();
    };
  }
  void WaitFor(std::size_t count) {
    MutexLock lock(&mu);
    while (outcomes.size() < count) mu.Wait(called);
  }
};

TEST_F(JournalTest, WhenDurableCallsBackOnceTheRecordIsCommittedOrAtOnceWhenItIs) {
  // Both outlive the journal, whose thread uses them. The gate holds the journal's thread after
  // the first commit, so that what follows is not yet durable.
  Heard heard;
  auto gate = std::make_shared<testing::CommitGate>();
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok()) << journal.status();
  (*journal)->SetCommitObserver([gate](double, std::size_t) { gate->Hold(); });
  const std::int64_t first = (*journal)->Append("a", "first");
  (*journal)->WhenDurable(first, heard.For(first));
  heard.WaitFor(1);  // the commit's callbacks run before its observer
  const std::int64_t second = (*journal)->Append("a", "second");
  const std::int64_t third = (*journal)->Append("b", "third");
  (*journal)->WhenDurable(third, heard.For(third));
  (*journal)->WhenDurable(second, heard.For(second));
  gate->WaitHeld();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  {
    MutexLock lock(&heard.mu);
    EXPECT_EQ(heard.outcomes.size(), 1u) << "called back before the commit";
  }
  EXPECT_FALSE((*journal)->Durable(second));
  gate->Open();
  heard.WaitFor(3);
  // A record already durable: at once, on the calling thread.
  (*journal)->WhenDurable(first, heard.For(first));
  MutexLock lock(&heard.mu);
  ASSERT_EQ(heard.outcomes.size(), 4u);
  for (const auto& [lsn, status] : heard.outcomes) EXPECT_TRUE(status.ok()) << lsn << status;
  EXPECT_NE(heard.threads[0], std::this_thread::get_id());
  EXPECT_NE(heard.threads[1], std::this_thread::get_id());
  EXPECT_EQ(heard.threads[3], std::this_thread::get_id());
}

TEST_F(JournalTest, WhenDurableHearsAFailedCommitAndRunsThroughTheExecutor) {
  Heard heard;
  auto gate = std::make_shared<testing::CommitGate>();
  std::atomic<int> posted{0};
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  (*journal)->SetCallbackExecutor([&](const std::function<void()>& task) {
    ++posted;
    task();
  });
  // The journal's thread held after a first commit, so that the large record's callback is
  // registered before its commit fails.
  (*journal)->SetCommitObserver([gate](double, std::size_t) { gate->Hold(); });
  (*journal)->Append("a", "first");
  gate->WaitHeld();
  ASSERT_TRUE((*journal)->SetSizeLimitForTest(1).ok());
  const std::int64_t big = (*journal)->Append("a", std::string(64 << 10, 'x'));
  (*journal)->WhenDurable(big, heard.For(big));
  const int posted_before = posted.load();
  gate->Open();
  heard.WaitFor(1);
  {
    MutexLock lock(&heard.mu);
    EXPECT_EQ(heard.outcomes[0].second.code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(heard.outcomes[0].second.message().find(dir_), std::string::npos);
  }
  EXPECT_EQ(posted.load(), posted_before + 1);
  // While commits fail an append fails at once, and so does its callback.
  const std::int64_t during = (*journal)->Append("a", "during");
  (*journal)->WhenDurable(during, heard.For(during));
  MutexLock lock(&heard.mu);
  ASSERT_EQ(heard.outcomes.size(), 2u);
  EXPECT_EQ(heard.outcomes[1].second.code(), absl::StatusCode::kUnavailable);
}

TEST_F(JournalTest, AStopCallsBackEveryWaiter) {
  Heard heard;
  {
    auto journal = Journal::Open(dir_);
    ASSERT_TRUE(journal.ok());
    for (int i = 0; i < 20; ++i) {
      const std::int64_t lsn = (*journal)->Append("a", absl::StrCat(i));
      (*journal)->WhenDurable(lsn, heard.For(lsn));
    }
  }
  // The stop commits what is queued first, so every record was saved.
  MutexLock lock(&heard.mu);
  ASSERT_EQ(heard.outcomes.size(), 20u);
  for (const auto& [lsn, status] : heard.outcomes) EXPECT_TRUE(status.ok()) << lsn << status;
}

TEST_F(JournalTest, AFullDiskFailsTheBatchRefusesAppendsAndRecovers) {
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  ASSERT_TRUE((*journal)->WaitDurable((*journal)->Append("a", "kept")).ok());
  ASSERT_TRUE((*journal)->SetSizeLimitForTest(1).ok());
  const std::int64_t big = (*journal)->Append("a", std::string(64 << 10, 'x'));
  const absl::Status failed = (*journal)->WaitDurable(big);
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable) << failed;
  EXPECT_NE(failed.message().find(dir_), std::string::npos) << failed;
  EXPECT_TRUE((*journal)->Failed(big));
  EXPECT_EQ((*journal)->CheckWritable().code(), absl::StatusCode::kUnavailable);
  // While the fault lasts, an append fails at once.
  const std::int64_t during = (*journal)->Append("a", "during");
  EXPECT_EQ((*journal)->WaitDurable(during).code(), absl::StatusCode::kUnavailable);

  ASSERT_TRUE((*journal)->SetSizeLimitForTest(0).ok());
  for (int i = 0; i < 100 && !(*journal)->CheckWritable().ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE((*journal)->CheckWritable().ok());
  const std::int64_t after = (*journal)->Append("a", "after");
  EXPECT_TRUE((*journal)->WaitDurable(after).ok());
  EXPECT_FALSE((*journal)->Failed(after));
  std::vector<std::string> payloads;
  for (const StoredRecord& r : ReadAll(**journal)) payloads.push_back(r.payload);
  EXPECT_EQ(payloads, (std::vector<std::string>{"kept", "after"}));
}

TEST_F(JournalTest, ACorruptRecordStopsTheScanNamingTheFileAndLsn) {
  {
    auto journal = Journal::Open(dir_);
    ASSERT_TRUE(journal.ok());
    for (int i = 0; i < 3; ++i) (*journal)->Append("a", absl::StrCat("record ", i));
    ASSERT_TRUE((*journal)->WaitDurable(3).ok());
  }
  // Bytes that changed under SQLite (bit rot, a bad copy): SQLite's own pages carry no checksum.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE journal SET payload = 'record X' WHERE lsn = 2", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  int seen = 0;
  const absl::Status scan = (*journal)->Scan([&](const StoredRecord&) {
    ++seen;
    return absl::OkStatus();
  });
  EXPECT_EQ(scan.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(scan.message().find("LSN 2"), std::string::npos) << scan;
  EXPECT_NE(scan.message().find(dir_ + "/journal.db"), std::string::npos) << scan;
  EXPECT_EQ(seen, 1);
}

TEST_F(JournalTest, AnUncreatableDirectoryIsUnavailable) {
  const std::string file = dir_ + "/plain-file";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  auto journal = Journal::Open(file + "/sub");
  ASSERT_FALSE(journal.ok());
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(journal.status().message().find(file), std::string::npos) << journal.status();
}

TEST_F(JournalTest, AFileThatIsNotADatabaseIsDataLossNamedWithoutTheSchema) {
  const std::string file = dir_ + "/journal.db";
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("this is not an SQLite database, and it is long enough to have a header page\n", f);
  std::fclose(f);
  auto journal = Journal::Open(dir_);
  ASSERT_FALSE(journal.ok());
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kDataLoss) << journal.status();
  EXPECT_NE(journal.status().message().find(file), std::string::npos) << journal.status();
  EXPECT_NE(journal.status().message().find("cannot set up the journal's tables"),
            std::string::npos)
      << journal.status();
  EXPECT_EQ(journal.status().message().find("CREATE TABLE"), std::string::npos) << journal.status();
}

std::vector<StoredRecord> Snapshots(const Journal& journal) {
  std::vector<StoredRecord> out;
  EXPECT_TRUE(journal
                  .ScanSnapshots([&](const StoredRecord& r) {
                    out.push_back(r);
                    return absl::OkStatus();
                  })
                  .ok());
  return out;
}

TEST_F(JournalTest, ASnapshotDropsItsClustersRecordsUpToItAndLsnsGoOn) {
  {
    auto journal = Journal::Open(dir_);
    ASSERT_TRUE(journal.ok());
    for (int i = 1; i <= 6; ++i) (*journal)->Append(i % 2 == 0 ? "a" : "b", absl::StrCat(i));
    ASSERT_TRUE((*journal)->WaitDurable(6).ok());
    // a's records are 2, 4, 6: the snapshot after 4 keeps 6; b's stay.
    ASSERT_TRUE((*journal)->WriteSnapshot("a", 4, "state of a").ok());
    // Then b's, after its last record: the largest LSN left in the journal is a's 6.
    ASSERT_TRUE((*journal)->WriteSnapshot("b", 5, "state of b").ok());
    const std::vector<StoredRecord> left = ReadAll(**journal);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].lsn, 6);
    // A snapshot of a at 6 covers everything: no record is left.
    ASSERT_TRUE((*journal)->WriteSnapshot("a", 6, "later state of a").ok());
    EXPECT_TRUE(ReadAll(**journal).empty());
  }
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  // No record is left, yet no LSN is given out twice.
  EXPECT_EQ((*journal)->last_lsn(), 6);
  EXPECT_EQ((*journal)->Append("a", "7"), 7);
  const std::vector<StoredRecord> snapshots = Snapshots(**journal);
  ASSERT_EQ(snapshots.size(), 2u);
  EXPECT_EQ(snapshots[0].cluster, "b");
  EXPECT_EQ(snapshots[1].cluster, "a");
  EXPECT_EQ(snapshots[1].lsn, 6);
  EXPECT_EQ(snapshots[1].payload, "later state of a");
}

TEST_F(JournalTest, ADroppedClusterKeepsOnlyItsDeletion) {
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  (*journal)->Append("a", "create");
  (*journal)->Append("b", "create");
  (*journal)->Append("a", "change");
  ASSERT_TRUE((*journal)->WaitDurable(3).ok());
  ASSERT_TRUE((*journal)->WriteSnapshot("a", 3, "state").ok());
  (*journal)->Append("a", "delete");
  ASSERT_TRUE((*journal)->WaitDurable(4).ok());
  ASSERT_TRUE((*journal)->DropClusterBefore("a", 4).ok());
  const std::vector<StoredRecord> left = ReadAll(**journal);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].cluster, "b");
  EXPECT_EQ(left[1].payload, "delete");
  EXPECT_TRUE(Snapshots(**journal).empty());
}

TEST_F(JournalTest, ACorruptSnapshotStopsTheScanNamingTheClusterAndFile) {
  {
    auto journal = Journal::Open(dir_);
    ASSERT_TRUE(journal.ok());
    (*journal)->Append("a", "create");
    ASSERT_TRUE((*journal)->WaitDurable(1).ok());
    ASSERT_TRUE((*journal)->WriteSnapshot("a", 1, "state").ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ + "/journal.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE snapshot SET payload = 'stale' WHERE cluster = 'a'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  const absl::Status scan =
      (*journal)->ScanSnapshots([](const StoredRecord&) { return absl::OkStatus(); });
  EXPECT_EQ(scan.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(scan.message().find("cluster 'a'"), std::string::npos) << scan;
  EXPECT_NE(scan.message().find(dir_ + "/journal.db"), std::string::npos) << scan;
}

TEST_F(JournalTest, ATornLastCommitIsDroppedWithANoteAndACleanStopLeavesNone) {
  const std::string live = dir_ + "/live";
  const std::string crashed = dir_ + "/crashed";
  {
    auto journal = Journal::Open(live);
    ASSERT_TRUE(journal.ok());
    for (int i = 1; i <= 3; ++i) (*journal)->Append("a", absl::StrCat("record ", i));
    ASSERT_TRUE((*journal)->WaitDurable(3).ok());
    (*journal)->Append("a", "the last commit");
    ASSERT_TRUE((*journal)->WaitDurable(4).ok());
    // The files as a crash leaves them: the write-ahead log not checkpointed into the database.
    std::filesystem::create_directories(crashed);
    for (const char* file : {"/journal.db", "/journal.db-wal"}) {
      std::filesystem::copy_file(live + file, crashed + file);
    }
  }
  // The last commit's last frame cut short, as by a crash in the middle of its write (the file
  // may go on with frames of an older generation of the log: those go too).
  const std::string wal = crashed + "/journal.db-wal";
  absl::StatusOr<std::optional<WalScan>> scan = ScanWal(wal);
  ASSERT_TRUE(scan.ok() && scan->has_value());
  std::filesystem::resize_file(wal, 32 + (*scan)->kept_frames * (*scan)->frame_bytes() - 100);
  {
    auto journal = Journal::Open(crashed);
    ASSERT_TRUE(journal.ok()) << journal.status();
    const std::vector<StoredRecord> kept = ReadAll(**journal);
    ASSERT_EQ(kept.size(), 3u);
    EXPECT_EQ(kept.back().payload, "record 3");
    const std::string& note = (*journal)->recovery_note();
    EXPECT_NE(note.find("did not stop cleanly"), std::string::npos) << note;
    EXPECT_NE(note.find("LSN 3"), std::string::npos) << note;
    EXPECT_NE(note.find("a torn last commit was dropped"), std::string::npos) << note;
    EXPECT_EQ(note.find("DATA LOST"), std::string::npos) << note;
    EXPECT_NE(note.find(wal), std::string::npos) << note;
  }
  // Closed cleanly this time: the next open has nothing to say.
  auto journal = Journal::Open(crashed);
  ASSERT_TRUE(journal.ok());
  EXPECT_EQ((*journal)->recovery_note(), "");
  EXPECT_EQ(ReadAll(**journal).size(), 3u);
}

// The files of `live`, an open journal with `commits` records each committed alone, copied as a
// crash leaves them (the log not checkpointed into the database) to `crashed`.
void CrashImage(const std::string& live, const std::string& crashed, int commits) {
  auto journal = Journal::Open(live);
  ASSERT_TRUE(journal.ok());
  for (int i = 1; i <= commits; ++i) {
    ASSERT_TRUE((*journal)->WaitDurable((*journal)->Append("a", absl::StrCat("record ", i))).ok());
  }
  std::filesystem::create_directories(crashed);
  for (const char* file : {"/journal.db", "/journal.db-wal"}) {
    std::filesystem::copy_file(live + file, crashed + file);
  }
}

void FlipByte(const std::string& path, std::int64_t offset) {
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fseek(f, offset, SEEK_SET), 0);
  const int byte = std::fgetc(f);
  ASSERT_EQ(std::fseek(f, offset, SEEK_SET), 0);
  std::fputc(byte ^ 0x5a, f);
  std::fclose(f);
}

// A flipped byte in a frame before the log's last commit: SQLite's recovery would drop every
// later commit, acknowledged ones included, as if torn. The start is refused naming the file
// and the position, unless the loss is accepted, and then the note says what was lost.
TEST_F(JournalTest, DamageBeforeTheLastCommitIsDataLossUnlessAccepted) {
  const std::string crashed = dir_ + "/crashed";
  ASSERT_NO_FATAL_FAILURE(CrashImage(dir_ + "/live", crashed, 40));
  const std::string wal = crashed + "/journal.db-wal";
  absl::StatusOr<std::optional<WalScan>> scan = ScanWal(wal);
  ASSERT_TRUE(scan.ok() && scan->has_value());
  ASSERT_GE((*scan)->kept_commits, 40);
  ASSERT_EQ((*scan)->dropped_frames, 0);
  const std::int64_t frame = (*scan)->kept_frames / 2;
  const std::int64_t offset = 32 + frame * (*scan)->frame_bytes() + 24 + 100;
  ASSERT_NO_FATAL_FAILURE(FlipByte(wal, offset));
  auto refused = Journal::Open(crashed);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  const std::string message(refused.status().message());
  EXPECT_NE(message.find(wal), std::string::npos) << message;
  EXPECT_NE(message.find(absl::StrCat("damaged at byte ", offset - 100 - 24)), std::string::npos)
      << message;
  EXPECT_NE(message.find("--accept-data-loss"), std::string::npos) << message;
  // Refused again: a refused start changes nothing.
  EXPECT_EQ(Journal::Open(crashed).status().code(), absl::StatusCode::kDataLoss);

  auto accepted = Journal::Open(crashed, JournalOpenOptions{.accept_data_loss = true});
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  const std::string& note = (*accepted)->recovery_note();
  EXPECT_NE(note.find("DATA LOST"), std::string::npos) << note;
  EXPECT_NE(note.find(absl::StrCat("damaged at byte ", offset - 100 - 24)), std::string::npos)
      << note;
  const std::size_t kept = ReadAll(**accepted).size();
  EXPECT_LT(kept, 40u);
  EXPECT_NE(note.find(absl::StrCat("after LSN ", kept)), std::string::npos) << note;
}

// A database copied without its write-ahead log after an unclean stop starts from an older
// state: refused, unless accepted.
TEST_F(JournalTest, AMissingLogAfterAnUncleanStopIsDataLossUnlessAccepted) {
  const std::string crashed = dir_ + "/crashed";
  ASSERT_NO_FATAL_FAILURE(CrashImage(dir_ + "/live", crashed, 5));
  std::filesystem::remove(crashed + "/journal.db-wal");
  auto refused = Journal::Open(crashed);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(refused.status().message().find("journal.db-wal, its write-ahead log, is missing"),
            std::string::npos)
      << refused.status();
  EXPECT_EQ(Journal::Open(crashed).status().code(), absl::StatusCode::kDataLoss);
  auto accepted = Journal::Open(crashed, JournalOpenOptions{.accept_data_loss = true});
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_NE((*accepted)->recovery_note().find("DATA LOST"), std::string::npos)
      << (*accepted)->recovery_note();
}

// A disk too full to write at start: the journal opens for reads and refuses writes, after a
// clean stop and after a crash alike, and takes them again once a probe commits.
TEST_F(JournalTest, AFullDiskAtStartOpensReadOnlyAndRecovers) {
  const std::string crashed = dir_ + "/crashed";
  ASSERT_NO_FATAL_FAILURE(CrashImage(dir_ + "/live", crashed, 5));
  for (const std::string& dir : {dir_ + "/live", crashed}) {
    SCOPED_TRACE(dir);
    testing::FullDiskVfs vfs;
    vfs.SetFull(true);
    {
      auto journal = Journal::Open(dir);
      ASSERT_TRUE(journal.ok()) << journal.status();
      const absl::Status writable = (*journal)->CheckWritable();
      EXPECT_EQ(writable.code(), absl::StatusCode::kUnavailable);
      EXPECT_NE(writable.message().find(dir), std::string::npos) << writable;
      EXPECT_EQ(ReadAll(**journal).size(), 5u);
      vfs.SetFull(false);
      for (int i = 0; i < 100 && !(*journal)->CheckWritable().ok(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      ASSERT_TRUE((*journal)->CheckWritable().ok());
      ASSERT_TRUE((*journal)->WaitDurable((*journal)->Append("a", "record 6")).ok());
    }
    auto journal = Journal::Open(dir);
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_EQ((*journal)->recovery_note(), "");  // the probe marked it open; the stop, closed
    EXPECT_EQ(ReadAll(**journal).size(), 6u);
  }
}

// The log's reading agrees with SQLite's own recovery on what it keeps, whole and torn.
TEST_F(JournalTest, TheLogScanKeepsTheFramesSqliteKeeps) {
  const std::string crashed = dir_ + "/crashed";
  ASSERT_NO_FATAL_FAILURE(CrashImage(dir_ + "/live", crashed, 25));
  const std::string wal = crashed + "/journal.db-wal";
  for (const std::int64_t cut : {0, 100, 4196}) {
    SCOPED_TRACE(cut);
    const std::string copy = absl::StrCat(dir_, "/copy", cut);
    std::filesystem::create_directories(copy);
    for (const char* file : {"/journal.db", "/journal.db-wal"}) {
      std::filesystem::copy_file(crashed + file, copy + file);
    }
    const std::string copied_wal = copy + "/journal.db-wal";
    if (cut > 0) {
      // Inside the last commit's frames (an older generation's frames may follow them).
      absl::StatusOr<std::optional<WalScan>> whole = ScanWal(copied_wal);
      ASSERT_TRUE(whole.ok() && whole->has_value());
      std::filesystem::resize_file(copied_wal,
                                   32 + (*whole)->kept_frames * (*whole)->frame_bytes() - cut);
    }
    absl::StatusOr<std::optional<WalScan>> scan = ScanWal(copied_wal);
    ASSERT_TRUE(scan.ok() && scan->has_value());
    EXPECT_FALSE((*scan)->loses_acknowledged_commits());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((copy + "/journal.db").c_str(), &db), SQLITE_OK);
    int frames = -1;
    int checkpointed = -1;
    ASSERT_EQ(sqlite3_exec(db, "SELECT COUNT(*) FROM journal", nullptr, nullptr, nullptr),
              SQLITE_OK);
    ASSERT_EQ(
        sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &frames, &checkpointed),
        SQLITE_OK);
    sqlite3_close(db);
    EXPECT_EQ(frames, (*scan)->kept_frames);
    if (cut > 0) {
      EXPECT_GT((*scan)->dropped_frames, 0);
    }
  }
}

}  // namespace
}  // namespace resched::server
