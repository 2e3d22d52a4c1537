#include "server/app/planning_span.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace resched::server {
namespace {

// "name=value,..." in name order: one attribute whatever the algorithm's parameters are.
std::string FormatParams(const AlgorithmParams& params) {
  return absl::StrJoin(params, ",", [](std::string* out, const auto& param) {
    absl::StrAppend(out, param.first, "=", param.second);
  });
}

}  // namespace

trace::Attributes PolicyStepAttributes(const ClusterState::Txn& txn, absl::string_view step) {
  if (!trace::Recording()) return {};
  return {{"resched.algorithm", txn.plan.spec().policy},
          {"resched.algorithm.params", FormatParams(txn.params)},
          {"resched.step", std::string(step)},
          {"resched.jobs.queued", std::int64_t{txn.plan.queued_count()}},
          {"resched.jobs.running", std::int64_t{txn.plan.running_count()}}};
}

trace::Attributes DagPlannerAttributes(const std::string& algorithm, const AlgorithmParams& params,
                                       const Dag& dag) {
  if (!trace::Recording()) return {};
  return {{"resched.algorithm", algorithm},
          {"resched.algorithm.params", FormatParams(params)},
          {"resched.dag.tasks", static_cast<std::int64_t>(dag.tasks.size())},
          {"resched.dag.edges", static_cast<std::int64_t>(dag.edges.size())}};
}

trace::ScopedSpan PlanAttemptSpan(int attempt) {
  return trace::ScopedSpan(kPlanAttemptSpan,
                           {{"resched.attempt", static_cast<std::int64_t>(attempt)}});
}

void MarkStale(trace::ScopedSpan& attempt) {
  if (!attempt.recording()) return;
  attempt.SetAttribute("resched.plan.stale", true);
  attempt.SetResult(false,
                    "the plan went stale: the cluster changed while it was planned; planning "
                    "again on the present");
}

void RecordOutcome(trace::ScopedSpan& span, const absl::Status& status) {
  span.SetResult(status.ok(), status.message());
}

void RecordOutcome(trace::ScopedSpan& span, const absl::StatusOr<const JobRecord*>& job) {
  RecordOutcome(span, job.status());
  if (!job.ok() || !span.recording()) return;
  const JobRecord& record = **job;
  span.SetAttribute("resched.job.id", record.job.id);
  span.SetAttribute("resched.job.state", std::string(JobStateName(record.state)));
  span.SetAttribute("resched.job.processors", std::int64_t{record.allocation.k});
  span.SetAttribute("resched.job.start_us", std::int64_t{record.allocation.start});
  span.SetAttribute("resched.job.end_us", std::int64_t{record.allocation.end});
}

}  // namespace resched::server
