#include "server/store/journal.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"

namespace resched::server {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/resched-journal-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

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

  std::string dir_;
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

TEST_F(JournalTest, AFullDiskFailsTheBatchRefusesAppendsAndRecovers) {
  auto journal = Journal::Open(dir_);
  ASSERT_TRUE(journal.ok());
  ASSERT_TRUE((*journal)->WaitDurable((*journal)->Append("a", "kept")).ok());
  ASSERT_TRUE((*journal)->SetPageLimitForTest(1).ok());
  const std::int64_t big = (*journal)->Append("a", std::string(64 << 10, 'x'));
  const absl::Status failed = (*journal)->WaitDurable(big);
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable) << failed;
  EXPECT_NE(failed.message().find(dir_), std::string::npos) << failed;
  EXPECT_TRUE((*journal)->Failed(big));
  EXPECT_EQ((*journal)->CheckWritable().code(), absl::StatusCode::kUnavailable);
  // While the fault lasts, an append fails at once.
  const std::int64_t during = (*journal)->Append("a", "during");
  EXPECT_EQ((*journal)->WaitDurable(during).code(), absl::StatusCode::kUnavailable);

  ASSERT_TRUE((*journal)->SetPageLimitForTest(0).ok());
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

}  // namespace
}  // namespace resched::server
