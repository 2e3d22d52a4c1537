// `resched-experiment bicriteria`: Dutot et al. §4.1-4.2, Figures 3 to 5 and 7: the bi-criteria
// batch algorithm against Gang, Sequential and the three List Graham orders, on 200 processors,
// by the performance ratio of C_max and of sum w_i C_i to their lower bounds.
//
// The paper's setting: n moldable tasks available at 0 (core/workload/dutot_workload.h: weakly
// or highly parallel tasks of uniform sequential times, or mixed ones), weights in [1, 10], 40
// runs per point; the ratio of a point is the sum of the values over the sum of the lower bounds
// of its runs (§4.2), shown with the least and the largest ratio of one run. The lower bounds:
// MRT's (the largest rejected guess; the paper compares C_max with "the best known
// approximation") and the LP relaxation of §3.3 solved by Clp for sum w_i C_i.
// What differs here:
// - Figure 6's workload (Cirne and Berman's generator) is not reproduced: its distributions are
//   not in the papers we have.
// - --seeds runs per point (default 1; the paper's 40); CPU times (Figure 7) only with
//   --with-times, as they vary from run to run.
// - The workload generator's own choices (X centred on 0.1 for highly parallel tasks, times in
//   minutes) are listed in dutot_workload.h.
// Every plan goes through the schedule validator; an invalid plan stops the experiment.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/offline_validate.h"
#include "bench/experiment/svg_plot.h"
#include "core/offline/minsum_lower_bound.h"
#include "core/offline/mrt.h"
#include "core/registry/registry.h"
#include "core/workload/dutot_workload.h"

namespace resched::experiment {
namespace {

constexpr int kProcessors = 200;  // §4.1

struct WorkloadKind {
  const char* name;
  const char* figure;
  DutotParallelism parallelism;
};
constexpr WorkloadKind kKinds[] = {{"weakly parallel", "3", DutotParallelism::kWeak},
                                   {"highly parallel", "4", DutotParallelism::kHigh},
                                   {"mixed", "5", DutotParallelism::kMixed}};

// The sums and extremes of one point (§4.2's ratio: sum of values over sum of bounds).
struct PointFigures {
  double makespan_sum = 0;
  double makespan_bound_sum = 0;
  double minsum_sum = 0;
  double minsum_bound_sum = 0;
  double makespan_min = 1e300, makespan_max = 0;
  double minsum_min = 1e300, minsum_max = 0;
  double seconds = 0;
  int runs = 0;
};

}  // namespace

int Bicriteria(const ExperimentOptions& options) {
  std::vector<int> task_counts = options.jobs;
  if (task_counts.empty()) task_counts = {25, 50, 100, 200, 400};
  std::vector<std::string> planners = options.policies;
  if (planners.empty()) {
    planners = {"bicriteria", "gang", "seq-lptf", "list-mrt", "list-wlptf", "list-saf"};
  }
  std::vector<std::unique_ptr<OfflinePlanner>> built_planners;
  for (const std::string& name : planners) {
    absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner = MakeOfflinePlanner(name, {});
    if (!planner.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(),
                   std::string(planner.status().message()).c_str());
      return 2;
    }
    built_planners.push_back(*std::move(planner));
  }
  std::ofstream csv_file(absl::StrCat(options.out_dir, "/bicriteria.csv"));
  CsvWriter csv(csv_file, {"workload", "tasks", "seed", "planner", "makespan_s", "makespan_bound_s",
                           "minsum", "minsum_bound", "cpu_s"});
  std::printf(
      "**bicriteria: Dutot et al. Figures 3-5 — %d processors, %d run(s) per point; ratio = sum "
      "of values / sum of lower bounds, [least, largest] ratio of one run**\n\n",
      kProcessors, options.seeds);
  std::printf(
      "| workload | tasks | planner | C_max ratio | sum wC ratio |%s\n"
      "|---|---|---|---|---|%s\n",
      options.with_times ? " CPU (ms) |" : "", options.with_times ? "---|" : "");
  for (const WorkloadKind& kind : kKinds) {
    LineChart makespan_chart{
        absl::StrFormat("C_max, %s tasks (Dutot et al. Fig. %s)", kind.name, kind.figure),
        "tasks",
        "C_max / lower bound",
        false,
        {}};
    LineChart minsum_chart{
        absl::StrFormat("sum wC, %s tasks (Dutot et al. Fig. %s)", kind.name, kind.figure),
        "tasks",
        "sum wC / lower bound",
        false,
        {}};
    for (const std::string& name : planners) {
      makespan_chart.series.push_back({name, {}, {}});
      minsum_chart.series.push_back({name, {}, {}});
    }
    for (const int n : task_counts) {
      std::map<std::string, PointFigures> points;
      for (int seed = 1; seed <= options.seeds; ++seed) {
        absl::StatusOr<Workload> workload = GenerateDutotWorkload(
            {n, kProcessors, kind.parallelism, static_cast<std::uint64_t>(seed)});
        if (!workload.ok()) {
          std::fprintf(stderr, "%s\n", std::string(workload.status().message()).c_str());
          return 2;
        }
        OfflineProblem problem;
        problem.free = Timeline(kProcessors);
        for (const WorkloadJob& wj : workload->jobs) {
          problem.jobs.push_back({wj.job.id, wj.job.model, wj.job.weight});
        }
        absl::StatusOr<MrtShelves> mrt = MrtDualApproximation(problem.jobs, kProcessors, 1e-3, {});
        absl::StatusOr<double> minsum_bound = WeightedCompletionLowerBound(problem, {});
        if (!mrt.ok() || !minsum_bound.ok()) {
          std::fprintf(
              stderr, "lower bounds: %s\n",
              std::string((mrt.ok() ? minsum_bound.status() : mrt.status()).message()).c_str());
          return 1;
        }
        const double makespan_bound = static_cast<double>(mrt->lower_bound) / 1e6;
        const double minsum_lower = *minsum_bound / 1e6;
        for (std::size_t p = 0; p < planners.size(); ++p) {
          const std::string& name = planners[p];
          absl::StatusOr<TimedPlan> timed = PlanTimedAndValidated(*built_planners[p], problem);
          if (!timed.ok()) {
            std::fprintf(stderr, "%s on %d tasks: %s\n", name.c_str(), n,
                         std::string(timed.status().message()).c_str());
            return 1;
          }
          const OfflinePlan& plan = timed->plan;
          const double cpu = timed->seconds;
          double makespan = 0;
          double minsum = 0;
          for (std::size_t i = 0; i < problem.jobs.size(); ++i) {
            const double end = static_cast<double>(plan.allocations[i].end) / 1e6;
            makespan = std::max(makespan, end);
            minsum += problem.jobs[i].weight * end;
          }
          PointFigures& point = points[name];
          point.makespan_sum += makespan;
          point.makespan_bound_sum += makespan_bound;
          point.minsum_sum += minsum;
          point.minsum_bound_sum += minsum_lower;
          point.makespan_min = std::min(point.makespan_min, makespan / makespan_bound);
          point.makespan_max = std::max(point.makespan_max, makespan / makespan_bound);
          point.minsum_min = std::min(point.minsum_min, minsum / minsum_lower);
          point.minsum_max = std::max(point.minsum_max, minsum / minsum_lower);
          point.seconds += cpu;
          ++point.runs;
          csv.Row({kind.name, absl::StrCat(n), absl::StrCat(seed), name,
                   absl::StrFormat("%.1f", makespan), absl::StrFormat("%.1f", makespan_bound),
                   absl::StrFormat("%.1f", minsum), absl::StrFormat("%.1f", minsum_lower),
                   absl::StrFormat("%.4f", cpu)});
        }
      }
      for (std::size_t p = 0; p < planners.size(); ++p) {
        const PointFigures& point = points[planners[p]];
        const double makespan_ratio = point.makespan_sum / point.makespan_bound_sum;
        const double minsum_ratio = point.minsum_sum / point.minsum_bound_sum;
        std::printf("| %s | %d | %s | %.2f [%.2f, %.2f] | %.2f [%.2f, %.2f] |", kind.name, n,
                    planners[p].c_str(), makespan_ratio, point.makespan_min, point.makespan_max,
                    minsum_ratio, point.minsum_min, point.minsum_max);
        if (options.with_times) std::printf(" %.1f |", 1e3 * point.seconds / point.runs);
        std::printf("\n");
        makespan_chart.series[p].x.push_back(n);
        makespan_chart.series[p].y.push_back(makespan_ratio);
        minsum_chart.series[p].x.push_back(n);
        minsum_chart.series[p].y.push_back(minsum_ratio);
      }
    }
    const std::string tag = kind.parallelism == DutotParallelism::kWeak   ? "weak"
                            : kind.parallelism == DutotParallelism::kHigh ? "high"
                                                                          : "mixed";
    std::ofstream(absl::StrFormat("%s/bicriteria_%s_cmax.svg", options.out_dir, tag))
        << RenderSvg(makespan_chart);
    std::ofstream(absl::StrFormat("%s/bicriteria_%s_minsum.svg", options.out_dir, tag))
        << RenderSvg(minsum_chart);
  }
  std::printf(
      "\nCharts: bicriteria_<weak|high|mixed>_<cmax|minsum>.svg. Per-run rows: bicriteria.csv\n");
  return 0;
}

}  // namespace resched::experiment
