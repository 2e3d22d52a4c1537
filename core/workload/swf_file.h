// An SWF log from a file, plain or gzipped (the Parallel Workloads Archive ships .swf.gz).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/workload/swf.h"

namespace resched {

// NOT_FOUND naming the file when it cannot be read; ReadSwf's and Gunzip's errors otherwise.
absl::StatusOr<SwfLog> ReadSwfFile(const std::string& path, const SwfReadOptions& options = {});

}  // namespace resched
