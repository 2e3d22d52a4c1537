// `resched-experiment stretch-ssm`: Saule et al. §7.2, Figure 5. Short-sequence-mapping tasks
// (core/workload/ssm_generator.h: 8,000 per instance on 512 processors, speedups with steps) at
// the paper's seven load ranges; DBOS(1.5), Iterative, Improved Iterative and FCFS: mean and
// max flow, mean and max stretch per load (Figures 5(a)-(d)); then DBOS's mean stretch as a
// function of the online factor rho at a low and a high load (Figure 5(f)).
// Deviations: SCOJO-P is not built (a Planned registry entry). The paper's FCFS runs every task
// on one processor ("all tasks are executed sequentially"); the registry's `fcfs` takes the width
// of earliest completion, so it is labelled FCFS (moldable), and `--sequential` runs the paper's
// baseline (every task made rigid on one processor).
#include <cstdio>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/runner.h"
#include "bench/experiment/svg_plot.h"
#include "core/workload/ssm_generator.h"
#include "core/workload/workload_stats.h"

namespace resched::experiment {
namespace {

constexpr int kProcessors = 512;

// The middles of the paper's seven load ranges (153-165, 203-220, 256-280, 332-359, 386-410,
// 410-450, 470-509).
const std::vector<double> kPaperLoads = {159, 211, 268, 345, 398, 430, 490};
const std::vector<double> kRhos = {1, 1.2, 1.5, 1.6, 2, 2.5, 3, 4};

struct Figures {
  std::vector<double> load, mean_flow, max_flow, mean_stretch, max_stretch;
};

}  // namespace

int StretchSsm(const ExperimentOptions& options) {
  const std::vector<double> loads = options.loads.empty() ? kPaperLoads : options.loads;
  std::vector<Contender> contenders = {{"DBOS(1.5)", "dbos", {{"rho", 1.5}}},
                                       {"Iterative", "iterative", {}},
                                       {"ImprovedIterative", "iterative-improved", {}},
                                       {"FCFS (moldable)", "fcfs", {}}};
  if (!options.policies.empty()) {
    contenders.clear();
    for (const auto& name : options.policies) contenders.push_back({name, name, {}});
  }
  std::ofstream csv_file(absl::StrCat(options.out_dir, "/stretch_ssm.csv"));
  CsvWriter csv(csv_file, {"target_load", "seed", "load", "delta", "algorithm", "rho",
                           "mean_flow_s", "max_flow_s", "mean_stretch", "max_stretch"});
  auto workload_for = [&](double load, int seed) {
    SsmWorkloadOptions w;
    w.tasks = options.tasks > 0 ? options.tasks : 8000;
    w.processors = kProcessors;
    w.load = load;
    w.seed = static_cast<std::uint64_t>(seed);
    absl::StatusOr<Workload> workload = GenerateSsmWorkload(w);
    // The paper's FCFS baseline runs every task on one processor, for its sequential time.
    if (workload.ok() && options.sequential) {
      for (WorkloadJob& j : workload->jobs) {
        j.job.model = RuntimeModel(RigidModel{1, j.job.model.SequentialTime()});
      }
    }
    return workload;
  };
  // Figures 5(a)-(d).
  std::map<double, std::map<std::string, Figures>> by_load;
  for (double load : loads) {
    for (int seed = 1; seed <= options.seeds; ++seed) {
      absl::StatusOr<Workload> workload = workload_for(load, seed);
      if (!workload.ok()) {
        std::fprintf(stderr, "ssm workload: %s\n",
                     std::string(workload.status().message()).c_str());
        return 1;
      }
      const WorkloadSummary summary = SummarizeWorkload(*workload);
      for (const Contender& contender : contenders) {
        absl::StatusOr<RunFigures> run = RunOne(*workload, kProcessors, contender);
        if (!run.ok()) {
          std::fprintf(stderr, "%s: %s\n", contender.label.c_str(),
                       std::string(run.status().message()).c_str());
          return 1;
        }
        const ScheduleMetrics& m = run->metrics;
        Figures& f = by_load[load][contender.label];
        f.load.push_back(summary.load);
        f.mean_flow.push_back(m.mean_flow);
        f.max_flow.push_back(m.max_flow);
        f.mean_stretch.push_back(m.mean_stretch);
        f.max_stretch.push_back(m.max_stretch);
        csv.Row({absl::StrFormat("%g", load), absl::StrCat(seed),
                 absl::StrFormat("%.1f", summary.load), absl::StrFormat("%.0f", summary.delta),
                 contender.label, "", absl::StrFormat("%.1f", m.mean_flow),
                 absl::StrFormat("%.1f", m.max_flow), absl::StrFormat("%.4f", m.mean_stretch),
                 absl::StrFormat("%.4f", m.max_stretch)});
        if (options.verbose) {
          std::fprintf(stderr, "load %g seed %d %s: mean stretch %.3f (%.1f s)\n", load, seed,
                       contender.label.c_str(), m.mean_stretch, run->policy_seconds);
        }
      }
    }
  }
  std::printf(
      "**stretch-ssm: Saule et al. Figure 5(a)-(d) — short sequence mapping, %d tasks on %d "
      "processors, %d instance(s) per load; means over the instances%s**\n\n",
      options.tasks > 0 ? options.tasks : 8000, kProcessors, options.seeds,
      options.sequential ? "; every task on one processor" : "");
  std::printf(
      "| target load | measured load | algorithm | mean flow (s) | max flow (s) | mean stretch | "
      "max stretch |\n|---|---|---|---|---|---|---|\n");
  LineChart chart{
      "Mean stretch vs load (Saule et al. Fig. 5(c))", "load", "mean stretch", true, {}};
  for (const Contender& c : contenders) chart.series.push_back({c.label, {}, {}});
  for (const auto& [load, by_algorithm] : by_load) {
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      const Figures& f = by_algorithm.at(contenders[i].label);
      std::printf("| %g | %.0f | %s | %.0f | %.0f | %.3f | %.2f |\n", load, Summarize(f.load).mean,
                  contenders[i].label.c_str(), Summarize(f.mean_flow).mean,
                  Summarize(f.max_flow).mean, Summarize(f.mean_stretch).mean,
                  Summarize(f.max_stretch).mean);
      chart.series[i].x.push_back(Summarize(f.load).mean);
      chart.series[i].y.push_back(Summarize(f.mean_stretch).mean);
    }
  }
  std::ofstream(absl::StrCat(options.out_dir, "/stretch_ssm.svg")) << RenderSvg(chart);

  if (options.sequential) {  // rho only changes the widths DBOS gives, and they are all 1 here
    std::printf("\nChart: stretch_ssm.svg. Per-run rows: stretch_ssm.csv\n");
    return 0;
  }
  // Figure 5(f): DBOS's mean stretch against rho, at the lowest and the highest load.
  std::vector<double> rho_loads = {loads.front()};
  if (loads.back() != loads.front()) rho_loads.push_back(loads.back());
  std::printf(
      "\n**Figure 5(f): DBOS mean stretch as a function of the online factor rho**\n\n| rho |");
  for (double load : rho_loads) std::printf(" load %g |", load);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < rho_loads.size(); ++i) std::printf("---|");
  std::printf("\n");
  std::map<double, std::map<double, std::vector<double>>> by_rho;  // rho -> load -> stretches
  for (double load : rho_loads) {
    for (int seed = 1; seed <= options.seeds; ++seed) {
      absl::StatusOr<Workload> workload = workload_for(load, seed);
      if (!workload.ok()) return 1;
      for (double rho : kRhos) {
        const Contender dbos{absl::StrFormat("DBOS(%g)", rho), "dbos", {{"rho", rho}}};
        absl::StatusOr<RunFigures> run = RunOne(*workload, kProcessors, dbos);
        if (!run.ok()) {
          std::fprintf(stderr, "%s: %s\n", dbos.label.c_str(),
                       std::string(run.status().message()).c_str());
          return 1;
        }
        by_rho[rho][load].push_back(run->metrics.mean_stretch);
        csv.Row({absl::StrFormat("%g", load), absl::StrCat(seed), "", "", "DBOS",
                 absl::StrFormat("%g", rho), "", "",
                 absl::StrFormat("%.4f", run->metrics.mean_stretch),
                 absl::StrFormat("%.4f", run->metrics.max_stretch)});
      }
    }
  }
  for (const auto& [rho, by] : by_rho) {
    std::printf("| %g |", rho);
    for (double load : rho_loads) std::printf(" %.3f |", Summarize(by.at(load)).mean);
    std::printf("\n");
  }
  std::printf("\nChart: stretch_ssm.svg. Per-run rows: stretch_ssm.csv\n");
  return 0;
}

}  // namespace resched::experiment
