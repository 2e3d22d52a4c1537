#include "core/workload/swf_workload.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/model/cluster.h"
#include "core/model/job.h"

namespace resched {
namespace {

// Releases stay far from the time range's end so that schedules after them cannot overflow.
constexpr std::int64_t kMaxReleaseSeconds = kTimeMax / 2 / kMicrosPerSecond;
constexpr std::int64_t kMaxRunSeconds = kMaxJobDuration / kMicrosPerSecond;

std::int64_t RecordWidth(const SwfRecord& r) {
  return r.allocated_processors > 0 ? r.allocated_processors : r.requested_processors;
}

}  // namespace

int SwfMachineSize(const SwfLog& log) {
  for (const char* key : {"MaxProcs", "MaxNodes"}) {
    const std::optional<std::int64_t> value = log.HeaderInt(key);
    if (value && *value > 0 && *value <= kMaxClusterProcessors) return static_cast<int>(*value);
  }
  std::int64_t widest = 0;
  for (const SwfRecord& r : log.records) widest = std::max(widest, RecordWidth(r));
  return static_cast<int>(std::min<std::int64_t>(widest, kMaxClusterProcessors));
}

absl::StatusOr<std::vector<SwfJobBasis>> SelectSwfJobs(const SwfLog& log,
                                                       const SwfConversionOptions& options,
                                                       SwfConversionStats& stats) {
  if (options.max_jobs < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_jobs must be >= 0 (0: all), got ", options.max_jobs));
  }
  if (options.processors < 0 || options.processors > kMaxClusterProcessors) {
    return absl::InvalidArgumentError(
        absl::StrCat("processors must be in [0, ", kMaxClusterProcessors,
                     "] (0: from the log), got ", options.processors));
  }
  const int machine = options.processors > 0 ? options.processors : SwfMachineSize(log);
  stats = SwfConversionStats{};

  std::vector<SwfJobBasis> jobs;
  absl::flat_hash_set<std::int64_t> seen_numbers;
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    if (options.max_jobs > 0 && static_cast<std::int64_t>(jobs.size()) >= options.max_jobs) break;
    const SwfRecord& r = log.records[i];
    ++stats.records_examined;
    if (r.submit_time < 0) {
      ++stats.skipped_no_submit_time;
      continue;
    }
    if (r.run_time <= 0) {
      ++stats.skipped_no_run_time;
      continue;
    }
    const std::int64_t width = RecordWidth(r);
    if (width <= 0) {
      ++stats.skipped_no_processors;
      continue;
    }
    if (r.run_time > kMaxRunSeconds || r.submit_time > kMaxReleaseSeconds) {
      ++stats.skipped_out_of_range;
      continue;
    }
    SwfJobBasis job;
    job.record = &r;
    job.id = r.job_number >= 0 && seen_numbers.insert(r.job_number).second
                 ? absl::StrCat(r.job_number)
                 : absl::StrCat("r", i);
    if (width > machine) ++stats.clamped_processors;
    job.k = static_cast<int>(std::min<std::int64_t>(width, machine));
    job.run_time = r.run_time * kMicrosPerSecond;
    // The requested time is what a batch system plans with; a job that ran longer than it asked for
    // (logs have a few) gets its run time as the estimate.
    job.estimate = r.requested_time >= r.run_time && r.requested_time <= kMaxRunSeconds
                       ? r.requested_time * kMicrosPerSecond
                       : job.run_time;
    job.release = r.submit_time * kMicrosPerSecond;
    jobs.push_back(std::move(job));
  }
  if (jobs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the log has no usable job (", stats.records_examined,
                     " records examined: ", stats.skipped_no_submit_time, " without submit time, ",
                     stats.skipped_no_run_time, " without run time, ", stats.skipped_no_processors,
                     " without processor count, ", stats.skipped_out_of_range, " out of range)"));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const SwfJobBasis& a, const SwfJobBasis& b) {
    return a.release < b.release;
  });
  const Time origin = jobs.front().release;
  for (SwfJobBasis& job : jobs) job.release -= origin;
  stats.kept = static_cast<std::int64_t>(jobs.size());
  return jobs;
}

absl::StatusOr<SwfWorkload> SwfToRigidWorkload(const SwfLog& log,
                                               const SwfConversionOptions& options) {
  SwfWorkload result;
  absl::StatusOr<std::vector<SwfJobBasis>> jobs = SelectSwfJobs(log, options, result.stats);
  if (!jobs.ok()) return jobs.status();
  result.workload.name = options.name;
  result.workload.processors = options.processors > 0 ? options.processors : SwfMachineSize(log);
  result.workload.jobs.reserve(jobs->size());
  for (const SwfJobBasis& basis : *jobs) {
    WorkloadJob wj;
    wj.job.id = basis.id;
    if (basis.record->user_id >= 0) wj.job.owner = absl::StrCat("u", basis.record->user_id);
    wj.job.release = basis.release;
    wj.job.model = RuntimeModel(RigidModel{basis.k, basis.estimate});
    wj.runtime_fraction = static_cast<double>(basis.run_time) / static_cast<double>(basis.estimate);
    result.workload.jobs.push_back(std::move(wj));
  }
  return result;
}

}  // namespace resched
