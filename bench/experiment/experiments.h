// The experiments of `resched-experiment`, one function per subcommand.
#pragma once

#include <string>
#include <vector>

namespace resched::experiment {

// ressched(dl): the platform's processor count, from aida-casanova's Table 2 or the log's header
// (they differ for CTC, 430 against 338, and OSC, 57 against 178).
enum class Platform { kPaper, kHeader };

struct ExperimentOptions {
  std::string out_dir = ".";  // CSV and SVG files go here
  std::string data_dir;  // the SWF logs' directory (default: $RESCHED_DATA_DIR/swf, see logs.h)
  int seeds = 1;         // random instances per setting
  int tasks = 0;         // tasks per instance (0: the paper's number)
  std::vector<double> deltas;     // stretch-sequential: Δ values (empty: the paper's)
  std::vector<double> loads;      // stretch-sequential: loads (empty: 220..310 step 10)
  bool with_reservation = false;  // stretch-sequential: also the (X, T) reservation scheme
  double x = 10;                  // processors of the auxiliary part
  double t = 2;                   // stretch threshold of the reservation scheme
  bool reservation_grid = false;  // stretch-sequential: best (X, T) of the §4.1 grid
  bool max_flow_jobs = false;     // stretch-moldable: also the job behind each maximum flow
  bool by_load = false;           // stretch-sequential: Figure 2's max and mean stretch per load
  bool sequential = false;        // stretch-ssm: every task on one processor (the paper's FCFS)
  std::vector<std::string> logs;  // stretch-moldable: log files (empty: SDSC-Par, OSC)
  std::vector<std::string> policies;  // stretch-moldable: contenders (empty: the paper's four)
  std::vector<double> phis;           // ressched(dl): fractions of jobs as reservations
  std::vector<std::string> decays;    // ressched(dl): linear, expo, real (empty: all three)
  std::vector<std::string> sweep;     // ressched(dl): Table 1 parameters to vary (empty: all)
  int schedules = 1;                  // ressched(dl): reservation schedules per setting (paper 50)
  std::vector<double> lambdas;        // resscheddl: extra DL_RC_CPAR rows with these lambdas
  int dags = 1;                       // ressched(dl): DAG samples per specification (paper 20)
  int cpa_level_bound = 1;            // ressched(dl): the level_bound parameter of CPA (0: plain)
  Platform platform = Platform::kPaper;  // ressched(dl): processor counts (see Platform)
  bool kept_cpa_guide = false;  // resscheddl: also DL_RC_* keeping the whole DAG's CPA widths
  std::vector<int> machines;    // sparse-lp: machine sizes (32, 64, 128; empty: 64, 128)
  std::vector<int> jobs;        // sparse-lp: job counts (empty: m/8, m/4, m/2, m)
  int max_iterations = 0;       // sparse-lp: maxIter (0: the paper's per machine)
  bool with_times = false;      // sparse-lp: also the planners' CPU times (vary run to run)
  bool verbose = false;
};

int StretchSequential(const ExperimentOptions& options);
int StretchMoldable(const ExperimentOptions& options);
int StretchSsm(const ExperimentOptions& options);
int Ressched(const ExperimentOptions& options);
int ResschedDl(const ExperimentOptions& options);
int HeftVsParallel(const ExperimentOptions& options);
int SparseLp(const ExperimentOptions& options);
int Bicriteria(const ExperimentOptions& options);
int ReplanLogs(const ExperimentOptions& options);

}  // namespace resched::experiment
