#include "core/workload/sequential_generator.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/workload/random.h"

namespace resched {
namespace {

constexpr int kMaxTasks = 10'000'000;

absl::Status CheckOptions(const SequentialWorkloadOptions& o) {
  if (o.tasks < 2 || o.tasks > kMaxTasks) {
    return absl::InvalidArgumentError(
        absl::StrCat("tasks must be in [2, ", kMaxTasks, "], got ", o.tasks));
  }
  if (o.processors < 1 || o.processors > kMaxClusterProcessors) {
    return absl::InvalidArgumentError(
        absl::StrCat("processors must be in [1, ", kMaxClusterProcessors, "], got ", o.processors));
  }
  if (!(o.delta >= 1 && o.delta <= 1e9)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("delta must be in [1, 1e9], got %g", o.delta));
  }
  if (!(o.load > 0 && o.load <= 1e9)) {
    return absl::InvalidArgumentError(absl::StrFormat("load must be in (0, 1e9], got %g", o.load));
  }
  if (o.min_time < 1 || static_cast<double>(o.min_time) * o.delta > kMaxJobDuration) {
    return absl::InvalidArgumentError(
        absl::StrFormat("min_time must be >= 1 microsecond and min_time * "
                        "delta <= %d microseconds, got %d * %g",
                        kMaxJobDuration, o.min_time, o.delta));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Workload> GenerateSequentialWorkload(const SequentialWorkloadOptions& o) {
  if (absl::Status status = CheckOptions(o); !status.ok()) return status;
  WorkloadRng rng(o.seed);
  const double a = static_cast<double>(o.min_time) / kMicrosPerSecond;
  const double b = a * o.delta;

  std::vector<Duration> sizes(o.tasks);
  double total_seconds = 0;
  for (Duration& size : sizes) {
    size = CeilMicros(rng.Uniform(a, b));
    total_seconds += static_cast<double>(size) / kMicrosPerSecond;
  }
  const double rate = o.load * (o.tasks - 1) / total_seconds;  // arrivals per second

  Workload workload;
  workload.name = absl::StrFormat("saule-seq-d%g-l%g-s%d", o.delta, o.load, o.seed);
  workload.processors = o.processors;
  workload.jobs.reserve(o.tasks);
  double release_seconds = 0;  // summed in seconds, rounded per job: no drift from rounding
  for (int i = 0; i < o.tasks; ++i) {
    if (i > 0) release_seconds += rng.Exponential(rate);
    const Time release = CeilMicros(release_seconds);
    if (release > kTimeMax / 2) {
      return absl::InvalidArgumentError(
          absl::StrFormat("releases exceed %d microseconds: load %g is too low for %d tasks",
                          kTimeMax / 2, o.load, o.tasks));
    }
    WorkloadJob wj;
    wj.job.id = absl::StrCat("t", i);
    wj.job.release = release;
    wj.job.model = RuntimeModel(RigidModel{1, sizes[i]});
    workload.jobs.push_back(std::move(wj));
  }
  return workload;
}

}  // namespace resched
