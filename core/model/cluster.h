// A cluster: P processors, optionally in groups with a relative speed (heterogeneous).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace resched {

enum class ClockKind { kWall, kSimulated };

struct ProcessorGroup {
  std::string name;
  int count = 0;
  double speed = 1.0;  // relative to a reference processor
};

struct ClusterSpec {
  std::string name;
  std::vector<ProcessorGroup> groups;  // P = sum of counts
  ClockKind clock = ClockKind::kWall;
  std::string policy = "conservative";

  int capacity() const;
  bool homogeneous() const;
};

inline constexpr int kMaxClusterProcessors = 1 << 20;

// Checks the name, the groups and the total size; errors name the field and the limit.
absl::Status ValidateClusterSpec(const ClusterSpec& spec);

}  // namespace resched
