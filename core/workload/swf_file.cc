#include "core/workload/swf_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/workload/gzip.h"

namespace resched {

absl::StatusOr<SwfLog> ReadSwfFile(const std::string& path, const SwfReadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  absl::StatusOr<std::string> text = ReadMaybeGzipped(in);
  if (!text.ok()) return text.status();
  std::istringstream lines(*text);
  return ReadSwf(lines, options);
}

}  // namespace resched
