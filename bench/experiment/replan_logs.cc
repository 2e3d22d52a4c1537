// `resched-experiment replan-logs`: the offline planners of Replan on real backlogs. An SWF log's
// jobs (moldable by Downey's model, as stretch-moldable makes them, on the log's machine) are
// submitted at their release times to a SIMULATED cluster under conservative backfilling, each
// running its whole estimate, until --tasks jobs (default 400) wait in the queue; a log that never
// queues that many stops at its largest backlog. There, a dry-run Replan with each planner plans
// every queued job around the running ones (core/plan/replan.h, objective BICRITERIA so that both
// bounds are computed). Reported per planner: C_max and sum w C of the queued jobs after, each
// over its lower bound (MRT's and the LP relaxation's), both counted from the backlog's moment,
// and the queue's mean stretch; the row "(queue)" is the backlog as the policy left it. With
// --with-times, the dry-run Replan's time: the planner, both bounds and the trial on a copy.
// The registry's planners that refuse a problem that size (the sparse LPs past their limit) are
// reported as refused, with the reason.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/logs.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"
#include "core/workload/downey_workload.h"
#include "core/workload/swf_workload.h"

namespace resched::experiment {
namespace {

// Submits `workload`'s jobs in release order to a fresh cluster up to job index `stop` (all when
// negative) or until `target` jobs wait; returns the cluster and the index it stopped after.
struct Backlog {
  std::unique_ptr<ClusterPlan> plan;
  int largest_queue = 0;
  std::size_t largest_at = 0;  // jobs submitted when the queue was largest
};

absl::StatusOr<Backlog> ReplayTo(const Workload& workload, int processors, int target,
                                 std::size_t stop) {
  ClusterSpec spec{"replay", {{"", processors, 1.0}}, ClockKind::kSimulated, "conservative", {}};
  ClusterLimits limits;
  limits.max_active_jobs = std::numeric_limits<int>::max();
  limits.max_retained_ended = 1000;
  absl::StatusOr<std::unique_ptr<ClusterPlan>> plan = ClusterPlan::Create(spec, {}, 0, limits);
  if (!plan.ok()) return plan.status();
  Backlog backlog{*std::move(plan), 0, 0};
  for (std::size_t i = 0; i < workload.jobs.size() && i < stop; ++i) {
    const Job& job = workload.jobs[i].job;
    if (absl::Status moved = backlog.plan->AdvanceTo(std::max(job.release, backlog.plan->now()));
        !moved.ok()) {
      return moved;
    }
    if (absl::StatusOr<const JobRecord*> submitted = backlog.plan->Submit(job); !submitted.ok()) {
      return submitted.status();
    }
    if (backlog.plan->queued_count() > backlog.largest_queue) {
      backlog.largest_queue = backlog.plan->queued_count();
      backlog.largest_at = i + 1;
    }
    if (backlog.plan->queued_count() >= target) break;
  }
  return backlog;
}

}  // namespace

int ReplanLogs(const ExperimentOptions& options) {
  std::vector<std::string> logs = options.logs;
  if (logs.empty()) logs = {"CTC-SP2-1996-3.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"};
  const int target = options.tasks > 0 ? options.tasks : 400;
  std::vector<std::string> planners = options.policies;
  if (planners.empty()) {
    for (const AlgorithmInfo& info : AlgorithmRegistry()) {
      if (info.kind == AlgorithmKind::kPlanner) planners.push_back(info.name);
    }
  }
  const std::string dir = options.data_dir.empty() ? DefaultDataDir() : options.data_dir;
  std::ofstream csv_file(absl::StrCat(options.out_dir, "/replan_logs.csv"));
  CsvWriter csv(csv_file, {"log", "queued", "planner", "makespan_ratio", "minsum_ratio",
                           "mean_stretch", "planner_s"});
  std::printf(
      "**replan-logs: Replan's planners on the backlog of real logs (Downey moldable jobs, "
      "conservative backfilling until %d jobs wait); ratios to the lower bounds, from the "
      "backlog's moment**\n\n",
      target);
  std::printf(
      "| log | queued | planner | C_max / bound | sum wC / bound | mean stretch |%s\n"
      "|---|---|---|---|---|---|%s\n",
      options.with_times ? " dry-run Replan (ms) |" : "", options.with_times ? "---|" : "");
  for (const std::string& file : logs) {
    const std::string path =
        (std::filesystem::path(dir) / file).string();  // an absolute `file` stays as is
    absl::StatusOr<SwfLog> log = LoadLog(path);
    if (!log.ok()) {
      std::fprintf(stderr, "%s\n", std::string(log.status().message()).c_str());
      return 1;
    }
    const int processors = SwfMachineSize(*log);
    DowneyWorkloadOptions w;
    w.max_jobs = 20'000;
    w.processors = processors;
    w.seed = 1;
    absl::StatusOr<SwfWorkload> workload = SwfToDowneyWorkload(*log, w);
    if (!workload.ok()) {
      std::fprintf(stderr, "%s: %s\n", file.c_str(),
                   std::string(workload.status().message()).c_str());
      return 1;
    }
    absl::StatusOr<Backlog> backlog =
        ReplayTo(workload->workload, processors, target, workload->workload.jobs.size());
    if (backlog.ok() && backlog->plan->queued_count() < target) {  // back to the largest backlog
      backlog = ReplayTo(workload->workload, processors, target, backlog->largest_at);
    }
    if (!backlog.ok()) {
      std::fprintf(stderr, "%s: replay: %s\n", file.c_str(),
                   std::string(backlog.status().message()).c_str());
      return 1;
    }
    const ClusterPlan& plan = *backlog->plan;
    const double now = static_cast<double>(plan.now()) / kMicrosPerSecond;
    double weights = 0;
    for (const JobRecord* job : plan.QueuedJobs()) weights += job->job.weight;
    const std::string name = std::filesystem::path(file).filename().string();
    bool queue_row = true;
    for (const std::string& planner_name : planners) {
      absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner =
          MakeOfflinePlanner(planner_name, {});
      if (!planner.ok()) {
        std::fprintf(stderr, "%s: %s\n", planner_name.c_str(),
                     std::string(planner.status().message()).c_str());
        return 2;
      }
      const auto started = std::chrono::steady_clock::now();
      absl::StatusOr<ReplanProposal> proposal =
          ProposeReplan(plan, **planner, ReplanObjective::kBicriteria, {});
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (!proposal.ok()) {
        std::printf("| %s | %d | %s | refused: %s | | |%s\n", name.c_str(), plan.queued_count(),
                    planner_name.c_str(), std::string(proposal.status().message()).c_str(),
                    options.with_times ? " |" : "");
        continue;
      }
      const double makespan_bound =
          static_cast<double>(*proposal->makespan_lower_bound) / kMicrosPerSecond - now;
      const double minsum_bound = *proposal->weighted_completion_lower_bound - weights * now;
      auto row = [&](const char* label, const QueueFigures& figures, double ms) {
        const double makespan = static_cast<double>(figures.makespan) / kMicrosPerSecond - now;
        const double minsum = figures.weighted_completion - weights * now;
        std::printf("| %s | %d | %s | %.3f | %.3f | %.2f |", name.c_str(), figures.jobs, label,
                    makespan / makespan_bound, minsum / minsum_bound, figures.mean_stretch);
        if (options.with_times) std::printf(" %.1f |", ms);
        std::printf("\n");
        csv.Row({name, absl::StrCat(figures.jobs), label,
                 absl::StrFormat("%.4f", makespan / makespan_bound),
                 absl::StrFormat("%.4f", minsum / minsum_bound),
                 absl::StrFormat("%.4f", figures.mean_stretch), absl::StrFormat("%.4f", ms / 1e3)});
      };
      if (queue_row) {
        row("(queue)", proposal->trial.before, 0);
        queue_row = false;
      }
      row(planner_name.c_str(), proposal->trial.after, 1e3 * seconds);
    }
  }
  std::printf("\nPer-planner rows: replan_logs.csv\n");
  return 0;
}

}  // namespace resched::experiment
