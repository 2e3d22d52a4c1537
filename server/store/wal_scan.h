// What a SQLite write-ahead log holds, read before SQLite opens it, so that a start can tell a
// torn last commit (never acknowledged: its commit frame never reached the disk) from damage in
// the middle of the log, which SQLite's recovery silently treats the same way: it keeps the
// frames up to the last commit whose checksum chain holds and drops the rest, acknowledged
// commits included. The layout and the checksum are SQLite's documented WAL format
// (sqlite.org/fileformat2.html, "The WAL File Format"); SQLite itself offers no call that says
// what its recovery dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace resched::server {

struct WalScan {
  std::int64_t bytes = 0;
  std::int64_t page_size = 0;
  // The frames SQLite keeps: up to the last commit frame of an unbroken checksum chain.
  std::int64_t kept_frames = 0;
  std::int64_t kept_commits = 0;
  // The first frame of this log generation (the header's salts) after the kept ones, when one
  // is there: a torn write, or damage.
  std::optional<std::int64_t> first_dropped_frame;
  std::int64_t first_dropped_offset = 0;
  // Frames and commit frames of this generation after the kept ones. Commit frames after the
  // first dropped frame were written, and synced, after it: commits that were acknowledged.
  std::int64_t dropped_frames = 0;
  std::int64_t dropped_commits = 0;
  // The header itself fails its checksum while frames follow it: nothing of the log can be read.
  bool damaged_header = false;

  std::int64_t frame_bytes() const { return 24 + page_size; }
  // Damage, as opposed to a torn last commit: acknowledged commits would be dropped.
  bool loses_acknowledged_commits() const { return damaged_header || dropped_commits > 0; }
};

// Reads the log at `path`; nullopt when there is none (or it is empty). UNAVAILABLE when it
// cannot be read.
absl::StatusOr<std::optional<WalScan>> ScanWal(const std::string& path);

}  // namespace resched::server
