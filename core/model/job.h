// A job: an independent parallel job submitted online (SubmitJob), as opposed to a task, a node
// of a DAG (dag.h).
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "core/model/allocation.h"
#include "core/model/runtime_model.h"
#include "core/model/time.h"

namespace resched {

using JobId = std::string;

// Ten years: longer runs are input mistakes, and the bound keeps time arithmetic far from overflow.
inline constexpr Duration kMaxJobDuration = Duration{10} * 366 * 24 * 3600 * kMicrosPerSecond;

struct Job {
  JobId id;
  std::string name;   // free label
  std::string owner;  // user or tenant
  Time release = 0;   // r: the job may not start before
  double weight = 1;  // w, for weighted completion time
  RuntimeModel model;
  std::optional<Time> deadline;  // promised completion bound, if any
};

// Checks a job against a cluster of `capacity` processors; errors name the field and the limit.
absl::Status ValidateJob(const Job& job, int capacity);

enum class JobState { kQueued, kRunning, kFinished, kFailed, kCancelled };

const char* JobStateName(JobState state);

// Finished, failed or cancelled.
inline bool IsEnded(JobState state) {
  return state == JobState::kFinished || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

}  // namespace resched
