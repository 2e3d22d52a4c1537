// `ressched`: Aida & Casanova §4.3 (Tables 4 and the §4.3.1 bottom-level comparison): the sixteen
// BL x BD algorithms on Table 1 applications around reservation schedules from Table 2's logs.
#include <cstdio>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/experiment/csv.h"
#include "bench/experiment/dag_scenarios.h"
#include "bench/experiment/experiments.h"
#include "bench/experiment/svg_plot.h"
#include "core/dag/dag_planner.h"
#include "core/metrics/validate.h"
#include "core/registry/registry.h"

namespace resched::experiment {
namespace {

const std::vector<std::string> kBottomLevels = {"1", "all", "cpa", "cpar"};
const std::vector<std::string> kBounds = {"all", "half", "cpa", "cpar"};

std::string Name(const std::string& bl, const std::string& bd) {
  return absl::StrCat("bl_", bl, "_bd_", bd);
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
        const DagPlanningInput input{&dag, &c.timeline, c.schedule.now, c.q, {}};
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
            by_bound[bd].Add(key, bl, hours);
            if (bl == "cpar") {
              turnaround.Add(key, bd, hours);
              cpu.Add(key, bd, plan->cpu_hours);
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
      "## ressched: Aida & Casanova Table 4 (BL_CPAR) — %zu scenarios, %d DAG(s) x %d "
      "schedule(s) each, %ld plans, all validated\n\n",
      specs.size() * logs->size() * phis.size() * decays->size(), options.dags, options.schedules,
      plans);
  std::printf(
      "| Algorithm | Turnaround: avg. deg. from best | wins | CPU-hours: avg. deg. from best "
      "| wins |\n|---|---|---|---|---|\n");
  const auto t_rows = turnaround.Summarize(kBounds);
  const auto c_rows = cpu.Summarize(kBounds);
  for (std::size_t i = 0; i < kBounds.size(); ++i) {
    std::printf("| BD_%s | %.2f %% | %d | %.2f %% | %d |\n",
                absl::AsciiStrToUpper(kBounds[i]).c_str(), 100 * t_rows[i].mean_degradation,
                t_rows[i].wins, 100 * c_rows[i].mean_degradation, c_rows[i].wins);
  }
  std::printf(
      "\n### §4.3.1: bottom-level methods, turnaround (avg. deg. from best / wins) per "
      "bound\n\n| Bound | BL_1 | BL_ALL | BL_CPA | BL_CPAR |\n|---|---|---|---|---|\n");
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
