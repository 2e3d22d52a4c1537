// A cluster: P processors, optionally in groups with a relative speed (heterogeneous).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/model/time.h"

namespace resched {

enum class ClockKind { kWall, kSimulated };

struct ProcessorGroup {
  std::string name;
  int count = 0;
  double speed = 1.0;  // relative to a reference processor
};

// What a Replan is judged on (core/plan/replan.h).
enum class ReplanObjective {
  kMakespan,            // the latest end of the queued jobs
  kWeightedCompletion,  // sum of w * C over the queued jobs
  kMaxStretch,          // the largest (C - release) / p(1)
  kBicriteria,          // makespan and weighted completion: worse on either is worse
};

// A cluster that replans its own queue every `every` (0: never) with an offline planner, and
// applies a plan only when it is strictly better on `objective`: a SIMULATED cluster as its
// clock passes each multiple of `every` since its creation (ClusterPlan::AdvanceTo), a WALL one
// on the server's timer.
struct PeriodicReplan {
  Duration every = 0;
  std::string algorithm = "mrt";
  std::map<std::string, double> params;
  ReplanObjective objective = ReplanObjective::kMakespan;
};

// The shortest period of a periodic Replan.
inline constexpr Duration kMinReplanEvery = kMicrosPerSecond;

struct ClusterSpec {
  std::string name;
  std::vector<ProcessorGroup> groups;  // P = sum of counts
  ClockKind clock = ClockKind::kWall;
  std::string policy = "conservative";
  PeriodicReplan replan;

  int capacity() const;
  bool homogeneous() const;
};

inline constexpr int kMaxClusterProcessors = 1 << 20;

// Checks the name, the groups and the total size; errors name the field and the limit.
absl::Status ValidateClusterSpec(const ClusterSpec& spec);

// A cluster's name: 1 to 63 letters, digits, '-', '_' and '.'. INVALID_ARGUMENT naming `field`
// (e.g. "cluster.name") otherwise; a long name is not quoted.
absl::Status ValidateClusterName(absl::string_view name, absl::string_view field);

}  // namespace resched
