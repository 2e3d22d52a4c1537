#include "core/model/job.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace resched {

absl::Status ValidateJob(const Job& job, int capacity) {
  if (auto status = job.model.Validate(); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("job.model.", status.message()));
  }
  if (job.model.Widths(capacity).empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("job.model: no allowed width fits the cluster's %d processors", capacity));
  }
  for (int k : job.model.Widths(capacity)) {
    const Duration t = job.model.TimeOn(k);
    if (t <= 0 || t > kMaxJobDuration) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "job.model: the run time on %d processors must be in (0, %d] microseconds, got %d", k,
          kMaxJobDuration, t));
    }
  }
  if (!(job.weight > 0) || !std::isfinite(job.weight)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("job.weight must be a finite number > 0, got %g", job.weight));
  }
  if (job.release < 0 || job.release > kTimeMax / 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "job.release must be in [0, %d] microseconds, got %d", kTimeMax / 2, job.release));
  }
  if (job.deadline && *job.deadline <= job.release) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "job.deadline must be after job.release (%d), got %d", job.release, *job.deadline));
  }
  return absl::OkStatus();
}

const char* JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "QUEUED";
    case JobState::kRunning:
      return "RUNNING";
    case JobState::kFinished:
      return "FINISHED";
    case JobState::kFailed:
      return "FAILED";
    case JobState::kCancelled:
      return "CANCELLED";
  }
  return "UNKNOWN";
}

}  // namespace resched
