// Standard Workload Format (SWF) of the Parallel Workloads Archive (Feitelson et al.; fields in
// order in SwfRecord below, and in docs/algorithms.md, "Workloads"): one job per line, 18
// whitespace-separated fields, -1 = unknown, lines starting with ';' are header/comments
// ("; Key: value"). Deviations: fields 6 (average CPU time) and 7 (used memory) may be
// fractional and keep their number of decimals so that writing reproduces them; the other 16
// fields must be integers. Every field must be >= -1. Comment lines are kept verbatim and
// written before the data, even if they appeared between data lines.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace resched {

inline constexpr int kSwfFieldCount = 18;
inline constexpr std::size_t kMaxSwfLineLength = 1 << 16;

struct SwfRecord {
  std::int64_t job_number = -1;            // 1
  std::int64_t submit_time = -1;           // 2, seconds since the log's start
  std::int64_t wait_time = -1;             // 3, seconds
  std::int64_t run_time = -1;              // 4, seconds
  std::int64_t allocated_processors = -1;  // 5
  double average_cpu_time = -1;            // 6, seconds
  double used_memory = -1;                 // 7, KB per processor
  std::int64_t requested_processors = -1;  // 8
  std::int64_t requested_time = -1;        // 9, seconds (or average per processor)
  std::int64_t requested_memory = -1;      // 10, KB per processor
  std::int64_t status = -1;                // 11: 1 completed, 0 failed, 5 cancelled, ...
  std::int64_t user_id = -1;               // 12
  std::int64_t group_id = -1;              // 13
  std::int64_t executable = -1;            // 14, application number
  std::int64_t queue = -1;                 // 15
  std::int64_t partition = -1;             // 16
  std::int64_t preceding_job = -1;         // 17
  std::int64_t think_time = -1;            // 18, seconds
  // Decimals written for fields 6 and 7 ("142.00" -> 2); -1: shortest exact form.
  std::int8_t average_cpu_time_decimals = -1;
  std::int8_t used_memory_decimals = -1;

  friend bool operator==(const SwfRecord&, const SwfRecord&) = default;
};

// The name of field `index` (1-based, as in the SWF definition), e.g. 4 -> "run time".
const char* SwfFieldName(int index);

struct SwfLog {
  std::vector<std::string> comments;  // every ';' line, verbatim, in input order
  // "; Key: value" lines parsed, in order; keys may repeat (Note, Queue, Partition).
  std::vector<std::pair<std::string, std::string>> header_fields;
  std::vector<SwfRecord> records;
  // Lenient reading only: how many data lines were skipped, and the first few reasons.
  std::int64_t malformed_lines = 0;
  std::vector<std::string> malformed_examples;

  // The value of the first header field named `key` (case-sensitive), if any.
  std::optional<std::string> HeaderValue(std::string_view key) const;
  // The leading integer of that value ("400 (48 interactive, ...)" -> 400), if any.
  std::optional<std::int64_t> HeaderInt(std::string_view key) const;
};

struct SwfReadOptions {
  // Skip malformed data lines (counted in SwfLog::malformed_lines) instead of failing.
  bool lenient = false;
  // Stop after this many records (0: all); the rest of the stream is not read.
  std::int64_t max_records = 0;
};

// Parses SWF text. Errors: INVALID_ARGUMENT "line N: ..." naming the field and the limit (wrong
// field count, non-numeric or out-of-range value, line longer than kMaxSwfLineLength).
absl::StatusOr<SwfLog> ReadSwf(std::istream& in, const SwfReadOptions& options = {});

// Writes the comments verbatim, then one line per record with single spaces between fields. Reading
// the output back gives the same comments and records.
absl::Status WriteSwf(std::ostream& out, const SwfLog& log);

// One record as an SWF data line (no newline).
std::string FormatSwfRecord(const SwfRecord& record);

}  // namespace resched
