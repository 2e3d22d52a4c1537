#include "bench/experiment/dag_scenarios.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/experiment/logs.h"
#include "core/metrics/validate.h"

namespace resched::experiment {

std::vector<AppSpec> Table1Sweep() {
  std::vector<AppSpec> specs;
  auto add = [&](const std::string& parameter, double value, auto set) {
    AppSpec spec{parameter, value, DagGeneratorOptions{}};
    spec.options.n = 50;  // Table 1's defaults
    spec.options.alpha_max = 0.20;
    set(spec.options, value);
    specs.push_back(spec);
  };
  for (double n : {10, 25, 50, 75, 100}) {
    add("n", n, [](DagGeneratorOptions& o, double v) { o.n = static_cast<int>(v); });
  }
  for (double a : {0.05, 0.10, 0.15, 0.20}) {
    add("alpha", a, [](DagGeneratorOptions& o, double v) { o.alpha_max = v; });
  }
  for (int i = 1; i <= 9; ++i) {
    add("width", i / 10.0, [](DagGeneratorOptions& o, double v) { o.width = v; });
  }
  for (int i = 1; i <= 9; ++i) {
    add("density", i / 10.0, [](DagGeneratorOptions& o, double v) { o.density = v; });
  }
  for (int i = 1; i <= 9; ++i) {
    add("regularity", i / 10.0, [](DagGeneratorOptions& o, double v) { o.regularity = v; });
  }
  for (double j : {1, 2, 3, 4}) {
    add("jump", j, [](DagGeneratorOptions& o, double v) { o.jump = static_cast<int>(v); });
  }
  return specs;
}

absl::StatusOr<std::vector<LogSpec>> PaperLogs(const std::vector<std::string>& names) {
  // The processor counts of Table 2. CTC's header says 338 (the batch partition of 512), OSC's
  // 178 processors on 57 nodes: the paper uses 430 and 57.
  const std::vector<LogSpec> all = {{"CTC", "CTC-SP2-1996-3.1-cln.swf.gz", -1, 430},
                                    {"OSC", "OSC-Clust-2000-3.1-cln.swf.gz", -1, 57},
                                    {"SDSC-BLUE", "SDSC-BLUE-2000-4.2-cln.swf.gz", -1, 1152},
                                    {"SDSC-DS", "SDSC-DS-2004-2.1-cln.swf.gz", 3, 224}};
  if (names.empty()) return all;
  std::vector<LogSpec> chosen;
  for (const std::string& name : names) {
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const LogSpec& l) { return l.label == name || l.file == name; });
    if (it == all.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--logs: '", name, "' is not one of CTC, OSC, SDSC-BLUE, SDSC-DS (or their files)"));
    }
    chosen.push_back(*it);
  }
  return chosen;
}

absl::StatusOr<std::vector<ReservationCase>> BuildReservationCases(
    const ExperimentOptions& options, const std::vector<LogSpec>& logs,
    const std::vector<double>& phis, const std::vector<ReservationDecay>& decays, int samples) {
  const std::string dir = options.data_dir.empty() ? DefaultDataDir() : options.data_dir;
  std::vector<ReservationCase> cases;
  for (const LogSpec& spec : logs) {
    absl::StatusOr<SwfLog> log = LoadLog(absl::StrCat(dir, "/", spec.file));
    if (!log.ok()) return log.status();
    for (double phi : phis) {
      for (ReservationDecay decay : decays) {
        for (int sample = 0; sample < samples; ++sample) {
          ReservationScheduleOptions o;
          o.phi = phi;
          o.decay = decay;
          o.partition = spec.partition;
          if (options.platform == Platform::kPaper) o.processors = spec.paper_processors;
          // The same (start, tagging) samples for every phi and decay of a log.
          o.seed = 1000 + static_cast<std::uint64_t>(sample);
          absl::StatusOr<ReservationSchedule> s = BuildReservationSchedule(*log, o);
          if (!s.ok()) return s.status();
          ReservationCase c;
          c.log = spec.label;
          c.phi = phi;
          c.decay = decay;
          c.sample = sample;
          c.timeline = Timeline(s->processors);
          absl::StatusOr<TimelineFill> fill =
              AddReservationsToTimeline(s->reservations, c.timeline);
          if (!fill.ok()) return fill.status();
          c.q =
              std::clamp(static_cast<int>(std::lround(s->historical_available)), 1, s->processors);
          c.schedule = *std::move(s);
          cases.push_back(std::move(c));
          if (options.verbose) {
            std::fprintf(stderr, "%s phi=%.0f%% %s #%d: P=%d, %zu reservations, q=%d\n",
                         spec.label.c_str(), phi * 100, ReservationDecayName(decay), sample,
                         cases.back().schedule.processors,
                         cases.back().schedule.reservations.size(), cases.back().q);
          }
        }
      }
    }
  }
  return cases;
}

absl::StatusOr<std::vector<ReservationDecay>> Decays(const ExperimentOptions& options) {
  if (options.decays.empty()) {
    return std::vector<ReservationDecay>{ReservationDecay::kLinear, ReservationDecay::kExpo,
                                         ReservationDecay::kReal};
  }
  std::vector<ReservationDecay> out;
  for (const std::string& d : options.decays) {
    absl::StatusOr<ReservationDecay> decay = ParseReservationDecay(d);
    if (!decay.ok()) return decay.status();
    out.push_back(*decay);
  }
  return out;
}

std::vector<AppSpec> ChosenSpecs(const ExperimentOptions& options) {
  std::vector<AppSpec> specs;
  for (const AppSpec& s : Table1Sweep()) {
    if (options.sweep.empty() ||
        std::find(options.sweep.begin(), options.sweep.end(), s.parameter) != options.sweep.end()) {
      specs.push_back(s);
    }
  }
  return specs;
}

std::string ScenarioKey(const AppSpec& spec, const ReservationCase& c) {
  return absl::StrFormat("%s=%g|%s|%g|%s", spec.parameter, spec.value, c.log, c.phi,
                         ReservationDecayName(c.decay));
}

absl::Status CheckPlan(const Dag& dag, const DagPlan& plan, const ReservationCase& c,
                       std::optional<Time> deadline) {
  return ValidateSchedule(DagPlanToValidate(dag, plan, c.timeline, c.schedule.now, deadline));
}

}  // namespace resched::experiment
