// Where the test logs are: $RESCHED_DATA_DIR/swf, else a "shared/data/swf" next to an ancestor of
// the working directory or of this source file, else /work/shared/data/swf. The logs are never
// copied into the repository; tests skip when they are absent.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "core/workload/gzip.h"
#include "core/workload/swf.h"

namespace resched::testing {

inline std::optional<std::filesystem::path> FindSwfDataDir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto is_dir = [&](const fs::path& p) { return fs::is_directory(p, ec); };
  if (const char* env = std::getenv("RESCHED_DATA_DIR"); env != nullptr && *env != '\0') {
    if (is_dir(fs::path(env) / "swf")) return fs::path(env) / "swf";
    if (is_dir(fs::path(env))) return fs::path(env);
  }
  for (fs::path start : {fs::current_path(ec), fs::path(__FILE__).parent_path()}) {
    for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      if (is_dir(dir / "shared" / "data" / "swf")) return dir / "shared" / "data" / "swf";
      if (dir == dir.parent_path()) break;
    }
  }
  if (is_dir("/work/shared/data/swf")) return fs::path("/work/shared/data/swf");
  return std::nullopt;
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
