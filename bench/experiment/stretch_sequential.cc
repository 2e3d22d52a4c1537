// `resched-experiment stretch-sequential`: Saule et al. §4.1 and Figure 1(b). Sequential tasks
// (20,000 on 300 processors at full scale) for each Δ and load; the maximum stretch of FCFS and
// DASEDF (and, when asked, their main/auxiliary reservation variants); mean and standard
// deviation over the instances with load above 270, per Δ, each instance's load measured as §4
// defines it (sum_i p_i over the span of releases; the generator only aims at it), and each
// instance's maximum stretch.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/runner.h"
#include "bench/experiment/svg_plot.h"
#include "core/workload/sequential_generator.h"
#include "core/workload/workload_stats.h"

namespace resched::experiment {
namespace {

// Saule et al. Figure 1(b): instances with load > 270 and the mean (std) maximum stretch.
struct PaperRow {
  double delta;
  int instances;
  const char* fcfs;
  const char* dasedf;
};
constexpr PaperRow kPaperFigure1b[] = {
    {5, 50, "1.80 (0.94)", "1.42 (0.27)"},    {10, 76, "4.45 (4.38)", "1.70 (0.65)"},
    {15, 64, "2.95 (1.76)", "1.40 (0.17)"},   {20, 60, "4.45 (3.66)", "1.46 (0.27)"},
    {40, 61, "11.20 (13.90)", "1.61 (0.52)"}, {60, 44, "15.10 (17.60)", "1.60 (0.41)"},
    {80, 60, "20.90 (25.40)", "1.69 (0.45)"}, {100, 49, "28.90 (37.30)", "1.77 (0.53)"}};

struct StretchPair {
  double max = 0;
  double mean = 0;
  double load = 0;  // the instance's, as §4 measures it
};
using ByLoad = std::map<double, std::map<double, std::map<std::string, std::vector<StretchPair>>>>;

struct Comparison {
  int instances = 0;
  int lower = 0;   // the variant's figure is below its base's
  int higher = 0;  // above
};

// A variant against its base, instance by instance, over the instances whose measured load is
// above `min_load`.
Comparison Compare(const std::map<double, std::map<std::string, std::vector<StretchPair>>>& loads,
                   const std::string& variant, const std::string& base, double min_load,
                   double StretchPair::*figure) {
  Comparison c;
  for (const auto& [target, by_algorithm] : loads) {
    if (!by_algorithm.contains(base) || !by_algorithm.contains(variant)) continue;
    const auto& with = by_algorithm.at(variant);
    const auto& without = by_algorithm.at(base);
    for (std::size_t i = 0; i < with.size() && i < without.size(); ++i) {
      if (with[i].load <= min_load) continue;
      ++c.instances;
      c.lower += with[i].*figure < without[i].*figure ? 1 : 0;
      c.higher += with[i].*figure > without[i].*figure ? 1 : 0;
    }
  }
  return c;
}

// Figure 2: maximum and mean stretch per load, and the paper's counts of the instances where
// the reservation scheme lowers or raises them.
void PrintFigure2(const std::vector<Contender>& contenders, const ByLoad& by_load) {
  std::printf(
      "\n**Saule et al. Figure 2: maximum / mean stretch per target load (means over the "
      "instances)**\n\n| Δ | target load |");
  for (const auto& c : contenders) std::printf(" %s |", c.label.c_str());
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < contenders.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const auto& [delta, loads] : by_load) {
    for (const auto& [load, by_algorithm] : loads) {
      std::printf("| %g | %g |", delta, load);
      for (const auto& c : contenders) {
        std::vector<double> max;
        std::vector<double> mean;
        for (const StretchPair& p : by_algorithm.at(c.label)) {
          max.push_back(p.max);
          mean.push_back(p.mean);
        }
        std::printf(" %.2f / %.3f |", Summarize(max).mean, Summarize(mean).mean);
      }
      std::printf("\n");
    }
  }
  // Each reservation variant against its inner policy ("FCFS+res(...)" against "FCFS"), with the
  // paper's thresholds: maximum stretch over the instances with load > 270, mean over > 290.
  std::printf("\n");
  for (const auto& variant : contenders) {
    const std::size_t plus = variant.label.find('+');
    if (plus == std::string::npos) continue;
    const std::string base = variant.label.substr(0, plus);
    for (const auto& [delta, loads] : by_load) {
      const Comparison max = Compare(loads, variant.label, base, 270, &StretchPair::max);
      const Comparison mean = Compare(loads, variant.label, base, 290, &StretchPair::mean);
      if (max.instances == 0) continue;
      std::printf(
          "Δ = %g: %s lowers %s's maximum stretch in %d of %d instances with load > 270; at load "
          "> 290 it lowers the mean stretch in %d and raises it in %d of %d.\n",
          delta, variant.label.c_str(), base.c_str(), max.lower, max.instances, mean.lower,
          mean.higher, mean.instances);
    }
  }
}

// The instances behind each row of Figure 1(b): their measured loads and each contender's
// maximum stretch on each, the largest first named (the paper: "2.5 is the largest maximum
// stretch over all DASEDF solutions").
void PrintInstances(const std::vector<Contender>& contenders,
                    const std::map<double, std::map<std::string, std::vector<double>>>& high_load,
                    const std::map<double, std::vector<double>>& high_loads) {
  std::printf("\n**Per instance (load > 270 as §4 measures it)**\n\n| Δ | loads |");
  for (const auto& c : contenders) std::printf(" %s: largest / each |", c.label.c_str());
  std::printf("\n|---|---|");
  for (std::size_t i = 0; i < contenders.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const auto& [delta, by_algorithm] : high_load) {
    std::vector<std::string> loads;
    for (double l : high_loads.at(delta)) loads.push_back(absl::StrFormat("%.1f", l));
    std::printf("| %g | %s |", delta, absl::StrJoin(loads, ", ").c_str());
    for (const auto& c : contenders) {
      const auto it = by_algorithm.find(c.label);
      if (it == by_algorithm.end() || it->second.empty()) {
        std::printf(" |");
        continue;
      }
      std::vector<std::string> each;
      for (double m : it->second) each.push_back(absl::StrFormat("%.2f", m));
      std::printf(" %.2f / %s |", *std::max_element(it->second.begin(), it->second.end()),
                  absl::StrJoin(each, ", ").c_str());
    }
    std::printf("\n");
  }
}

}  // namespace

int StretchSequential(const ExperimentOptions& options) {
  const std::vector<double> deltas =
      options.deltas.empty() ? std::vector<double>{5, 10, 15, 20, 40, 60, 80, 100} : options.deltas;
  std::vector<double> loads = options.loads;
  if (loads.empty()) {
    for (double load = 220; load <= 310; load += 10) loads.push_back(load);
  }
  std::vector<Contender> contenders = {{"FCFS", "fcfs", {}}, {"DASEDF", "dasedf", {}}};
  if (options.with_reservation) {
    // The paper keeps, per instance, the best (X, T) of its grid; we run one setting from
    // the grid, given on the command line, and say so in docs/experiments.md.
    contenders.push_back({absl::StrFormat("FCFS+res(X=%g,T=%g)", options.x, options.t),
                          "reserve-aux-fcfs",
                          {{"x", options.x}, {"t", options.t}}});
    contenders.push_back({absl::StrFormat("DASEDF+res(X=%g,T=%g)", options.x, options.t),
                          "reserve-aux-dasedf",
                          {{"x", options.x}, {"t", options.t}}});
  }
  // §4.1: X in {1, 2, 5, 10, 15, 20, 30}; T per inner policy. The paper keeps the best pair per
  // instance.
  struct Grid {
    std::string label;
    std::string policy;
    std::vector<double> ts;
  };
  const std::vector<double> xs = {1, 2, 5, 10, 15, 20, 30};
  std::vector<Grid> grids;
  if (options.reservation_grid) {
    grids.push_back(
        {"FCFS+res(best X,T)", "reserve-aux-fcfs", {1.2, 1.5, 1.8, 2, 2.5, 3, 4, 6, 8, 10}});
    grids.push_back(
        {"DASEDF+res(best X,T)", "reserve-aux-dasedf", {1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.5, 3}});
    for (const auto& grid : grids) contenders.push_back({grid.label, grid.policy, {}});
  }
  std::ofstream csv_file(absl::StrCat(options.out_dir, "/stretch_sequential.csv"));
  CsvWriter csv(csv_file, {"delta", "target_load", "load", "seed", "algorithm", "max_stretch",
                           "mean_stretch", "policy_seconds"});
  // delta -> algorithm -> max stretches of the instances with load > 270
  std::map<double, std::map<std::string, std::vector<double>>> high_load;
  // delta -> the measured loads of those instances, in the same order
  std::map<double, std::vector<double>> high_loads;
  // delta -> load -> algorithm -> (max, mean) stretch per instance (Figure 2)
  std::map<double, std::map<double, std::map<std::string, std::vector<StretchPair>>>> by_load;
  for (double delta : deltas) {
    for (double load : loads) {
      for (int seed = 1; seed <= options.seeds; ++seed) {
        SequentialWorkloadOptions w;
        w.tasks = options.tasks > 0 ? options.tasks : 20000;
        w.processors = 300;
        w.delta = delta;
        w.load = load;
        w.seed = static_cast<std::uint64_t>(seed);
        auto workload = GenerateSequentialWorkload(w);
        if (!workload.ok()) {
          std::fprintf(stderr, "workload: %s\n", std::string(workload.status().message()).c_str());
          return 1;
        }
        const double measured = SummarizeWorkload(*workload).load;
        if (measured > 270) high_loads[delta].push_back(measured);
        for (const auto& contender : contenders) {
          absl::StatusOr<RunFigures> figures;
          const Grid* grid = nullptr;
          for (const auto& g : grids) {
            if (g.label == contender.label) grid = &g;
          }
          if (grid == nullptr) {
            figures = RunOne(*workload, w.processors, contender);
          } else {
            figures = absl::NotFoundError("empty (X, T) grid");
            bool first = true;
            for (double x : xs) {
              for (double t : grid->ts) {
                auto run = RunOne(*workload, w.processors,
                                  {contender.label, grid->policy, {{"x", x}, {"t", t}}});
                if (!run.ok()) {
                  figures = run.status();
                  break;
                }
                if (first || run->metrics.max_stretch < figures->metrics.max_stretch) {
                  figures = std::move(run);
                  first = false;
                }
              }
              if (!figures.ok() && !first) break;
            }
          }
          if (!figures.ok()) {
            std::fprintf(stderr, "%s: %s\n", contender.label.c_str(),
                         std::string(figures.status().message()).c_str());
            return 1;
          }
          csv.Row({absl::StrCat(delta), absl::StrCat(load), absl::StrFormat("%.2f", measured),
                   absl::StrCat(seed), contender.label,
                   absl::StrFormat("%.4f", figures->metrics.max_stretch),
                   absl::StrFormat("%.4f", figures->metrics.mean_stretch),
                   absl::StrFormat("%.3f", figures->policy_seconds)});
          if (measured > 270) {
            high_load[delta][contender.label].push_back(figures->metrics.max_stretch);
          }
          by_load[delta][load][contender.label].push_back(
              {figures->metrics.max_stretch, figures->metrics.mean_stretch, measured});
          if (options.verbose) {
            std::fprintf(stderr, "delta %g load %g seed %d %s: max stretch %.3f (%.1f s)\n", delta,
                         load, seed, contender.label.c_str(), figures->metrics.max_stretch,
                         figures->policy_seconds);
          }
        }
      }
    }
  }
  // Figure 1(b) as a table and a chart, with the paper's table beside ours.
  std::printf("| Δ | instances |");
  for (const auto& c : contenders) std::printf(" %s max stretch (mean (std)) |", c.label.c_str());
  std::printf(" paper: instances | paper: FCFS | paper: DASEDF |\n|---|---|");
  for (size_t i = 0; i < contenders.size() + 3; ++i) std::printf("---|");
  std::printf("\n");
  LineChart chart{
      "Max stretch, load > 270 (Saule et al. Fig. 1(b))", "delta", "mean max stretch", true, {}};
  for (const auto& c : contenders) chart.series.push_back({c.label, {}, {}});
  for (const auto& [delta, by_algorithm] : high_load) {
    std::printf("| %g | %zu |", delta, by_algorithm.begin()->second.size());
    for (size_t i = 0; i < contenders.size(); ++i) {
      auto it = by_algorithm.find(contenders[i].label);
      const MeanStd s = it == by_algorithm.end() ? MeanStd{} : Summarize(it->second);
      std::printf(" %.2f (%.2f) |", s.mean, s.std);
      chart.series[i].x.push_back(delta);
      chart.series[i].y.push_back(s.mean);
    }
    // A copy: clang (clang-tidy) does not let a lambda capture a structured binding.
    const double this_delta = delta;
    const auto paper = std::find_if(std::begin(kPaperFigure1b), std::end(kPaperFigure1b),
                                    [&](const PaperRow& r) { return r.delta == this_delta; });
    if (paper == std::end(kPaperFigure1b)) {
      std::printf(" | | |\n");
    } else {
      std::printf(" %d | %s | %s |\n", paper->instances, paper->fcfs, paper->dasedf);
    }
  }
  PrintInstances(contenders, high_load, high_loads);
  std::ofstream(absl::StrCat(options.out_dir, "/stretch_sequential.svg")) << RenderSvg(chart);
  if (options.by_load) PrintFigure2(contenders, by_load);
  return 0;
}

}  // namespace resched::experiment
