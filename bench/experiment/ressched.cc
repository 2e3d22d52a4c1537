// `ressched`: Aida & Casanova §4.3 (Tables 4 and the §4.3.1 bottom-level comparison): the sixteen
// BL x BD algorithms on Table 1 applications around reservation schedules from Table 2's logs.
#include "core/dag/ressched.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/dag_scenarios.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/runner.h"
#include "bench/experiment/svg_plot.h"
#include "core/dag/cpa.h"
#include "core/dag/dag_graph.h"
#include "core/dag/dag_planner.h"
#include "core/metrics/validate.h"
#include "core/registry/registry.h"

namespace resched::experiment {
namespace {

const std::vector<std::string> kBottomLevels = {"1", "all", "cpa", "cpar"};
const std::vector<std::string> kBounds = {"all", "half", "cpa", "cpar"};

// aida-casanova Table 4 (1,440 scenarios, 1,000 instances each), in kBounds' order.
struct PaperTable4Row {
  double turnaround;  // %
  int turnaround_wins;
  double cpu;  // %
  int cpu_wins;
};
constexpr PaperTable4Row kPaperTable4[] = {
    {33.75, 36, 42.48, 0}, {28.38, 3, 37.83, 1}, {0.29, 1026, 0.75, 6}, {0.21, 386, 0.00, 1434}};

std::string Name(const std::string& bl, const std::string& bd) {
  return absl::StrCat("bl_", bl, "_bd_", bd);
}

// Per instance, which of two algorithms is faster and by how much: the paper explains Table 4's
// wins by BD_CPA winning "very slightly" and losing "by a larger margin".
struct HeadToHead {
  std::vector<double> first_wins;   // relative margins (second / first - 1) where first < second
  std::vector<double> second_wins;  // (first / second - 1) where second < first
  int ties = 0;

  void Add(double first, double second) {
    if (std::abs(first - second) <= 1e-9 * std::max(first, second)) {
      ++ties;
    } else if (first < second) {
      first_wins.push_back(second / first - 1);
    } else {
      second_wins.push_back(first / second - 1);
    }
  }
  static double Median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
};

// P, the mean q and the reservations dropped, per log: what the platform size changes.
void PrintPlatforms(const std::vector<LogSpec>& logs, const std::vector<ReservationCase>& cases,
                    Platform platform) {
  std::printf(
      "| Log | P (%s) | mean q | mean q / P | reservations kept | dropped over capacity |\n"
      "|---|---|---|---|---|---|\n",
      platform == Platform::kPaper ? "Table 2" : "log header");
  for (const LogSpec& log : logs) {
    double q = 0;
    long kept = 0;
    long dropped = 0;
    int n = 0;
    int processors = 0;
    for (const ReservationCase& c : cases) {
      if (c.log != log.label) continue;
      q += c.q;
      kept += static_cast<long>(c.schedule.reservations.size());
      dropped += c.schedule.dropped_over_capacity;
      processors = c.schedule.processors;
      ++n;
    }
    if (n == 0) continue;
    std::printf("| %s | %d | %.1f | %.2f | %ld | %ld |\n", log.label.c_str(), processors, q / n,
                q / n / processors, kept, dropped);
  }
  std::printf("\n");
}

// CPA's allocation sizes against the machine (P, BD_CPA's bound) and the historical average of
// available processors (q, BD_CPAR's), per log: the widths CPA(P) gives beside what the
// reservations usually leave, which Table 4's magnitudes may depend on.
struct CpaSizes {
  double tasks = 0;
  double width_p = 0;     // sum of CPA(P) widths
  double width_q = 0;     // sum of CPA(q) widths
  double share_p = 0;     // sum of CPA(P) width / P
  double share_q = 0;     // sum of CPA(q) width / q
  double above_q = 0;     // tasks whose CPA(P) width exceeds q
  double level_peak = 0;  // sum over (DAG, case) of the widest precedence level's CPA(P) width / P
  double instances = 0;

  void Add(const DagGraph& g, int q, const CpaOptions& options) {
    const int p = g.capacity;
    const std::vector<int> on_p = CpaAllocation(g, p, options);
    const std::vector<int> on_q = CpaAllocation(g, EffectiveQ(p, q), options);
    const std::vector<int> level = PrecedenceLevels(g);
    std::map<int, double> level_sum;
    for (std::size_t t = 0; t < on_p.size(); ++t) {
      tasks += 1;
      width_p += on_p[t];
      width_q += on_q[t];
      share_p += static_cast<double>(on_p[t]) / p;
      share_q += static_cast<double>(on_q[t]) / EffectiveQ(p, q);
      above_q += on_p[t] > q ? 1 : 0;
      level_sum[level[t]] += on_p[t];
    }
    double peak = 0;
    for (const auto& [level, sum] : level_sum) peak = std::max(peak, sum);
    level_peak += peak / p;
    instances += 1;
  }
};

void PrintCpaSizes(const std::vector<LogSpec>& logs, const std::map<std::string, CpaSizes>& sizes,
                   const std::vector<ReservationCase>& cases) {
  std::printf(
      "\n**CPA allocation sizes against P and q (every task of every DAG, each reservation "
      "case)**\n\n| Log | P | mean q | CPA(P): mean width | / P | tasks wider than q | widest "
      "level / P | CPA(q): mean width | / q |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const LogSpec& log : logs) {
    const auto it = sizes.find(log.label);
    if (it == sizes.end() || it->second.tasks == 0) continue;
    const CpaSizes& s = it->second;
    double q = 0;
    int n = 0;
    int processors = 0;
    for (const ReservationCase& c : cases) {
      if (c.log != log.label) continue;
      q += c.q;
      processors = c.schedule.processors;
      ++n;
    }
    std::printf("| %s | %d | %.1f | %.1f | %.2f | %.1f %% | %.2f | %.1f | %.2f |\n",
                log.label.c_str(), processors, q / n, s.width_p / s.tasks, s.share_p / s.tasks,
                100 * s.above_q / s.tasks, s.level_peak / s.instances, s.width_q / s.tasks,
                s.share_q / s.tasks);
  }
}

}  // namespace

int Ressched(const ExperimentOptions& options) {
  absl::StatusOr<std::vector<LogSpec>> logs = PaperLogs(options.logs);
  absl::StatusOr<std::vector<ReservationDecay>> decays = Decays(options);
  if (!logs.ok() || !decays.ok()) {
    std::fprintf(stderr, "resched-experiment: %s\n",
                 std::string((logs.ok() ? decays.status() : logs.status()).message()).c_str());
    return 2;
  }
  const std::vector<double> phis =
      options.phis.empty() ? std::vector<double>{0.1, 0.2, 0.5} : options.phis;
  absl::StatusOr<std::vector<ReservationCase>> cases =
      BuildReservationCases(options, *logs, phis, *decays, options.schedules);
  if (!cases.ok()) {
    std::fprintf(stderr, "resched-experiment: %s\n", std::string(cases.status().message()).c_str());
    return 1;
  }
  const std::vector<AppSpec> specs = ChosenSpecs(options);

  std::ofstream csv_file(options.out_dir + "/ressched.csv");
  CsvWriter csv(csv_file, {"parameter", "value", "log", "phi", "decay", "schedule", "dag",
                           "processors", "q", "algorithm", "turnaround_h", "cpu_hours"});
  DegradationTable turnaround;  // BL_CPAR, the four bounds (Table 4)
  DegradationTable cpu;
  std::map<std::string, DegradationTable> by_bound;  // per bound, the four bottom levels
  HeadToHead cpa_vs_cpar;
  std::map<std::string, CpaSizes> cpa_sizes;  // per log
  const CpaOptions cpa_options{.level_bound = options.cpa_level_bound != 0};
  long plans = 0;
  for (std::size_t s = 0; s < specs.size(); ++s) {
    for (int d = 0; d < options.dags; ++d) {
      DagGeneratorOptions generator = specs[s].options;
      generator.seed = 1 + static_cast<std::uint64_t>(d) * 7919 + s;
      absl::StatusOr<GeneratedDag> generated = GenerateDag(generator);
      if (!generated.ok()) {
        std::fprintf(stderr, "%s\n", std::string(generated.status().message()).c_str());
        return 1;
      }
      const Dag& dag = generated->dag;
      for (const ReservationCase& c : *cases) {
        const std::string key = ScenarioKey(specs[s], c);
        const std::string instance = absl::StrCat(c.sample, "/", d);
        const DagPlanningInput input{&dag, &c.timeline, c.schedule.now, c.q, {}, {}};
        absl::StatusOr<DagGraph> graph = BuildDagGraph(dag, c.schedule.processors);
        if (!graph.ok()) {
          std::fprintf(stderr, "%s: %s\n", key.c_str(),
                       std::string(graph.status().message()).c_str());
          return 1;
        }
        cpa_sizes[c.log].Add(*graph, c.q, cpa_options);
        double cpa_hours = 0;  // BL_CPAR_BD_CPA's turnaround, compared with BD_CPAR's below
        for (const std::string& bl : kBottomLevels) {
          for (const std::string& bd : kBounds) {
            const std::string name = Name(bl, bd);
            absl::StatusOr<std::unique_ptr<DagPlanner>> planner =
                MakeDagPlanner(name, {{"level_bound", options.cpa_level_bound}});
            absl::StatusOr<DagPlan> plan =
                planner.ok() ? (*planner)->Plan(input) : planner.status();
            if (!plan.ok()) {
              std::fprintf(stderr, "%s on %s: %s\n", name.c_str(), key.c_str(),
                           std::string(plan.status().message()).c_str());
              return 1;
            }
            if (absl::Status v = CheckPlan(dag, *plan, c, std::nullopt); !v.ok()) {
              std::fprintf(stderr, "%s on %s: invalid plan: %s\n", name.c_str(), key.c_str(),
                           std::string(v.message()).c_str());
              return 1;
            }
            ++plans;
            const double hours = static_cast<double>(plan->completion - c.schedule.now) / 3600e6;
            csv.Row({specs[s].parameter, absl::StrFormat("%g", specs[s].value), c.log,
                     absl::StrFormat("%g", c.phi), ReservationDecayName(c.decay),
                     absl::StrCat(c.sample), absl::StrCat(d), absl::StrCat(c.schedule.processors),
                     absl::StrCat(c.q), name, absl::StrFormat("%.6f", hours),
                     absl::StrFormat("%.6f", plan->cpu_hours)});
            by_bound[bd].Add(key, instance, bl, hours);
            if (bl == "cpar") {
              turnaround.Add(key, instance, bd, hours);
              cpu.Add(key, instance, bd, plan->cpu_hours);
              if (bd == "cpa") cpa_hours = hours;
              if (bd == "cpar") cpa_vs_cpar.Add(cpa_hours, hours);
            }
          }
        }
      }
      if (options.verbose) {
        std::fprintf(stderr, "%s=%g dag %d: %ld plans\n", specs[s].parameter.c_str(),
                     specs[s].value, d, plans);
      }
    }
  }

  std::printf(
      "**ressched: Aida & Casanova Table 4 (BL_CPAR) — %zu scenarios, %d DAG(s) x %d "
      "schedule(s) each, %ld plans, all validated**\n\n",
      specs.size() * logs->size() * phis.size() * decays->size(), options.dags, options.schedules,
      plans);
  PrintPlatforms(*logs, *cases, options.platform);
  std::printf(
      "| Algorithm (BL_CPAR) | Turnaround: avg. deg. from best | wins | CPU-hours: avg. deg. "
      "from best | wins | paper: turnaround | wins | CPU-hours | wins |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  const auto t_rows = turnaround.Summarize(kBounds);
  const auto c_rows = cpu.Summarize(kBounds);
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    const PaperTable4Row& paper = kPaperTable4[i];
    std::printf("| BD_%s | %.2f %% | %d | %.2f %% | %d | %.2f %% | %d | %.2f %% | %d |\n",
                absl::AsciiStrToUpper(kBounds[i]).c_str(), 100 * t_rows[i].mean_degradation,
                t_rows[i].wins, 100 * c_rows[i].mean_degradation, c_rows[i].wins, paper.turnaround,
                paper.turnaround_wins, paper.cpu, paper.cpu_wins);
  }
  const std::size_t instances =
      cpa_vs_cpar.first_wins.size() + cpa_vs_cpar.second_wins.size() + cpa_vs_cpar.ties;
  std::printf(
      "\nBD_CPA against BD_CPAR (BL_CPAR), per instance, of %zu: BD_CPA shorter in %zu "
      "(median margin %.2f %%, mean %.2f %%), BD_CPAR shorter in %zu (median %.2f %%, mean "
      "%.2f %%), equal in %d.\n",
      instances, cpa_vs_cpar.first_wins.size(), 100 * HeadToHead::Median(cpa_vs_cpar.first_wins),
      100 * Summarize(cpa_vs_cpar.first_wins).mean, cpa_vs_cpar.second_wins.size(),
      100 * HeadToHead::Median(cpa_vs_cpar.second_wins),
      100 * Summarize(cpa_vs_cpar.second_wins).mean, cpa_vs_cpar.ties);
  PrintCpaSizes(*logs, cpa_sizes, *cases);
  std::printf(
      "\n**§4.3.1: bottom-level methods, turnaround (avg. deg. from best / wins) per "
      "bound**\n\n| Bound | BL_1 | BL_ALL | BL_CPA | BL_CPAR |\n|---|---|---|---|---|\n");
  for (const std::string& bd : kBounds) {
    const auto rows = by_bound[bd].Summarize(kBottomLevels);
    std::printf("| BD_%s |", absl::AsciiStrToUpper(bd).c_str());
    for (const auto& r : rows) std::printf(" %.2f %% / %d |", 100 * r.mean_degradation, r.wins);
    std::printf("\n");
  }

  // Trend along DAG width (§4.3.2: BD_ALL wins only for narrow DAGs).
  LineChart chart{"Turnaround degradation from best vs DAG width (BL_CPAR)",
                  "width",
                  "avg. degradation from best (%)",
                  false,
                  {}};
  for (const std::string& bd : kBounds)
    chart.series.push_back({"BD_" + absl::AsciiStrToUpper(bd), {}, {}});
  for (const AppSpec& spec : specs) {
    if (spec.parameter != "width") continue;
    const auto rows = turnaround.Summarize(kBounds, absl::StrFormat("width=%g|", spec.value));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      chart.series[i].x.push_back(spec.value);
      chart.series[i].y.push_back(100 * rows[i].mean_degradation);
    }
  }
  if (!chart.series[0].x.empty()) {
    std::ofstream(options.out_dir + "/ressched_width.svg") << RenderSvg(chart);
    std::printf("\nChart: ressched_width.svg (turnaround degradation by DAG width).\n");
  }
  std::printf("Per-plan rows: ressched.csv\n");
  return 0;
}

}  // namespace resched::experiment
