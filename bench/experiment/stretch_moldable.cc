// `resched-experiment stretch-moldable`: Saule et al. §7.1, Figures 3 and 4. The first 8,000
// jobs of SDSC-Par-1996 and OSC-Clust-2000 made moldable with Downey's model (A uniform in
// [recorded processors, P], σ uniform in [0, 2]) on P = 512 processors, one instance per seed;
// DBOS(1), DBOS(1.5), Iterative and Improved Iterative: mean and max flow, mean and max stretch,
// and the fairness histogram (share of jobs with stretch > 1 by size class).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/logs.h"
#include "bench/experiment/runner.h"
#include "bench/experiment/svg_plot.h"
#include "core/workload/downey_workload.h"
#include "core/workload/gzip.h"
#include "core/workload/swf.h"

namespace resched::experiment {
namespace {

constexpr int kProcessors = 512;

std::vector<Contender> Contenders(const ExperimentOptions& options) {
  std::vector<Contender> all = {{"DBOS(1)", "dbos", {{"rho", 1.0}}},
                                {"DBOS(1.5)", "dbos", {{"rho", 1.5}}},
                                {"Iterative", "iterative", {}},
                                {"ImprovedIterative", "iterative-improved", {}}};
  if (options.policies.empty()) return all;
  std::vector<Contender> chosen;
  for (const auto& name : options.policies) chosen.push_back({name, name, {}});
  return chosen;
}

// Which job makes each maximum flow: its sequential time (and how it ranks among the jobs'),
// its width, its wait and its stretch, averaged over the seeds. Stretch is flow over p(1), so a
// policy that orders by stretch can hold a job with a large p(1) back for long.
void PrintMaxFlowJobs(const std::vector<Contender>& contenders,
                      const std::map<std::string, std::vector<RunFigures>>& longest) {
  std::printf(
      "\nThe job behind the maximum flow (means over the seeds):\n\n| algorithm | p(1) (h) | p(1) "
      "above %% of the jobs | processors | wait (h) | run (h) | stretch |\n"
      "|---|---|---|---|---|---|---|\n");
  for (const auto& contender : contenders) {
    std::vector<double> p1, rank, k, wait, run, stretch;
    for (const RunFigures& f : longest.at(contender.label)) {
      const SimJobRecord& j = f.longest_flow;
      p1.push_back(static_cast<double>(j.sequential_time) / 3600e6);
      rank.push_back(100 * f.longest_flow_size_rank);
      k.push_back(j.k);
      wait.push_back(static_cast<double>(j.start - j.release) / 3600e6);
      run.push_back(static_cast<double>(j.end - j.start) / 3600e6);
      stretch.push_back(static_cast<double>(j.end - j.release) /
                        static_cast<double>(std::max<Duration>(1, j.sequential_time)));
    }
    std::printf("| %s | %.1f | %.1f | %.0f | %.1f | %.2f | %.3f |\n", contender.label.c_str(),
                Summarize(p1).mean, Summarize(rank).mean, Summarize(k).mean, Summarize(wait).mean,
                Summarize(run).mean, Summarize(stretch).mean);
  }
}

}  // namespace

int StretchMoldable(const ExperimentOptions& options) {
  const std::string data_dir = options.data_dir.empty() ? DefaultDataDir() : options.data_dir;
  std::vector<std::string> logs = options.logs;
  if (logs.empty()) {
    logs = {absl::StrCat(data_dir, "/SDSC-Par-1996-3.1-cln.swf.gz"),
            absl::StrCat(data_dir, "/OSC-Clust-2000-3.1-cln.swf.gz")};
  }
  const auto contenders = Contenders(options);
  std::ofstream csv_file(absl::StrCat(options.out_dir, "/stretch_moldable.csv"));
  CsvWriter csv(csv_file, {"log", "seed", "algorithm", "mean_flow_s", "max_flow_s", "mean_stretch",
                           "max_stretch", "utilization", "policy_seconds"});
  std::ofstream fairness_file(absl::StrCat(options.out_dir, "/stretch_moldable_fairness.csv"));
  CsvWriter fairness_csv(
      fairness_file, {"log", "algorithm", "size_class", "jobs", "stretched", "percent_stretched"});
  for (const auto& path : logs) {
    auto log = LoadLog(path);
    if (!log.ok()) {
      std::fprintf(stderr, "%s\n", std::string(log.status().message()).c_str());
      return 1;
    }
    const std::string name = std::filesystem::path(path).filename().string();
    std::map<std::string, std::map<std::string, std::vector<double>>> figures;  // label -> key
    std::map<std::string, FairnessHistogram> fairness;
    std::map<std::string, std::vector<RunFigures>> longest;  // label -> per seed
    for (int seed = 1; seed <= options.seeds; ++seed) {
      DowneyWorkloadOptions w;
      w.max_jobs = options.tasks > 0 ? options.tasks : 8000;
      w.processors = kProcessors;
      w.seed = static_cast<std::uint64_t>(seed);
      auto workload = SwfToDowneyWorkload(*log, w);
      if (!workload.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(),
                     std::string(workload.status().message()).c_str());
        return 1;
      }
      for (const auto& contender : contenders) {
        auto run = RunOne(workload->workload, kProcessors, contender);
        if (!run.ok()) {
          std::fprintf(stderr, "%s %s: %s\n", name.c_str(), contender.label.c_str(),
                       std::string(run.status().message()).c_str());
          return 1;
        }
        const auto& m = run->metrics;
        csv.Row({name, absl::StrCat(seed), contender.label, absl::StrFormat("%.1f", m.mean_flow),
                 absl::StrFormat("%.1f", m.max_flow), absl::StrFormat("%.4f", m.mean_stretch),
                 absl::StrFormat("%.4f", m.max_stretch), absl::StrFormat("%.4f", m.utilization),
                 absl::StrFormat("%.3f", run->policy_seconds)});
        auto& f = figures[contender.label];
        f["mean_flow"].push_back(m.mean_flow);
        f["max_flow"].push_back(m.max_flow);
        f["mean_stretch"].push_back(m.mean_stretch);
        f["max_stretch"].push_back(m.max_stretch);
        f["seconds"].push_back(run->policy_seconds);
        fairness[contender.label].Add(run->fairness);
        longest[contender.label].push_back(*run);
        if (options.verbose) {
          std::fprintf(stderr, "%s seed %d %s: mean stretch %.3f max %.1f (%.1f s)\n", name.c_str(),
                       seed, contender.label.c_str(), m.mean_stretch, m.max_stretch,
                       run->policy_seconds);
        }
      }
    }
    std::printf("\n**%s, %d seed(s), %d processors**\n\n", name.c_str(), options.seeds,
                kProcessors);
    std::printf(
        "| algorithm | mean flow (s) | max flow (s) | mean stretch | max stretch |\n"
        "|---|---|---|---|---|\n");
    BarChart chart{absl::StrCat(name, ": jobs with stretch > 1 by size"), "% of the class", {}, {}};
    for (int c = 0; c < kSizeClassCount; ++c) {
      chart.categories.emplace_back(SizeClassName(static_cast<SizeClass>(c)));
    }
    for (const auto& contender : contenders) {
      auto& f = figures[contender.label];
      std::printf("| %s | %.0f | %.0f | %.3f | %.1f |\n", contender.label.c_str(),
                  Summarize(f["mean_flow"]).mean, Summarize(f["max_flow"]).mean,
                  Summarize(f["mean_stretch"]).mean, Summarize(f["max_stretch"]).mean);
      // Run times vary from run to run: kept off standard output, which the docs embed.
      std::fprintf(stderr, "%s %s: policy time %.2f s per seed (mean)\n", name.c_str(),
                   contender.label.c_str(), Summarize(f["seconds"]).mean);
      Series series{contender.label, {}, {}};
      for (int c = 0; c < kSizeClassCount; ++c) {
        const FairnessBin& bin = fairness[contender.label].bins[c];
        fairness_csv.Row({name, contender.label, SizeClassName(static_cast<SizeClass>(c)),
                          absl::StrCat(bin.jobs), absl::StrCat(bin.stretched),
                          absl::StrFormat("%.2f", bin.percent())});
        series.x.push_back(c);
        series.y.push_back(bin.percent());
      }
      chart.series.push_back(std::move(series));
    }
    std::ofstream(absl::StrCat(options.out_dir, "/stretch_moldable_", name, ".svg"))
        << RenderSvg(chart);
    if (options.max_flow_jobs) PrintMaxFlowJobs(contenders, longest);
  }
  return 0;
}

}  // namespace resched::experiment
