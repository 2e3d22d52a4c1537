#include "bench/experiment/logs.h"

#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "core/workload/swf_file.h"

namespace resched::experiment {

std::string DefaultDataDir() {
  if (const char* env = std::getenv("RESCHED_DATA_DIR")) return absl::StrCat(env, "/swf");
  for (std::filesystem::path dir = std::filesystem::current_path(); !dir.empty();
       dir = dir.parent_path()) {
    const auto candidate = dir / "shared" / "data" / "swf";
    if (std::filesystem::is_directory(candidate)) return candidate.string();
    if (dir == dir.parent_path()) break;
  }
  return "../shared/data/swf";
}

absl::StatusOr<SwfLog> LoadLog(const std::string& path) {
  SwfReadOptions read;
  read.lenient = true;
  return ReadSwfFile(path, read);
}

}  // namespace resched::experiment
