// The audit log's lines: one JSON object each, whole under concurrent writers, with every field
// named, and an unusable path refused by name.
#include "server/auth/audit_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/testing/status.h"
#include "tests/testing/temp_dir.h"

namespace resched::server::auth {
namespace {

AuditEntry SampleEntry() {
  AuditEntry entry;
  entry.time = absl::FromUnixMillis(1'764'000'000'123);
  entry.tenant = "alice";
  entry.role = "user";
  entry.method = "SubmitJob";
  entry.cluster = "default";
  entry.request_id = "r-1";
  entry.trace_id = "0af7651916cd43dd8448eb211c80319c";
  entry.peer = "ipv4:127.0.0.1:5000";
  entry.code = "PERMISSION_DENIED";
  entry.error = "SubmitJob: tenant 'alice' is not granted cluster 'default'";
  return entry;
}

TEST(AuditLog, FormatsOneJsonObjectWithEveryField) {
  EXPECT_EQ(AuditLog::Format(SampleEntry()),
            R"({"cluster":"default","code":"PERMISSION_DENIED",)"
            R"("error":"SubmitJob: tenant 'alice' is not granted cluster 'default'",)"
            R"("method":"SubmitJob","peer":"ipv4:127.0.0.1:5000","request_id":"r-1",)"
            R"("role":"user","tenant":"alice","time":"2025-11-24T16:00:00.123000Z",)"
            R"("trace_id":"0af7651916cd43dd8448eb211c80319c"})");
  AuditEntry applied = SampleEntry();
  applied.code = "OK";
  applied.error.clear();
  EXPECT_EQ(nlohmann::json::parse(AuditLog::Format(applied)).count("error"), 0u);
  AuditEntry bad_bytes = SampleEntry();
  bad_bytes.error = "job name '\xff'";  // not UTF-8: replaced, never thrown
  EXPECT_NE(AuditLog::Format(bad_bytes).find("job name"), std::string::npos);
}

TEST(AuditLog, ConcurrentRecordsAreWholeLines) {
  const resched::testing::TempDir dir("resched-audit");
  const std::string path = dir / "audit.jsonl";
  {
    absl::StatusOr<std::unique_ptr<AuditLog>> audit = AuditLog::Open({.path = path});
    ASSERT_OK(audit);
    std::vector<std::thread> writers;
    for (int w = 0; w < 4; ++w) {
      writers.emplace_back([&, w] {
        for (int i = 0; i < 200; ++i) {
          AuditEntry entry = SampleEntry();
          entry.request_id = absl::StrCat(w, "-", i);
          entry.error = std::string(300, 'x');  // lines longer than a small buffer
          (*audit)->Record(entry);
        }
      });
    }
    for (std::thread& writer : writers) writer.join();
  }
  std::ifstream in(path);
  std::set<std::string> ids;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json object = nlohmann::json::parse(line);  // throws on a torn line
    ids.insert(object["request_id"].get<std::string>());
  }
  EXPECT_EQ(ids.size(), 800u);
}

TEST(AuditLog, EveryFieldIsBoundedWhateverTheCallerSent) {
  AuditEntry huge = SampleEntry();
  huge.request_id = std::string(4 << 20, 'r');  // the 4 MiB request id that filled a disk
  huge.cluster = std::string(100'000, 'c');
  huge.error = std::string(100'000, 'e');
  huge.targets = {{"job", std::string(100'000, 'j')}};
  const std::string line = AuditLog::Format(huge);
  EXPECT_LT(line.size(), 4 * kMaxAuditFieldBytes + kMaxAuditErrorBytes + 600) << line.size();
  const nlohmann::json object = nlohmann::json::parse(line);
  EXPECT_EQ(object["request_id"], std::string(kMaxAuditFieldBytes, 'r') + "... (4194304 bytes)");
  EXPECT_EQ(object["job"].get<std::string>().size(), kMaxAuditFieldBytes + 18);
}

TEST(AuditLog, RotatesBySizeAndKeepsTheConfiguredNumberOfFiles) {
  const resched::testing::TempDir dir("resched-audit");
  const std::string path = dir / "audit.jsonl";
  constexpr std::int64_t kMaxBytes = 8192;
  std::int64_t line_bytes = 0;
  {
    absl::StatusOr<std::unique_ptr<AuditLog>> audit =
        AuditLog::Open({.path = path, .max_bytes = kMaxBytes, .max_files = 2});
    ASSERT_OK(audit);
    line_bytes = static_cast<std::int64_t>(AuditLog::Format(SampleEntry()).size()) + 1;
    for (int i = 0; i < 400; ++i) {
      AuditEntry entry = SampleEntry();
      entry.request_id = absl::StrCat("r-", 1000 + i);  // lines of one length
      (*audit)->Record(entry);
    }
  }
  std::int64_t total = 0;
  for (const std::string& file : {path, path + ".1", path + ".2"}) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    ASSERT_TRUE(in) << file;
    const std::int64_t size = in.tellg();
    EXPECT_LE(size, kMaxBytes) << file;
    total += size;
  }
  EXPECT_FALSE(std::ifstream(path + ".3"));  // two rotated files, no more
  // The newest lines are kept: the current file ends with the last one written.
  std::ifstream current(path);
  std::string last;
  for (std::string line; std::getline(current, line);) last = line;
  EXPECT_EQ(nlohmann::json::parse(last)["request_id"], "r-1399");
  EXPECT_GT(total, 2 * (kMaxBytes - line_bytes));
  // Reopened, the log goes on counting the size already there.
  absl::StatusOr<std::unique_ptr<AuditLog>> reopened =
      AuditLog::Open({.path = path, .max_bytes = kMaxBytes, .max_files = 2});
  ASSERT_OK(reopened);
  for (int i = 0; i < 200; ++i) (*reopened)->Record(SampleEntry());
  std::ifstream after(path, std::ios::binary | std::ios::ate);
  EXPECT_LE(static_cast<std::int64_t>(after.tellg()), kMaxBytes);
}

TEST(AuditLog, ALimitTooSmallIsRefusedNamingIt) {
  EXPECT_THAT(AuditLog::Open({.path = "-", .max_bytes = 100}).status().message(),
              ::testing::HasSubstr("audit_log_max_bytes must be 4096 or more"));
}

TEST(AuditLog, AnUnusablePathIsNamed) {
  absl::StatusOr<std::unique_ptr<AuditLog>> audit =
      AuditLog::Open({.path = "/nonexistent/dir/audit.jsonl"});
  EXPECT_EQ(audit.status().message(),
            "cannot open audit log '/nonexistent/dir/audit.jsonl': No such file or directory");
}

}  // namespace
}  // namespace resched::server::auth
