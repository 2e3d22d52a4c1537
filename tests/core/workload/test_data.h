// Where the shared test data is: $RESCHED_DATA_DIR/<name>, else "shared/data/<name>" beside the
// repository (where CI puts it) or beside an ancestor of the working directory, for <name> = swf
// (SWF logs), workflows (WfCommons JSON), dax (Pegasus DAX). The data are never copied into the
// repository. Tests that need them skip when they are absent on a developer's machine and fail
// in CI (REQUIRE_SHARED_DATA).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/workload/gzip.h"
#include "core/workload/swf.h"

namespace resched::testing {

// True in CI (the CI variable is set), where missing shared data is a failure, not a skip.
inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && *ci != '\0';
}

}  // namespace resched::testing

// Ends the test when shared data it needs is missing: a failure in CI, a skip elsewhere.
#define REQUIRE_SHARED_DATA(present, what)               \
  do {                                                   \
    if (!(present)) {                                    \
      if (::resched::testing::InCi()) {                  \
        FAIL() << "shared data missing in CI: " << what; \
      }                                                  \
      GTEST_SKIP() << "shared data missing: " << what;   \
    }                                                    \
  } while (false)

namespace resched::testing {

inline std::optional<std::filesystem::path> FindSharedDataDir(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto is_dir = [&](const fs::path& p) { return fs::is_directory(p, ec); };
  if (const char* env = std::getenv("RESCHED_DATA_DIR"); env != nullptr && *env != '\0') {
    if (is_dir(fs::path(env) / name)) return fs::path(env) / name;
  }
  // This header is tests/core/workload/test_data.h: the repository is three levels up.
  const fs::path repository = fs::path(__FILE__).parent_path().parent_path().parent_path();
  for (fs::path start : {repository.parent_path(), fs::current_path(ec)}) {
    for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      if (is_dir(dir / "shared" / "data" / name)) return dir / "shared" / "data" / name;
      if (dir == dir.parent_path()) break;
    }
  }
  return std::nullopt;
}

// SWF logs: $RESCHED_DATA_DIR/swf (the variable names the data root, as for the experiments).
inline std::optional<std::filesystem::path> FindSwfDataDir() { return FindSharedDataDir("swf"); }

// The regular files of a shared data directory with the given extension (".json"), sorted;
// empty when the directory is absent.
inline std::vector<std::filesystem::path> SharedDataFiles(const std::string& name,
                                                          const std::string& extension) {
  std::vector<std::filesystem::path> files;
  const std::optional<std::filesystem::path> dir = FindSharedDataDir(name);
  if (!dir) return files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(*dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == extension) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Reads (and gunzips) a log of the data directory; NOT_FOUND when it is absent.
inline absl::StatusOr<SwfLog> ReadTestLog(const std::string& file_name, std::int64_t max_records) {
  const std::optional<std::filesystem::path> dir = FindSwfDataDir();
  if (!dir) return absl::NotFoundError("no SWF data directory");
  std::ifstream file(*dir / file_name, std::ios::binary);
  if (!file) return absl::NotFoundError("missing log " + file_name);
  absl::StatusOr<std::string> text = ReadMaybeGzipped(file);
  if (!text.ok()) return text.status();
  std::istringstream in(*text);
  SwfReadOptions options;
  options.max_records = max_records;
  return ReadSwf(in, options);
}

}  // namespace resched::testing
