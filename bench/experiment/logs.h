// The SWF logs the experiments read, from ../shared/data/swf (or $RESCHED_DATA_DIR/swf, or
// --data-dir); never copied into the repository.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "core/workload/swf.h"

namespace resched::experiment {

// $RESCHED_DATA_DIR/swf, else the nearest "shared/data/swf" above the working directory, else
// "../shared/data/swf".
std::string DefaultDataDir();

// Reads (and gunzips) a log leniently: malformed records are skipped, as the archive's logs
// have a few.
absl::StatusOr<SwfLog> LoadLog(const std::string& path);

}  // namespace resched::experiment
