// The audit log's lines: one JSON object each, whole under concurrent writers, with every field
// named, and an unusable path refused by name.
#include "server/auth/audit_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/testing/status.h"

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
  std::string pattern = ::testing::TempDir() + "/resched_audit_XXXXXX";
  const std::string path = std::string(mkdtemp(pattern.data())) + "/audit.jsonl";
  {
    absl::StatusOr<std::unique_ptr<AuditLog>> audit = AuditLog::Open(path);
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

TEST(AuditLog, AnUnusablePathIsNamed) {
  absl::StatusOr<std::unique_ptr<AuditLog>> audit = AuditLog::Open("/nonexistent/dir/audit.jsonl");
  EXPECT_EQ(audit.status().message(),
            "cannot open audit log '/nonexistent/dir/audit.jsonl': No such file or directory");
}

}  // namespace
}  // namespace resched::server::auth
