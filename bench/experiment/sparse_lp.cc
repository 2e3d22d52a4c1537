// `resched-experiment sparse-lp`: Chrétien et al. §5.2-5.3, Figures 1 to 5: the makespan of LTF
// ("LIST"), the successive LP scheme (Algorithm 1) and its hybrid with LTF (§4.4) over the
// makespan lower bound, against the number of jobs, for rigid and moldable jobs.
//
// The paper's setting (§5.1-5.3): a homogeneous machine of m PEs; each job asks for reqproc PEs,
// uniform in 1..maxproc, for reqtime uniform in 1..granularity time units; rigid jobs run
// reqtime on reqproc PEs, moldable ones t(n) = ceil(reqproc / n) reqtime on n <= reqproc (§2).
// - m = 32: maxproc 8, granularity 25, p = 0.1, maxIter = 15000; 20 runs per point, the best and
//   the worst dropped (§5.2, Figures 1-2);
// - m = 64: maxproc 16, granularity 25; m = 128: maxproc 32, granularity 10; p = 0.1,
//   maxIter = 200; 40 runs per point (§5.3, Figures 3-5).
// The lower bound is Algorithm 1's line 1: the larger of the longest job (on its fastest width)
// and the least total work over m. What differs here:
// - One time unit is one second; the planners' step is then one unit, as in the paper.
// - --seeds runs per point (default 1), with the paper's trimming of the best and the worst for
//   m = 32 from 3 runs on; --max-iterations replaces maxIter (the paper's 15000 takes hours).
// - CPU times vary from run to run, so they are printed only with --with-times.
// - §5.3's statistic "jobs with exact schedules": the share of jobs that an LP solution places
//   on one slot at 1, averaged over the LPs of a run, then over the runs that solved one (the
//   others found LTF at the lower bound).
// Every plan goes through the schedule validator; an invalid plan stops the experiment.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/offline_validate.h"
#include "bench/experiment/runner.h"
#include "bench/experiment/svg_plot.h"
#include "core/offline/offline_planner.h"
#include "core/offline/planners.h"
#include "core/registry/registry.h"

namespace resched::experiment {
namespace {

struct MachineSetting {
  int processors;
  int max_proc;
  int granularity;
  int max_iterations;
  bool trim;  // drop the best and the worst run of each point (§5.2)
};

constexpr MachineSetting kSettings[] = {
    {32, 8, 25, 15000, true}, {64, 16, 25, 200, false}, {128, 32, 10, 200, false}};

OfflineProblem ChretienProblem(const MachineSetting& setting, int jobs, bool moldable,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  OfflineProblem problem;
  problem.free = Timeline(setting.processors);
  for (int i = 0; i < jobs; ++i) {
    const int req = 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(setting.max_proc));
    const Duration time =
        (1 + static_cast<Duration>(rng() % static_cast<std::uint64_t>(setting.granularity))) *
        kMicrosPerSecond;
    problem.jobs.push_back(
        {absl::StrCat("j", i),
         moldable ? RuntimeModel(CeilModel{req, time}) : RuntimeModel(RigidModel{req, time}), 1});
  }
  return problem;
}

// Algorithm 1's line 1.
double LowerBoundSeconds(const OfflineProblem& problem) {
  const int m = problem.free.capacity();
  double longest = 0;
  double work = 0;
  for (const OfflineJob& job : problem.jobs) {
    double fastest = 1e300;
    double least_work = 1e300;
    for (int k : job.model.Widths(m)) {
      const double t = static_cast<double>(job.model.TimeOn(k)) / 1e6;
      fastest = std::min(fastest, t);
      least_work = std::min(least_work, k * t);
    }
    longest = std::max(longest, fastest);
    work += least_work;
  }
  return std::max(longest, work / m);
}

// The ratios of one point, trimmed as the paper does for m = 32.
std::vector<double> Trimmed(std::vector<double> values, bool trim) {
  if (!trim || values.size() < 3) return values;
  std::sort(values.begin(), values.end());
  return {values.begin() + 1, values.end() - 1};
}

}  // namespace

int SparseLp(const ExperimentOptions& options) {
  std::vector<int> machines = options.machines;
  if (machines.empty()) machines = {64, 128};
  std::vector<std::string> planners = options.policies;
  if (planners.empty()) planners = {"ltf", "sparse-lp", "sparse-lp-hybrid"};
  std::ofstream csv_file(absl::StrCat(options.out_dir, "/sparse_lp.csv"));
  CsvWriter csv(csv_file, {"processors", "model", "jobs", "seed", "planner", "makespan_s",
                           "lower_bound_s", "ratio", "cpu_s", "exact_job_share"});
  std::printf(
      "**sparse-lp: Chrétien et al. Figures 1, 3, 4 — makespan over the lower bound, mean (std) "
      "of %d run(s) per point%s**\n\n",
      options.seeds,
      options.max_iterations > 0 ? absl::StrFormat("; maxIter %d", options.max_iterations).c_str()
                                 : "");
  std::printf(
      "| PEs | jobs | model | planner | ratio | exact jobs per LP "
      "|%s\n|---|---|---|---|---|---|%s\n",
      options.with_times ? " CPU (s) |" : "", options.with_times ? "---|" : "");
  for (const int m : machines) {
    const MachineSetting* setting = nullptr;
    for (const MachineSetting& s : kSettings) {
      if (s.processors == m) setting = &s;
    }
    if (setting == nullptr) {
      std::fprintf(stderr, "sparse-lp: --machines takes 32, 64 or 128 (the paper's), not %d\n", m);
      return 2;
    }
    std::vector<int> job_counts = options.jobs;
    if (job_counts.empty()) job_counts = {m / 8, m / 4, m / 2, m};
    const int max_iterations =
        options.max_iterations > 0 ? options.max_iterations : setting->max_iterations;
    std::vector<std::unique_ptr<OfflinePlanner>> built_planners;
    for (const std::string& name : planners) {
      AlgorithmParams params;
      if (name.starts_with("sparse-lp")) params = {{"max_iterations", max_iterations}};
      absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner = MakeOfflinePlanner(name, params);
      if (!planner.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(),
                     std::string(planner.status().message()).c_str());
        return 2;
      }
      built_planners.push_back(*std::move(planner));
    }
    for (const bool moldable : {false, true}) {
      const char* model = moldable ? "moldable" : "rigid";
      LineChart chart{absl::StrFormat("%s jobs on %d PEs (Chrétien et al. Fig. %s)", model, m,
                                      m == 32   ? "1"
                                      : m == 64 ? "3"
                                                : "4"),
                      "jobs",
                      "makespan / lower bound",
                      false,
                      {}};
      for (const std::string& name : planners) chart.series.push_back({name, {}, {}});
      for (const int n : job_counts) {
        std::map<std::string, std::vector<double>> ratios;
        std::map<std::string, std::vector<double>> seconds;
        std::map<std::string, std::vector<double>> exact_shares;  // runs that solved an LP
        for (int seed = 1; seed <= options.seeds; ++seed) {
          const OfflineProblem problem =
              ChretienProblem(*setting, n, moldable, static_cast<std::uint64_t>(seed) * 7919 + n);
          const double bound = LowerBoundSeconds(problem);
          for (std::size_t p = 0; p < planners.size(); ++p) {
            const std::string& name = planners[p];
            absl::StatusOr<TimedPlan> timed = PlanTimedAndValidated(*built_planners[p], problem);
            if (!timed.ok()) {
              std::fprintf(stderr, "%s on %d jobs: %s\n", name.c_str(), n,
                           std::string(timed.status().message()).c_str());
              return 1;
            }
            const OfflinePlan& plan = timed->plan;
            const double cpu = timed->seconds;
            Time end = 0;
            for (const Allocation& a : plan.allocations) end = std::max(end, a.end);
            const double makespan = static_cast<double>(end) / 1e6;
            ratios[name].push_back(makespan / bound);
            seconds[name].push_back(cpu);
            const auto exact_share = plan.statistics.find(kSparseLpExactJobShare);
            if (exact_share != plan.statistics.end()) {
              exact_shares[name].push_back(exact_share->second);
            }
            csv.Row({absl::StrCat(m), model, absl::StrCat(n), absl::StrCat(seed), name,
                     absl::StrFormat("%g", makespan), absl::StrFormat("%g", bound),
                     absl::StrFormat("%.4f", makespan / bound), absl::StrFormat("%.3f", cpu),
                     exact_share != plan.statistics.end()
                         ? absl::StrFormat("%.4f", exact_share->second)
                         : std::string()});
            if (options.verbose) {
              std::fprintf(stderr, "%d PEs %s %d jobs seed %d %s: %.3f in %.2f s\n", m, model, n,
                           seed, name.c_str(), makespan / bound, cpu);
            }
          }
        }
        for (std::size_t p = 0; p < planners.size(); ++p) {
          const MeanStd ratio = Summarize(Trimmed(ratios[planners[p]], setting->trim));
          std::printf("| %d | %d | %s | %s | %.3f (%.3f) |", m, n, model, planners[p].c_str(),
                      ratio.mean, ratio.std);
          const std::vector<double>& shares = exact_shares[planners[p]];
          if (shares.empty()) {
            std::printf(" — |");
          } else {
            std::printf(" %.0f %% |", 100 * Summarize(shares).mean);
          }
          if (options.with_times) std::printf(" %.2f |", Summarize(seconds[planners[p]]).mean);
          std::printf("\n");
          chart.series[p].x.push_back(n);
          chart.series[p].y.push_back(ratio.mean);
        }
      }
      std::ofstream(absl::StrFormat("%s/sparse_lp_%d_%s.svg", options.out_dir, m, model))
          << RenderSvg(chart);
    }
  }
  std::printf("\nCharts: sparse_lp_<PEs>_<model>.svg. Per-run rows: sparse_lp.csv\n");
  return 0;
}

}  // namespace resched::experiment
