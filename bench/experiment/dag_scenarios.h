// The experimental setting of Aida & Casanova §4.3 and §5.3, shared by `ressched` and
// `resscheddl`: the Table 1 application sweep, reservation schedules from the Table 2 logs
// (§3.2.1: a fraction phi of the jobs, three decay methods), and the "average degradation from
// best" and "wins" of Tables 4 and 6 (degradation_table.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/experiment/degradation_table.h"
#include "bench/experiment/experiments.h"
#include "core/dag/dag_plan.h"
#include "core/timeline/timeline.h"
#include "core/workload/dag_generator.h"
#include "core/workload/reservation_schedule.h"

namespace resched::experiment {

// One application specification: the Table 1 defaults with one parameter changed.
struct AppSpec {
  std::string parameter;  // "n", "alpha", "width", "density", "regularity", "jump"
  double value = 0;
  DagGeneratorOptions options;
};
// The 5 + 4 + 9 + 9 + 9 + 4 = 40 specifications of §4.3.1.
std::vector<AppSpec> Table1Sweep();

struct LogSpec {
  std::string label;  // CTC, OSC, SDSC-BLUE, SDSC-DS
  std::string file;
  int partition = -1;        // SDSC-DS: partition 3 only, as Table 2 says
  int paper_processors = 0;  // P in Table 2 (--platform paper)
};
// Table 2's logs; `names` (labels or file names) selects some, empty means all four.
absl::StatusOr<std::vector<LogSpec>> PaperLogs(const std::vector<std::string>& names);

// A reservation schedule instance, booked on a timeline.
struct ReservationCase {
  std::string log;
  double phi = 0;
  ReservationDecay decay = ReservationDecay::kReal;
  int sample = 0;
  ReservationSchedule schedule;
  Timeline timeline{1};
  int q = 1;  // the historical average of available processors, rounded, in [1, P]
};

// Builds the schedules of every (log, phi, decay, sample): `samples` random (start time,
// tagging) pairs per setting, as §4.3.1's 10 start times x 5 taggings.
absl::StatusOr<std::vector<ReservationCase>> BuildReservationCases(
    const ExperimentOptions& options, const std::vector<LogSpec>& logs,
    const std::vector<double>& phis, const std::vector<ReservationDecay>& decays, int samples);

// --decays (default: linear, expo, real) and --sweep (default: all of Table 1) as given.
absl::StatusOr<std::vector<ReservationDecay>> Decays(const ExperimentOptions& options);
std::vector<AppSpec> ChosenSpecs(const ExperimentOptions& options);
// "width=0.5|CTC|0.2|real": an application spec and a reservation setting.
std::string ScenarioKey(const AppSpec& spec, const ReservationCase& c);
// The validator on a DAG plan placed on the case's timeline.
absl::Status CheckPlan(const Dag& dag, const DagPlan& plan, const ReservationCase& c,
                       std::optional<Time> deadline);

}  // namespace resched::experiment
