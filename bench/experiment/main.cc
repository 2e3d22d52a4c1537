// resched-experiment: reproduces the papers' experiments, one subcommand each, with CSV tables
// and SVG charts in --out and a Markdown summary on standard output.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "bench/experiment/experiments.h"

namespace {

void Usage() {
  std::fputs(
      "usage: resched-experiment SUBCOMMAND [flags]\n"
      "  stretch-sequential  Saule et al. §4.1 / Fig. 1(b): FCFS vs DASEDF, sequential tasks\n"
      "  stretch-moldable    Saule et al. §7.1 / Figs. 3-4: DBOS vs Iterative on SWF logs\n"
      "  stretch-ssm         Saule et al. §7.2 / Fig. 5: short sequence mapping by load, and\n"
      "                      DBOS's online factor rho\n"
      "  ressched            Aida & Casanova §4.3 / Table 4: the 16 BL x BD DAG planners\n"
      "  resscheddl          Aida & Casanova §5.3 / Table 6: RESSCHEDDL tightest deadlines\n"
      "  heft-vs-parallel    Barbosa & Monteiro §5.3-5.4 / Tables 2-3, Fig. 4: HEFT vs\n"
      "                      parallel tasks; exclusive vs global management of a reservation\n"
      "  sparse-lp           Chretien et al. §5.2-5.3 / Figs. 1-5: LTF vs the successive sparse\n"
      "                      LP and its hybrid, makespan over the lower bound\n"
      "  bicriteria          Dutot et al. §4.1-4.2 / Figs. 3-5, 7: the bi-criteria batch\n"
      "                      algorithm vs Gang, Sequential, List Graham; C_max and sum wC\n"
      "  replan-logs         every Replan planner on the backlog of real SWF logs, against the\n"
      "                      lower bounds (--logs, --tasks: the backlog, default 400)\n"
      "flags:\n"
      "  --out DIR           where CSV and SVG files go (default .)\n"
      "  --seeds N           instances per setting (default 1; the paper: 20 for moldable;\n"
      "                      heft-vs-parallel: DAGs per size, seeds 1..N)\n"
      "  --tasks N           tasks per instance (default: the paper's, 20000 / 8000)\n"
      "  --deltas A,B,..     stretch-sequential: Δ values (default 5,10,15,20,40,60,80,100)\n"
      "  --loads A,B,..      stretch-sequential: loads (default 220,230,...,310); stretch-ssm:\n"
      "                      target loads (default: the middles of the paper's seven ranges)\n"
      "  --reservation X,T   stretch-sequential: also the main/auxiliary scheme with X, T\n"
      "  --reservation-grid  stretch-sequential: also the scheme, best (X, T) of the §4.1 grid\n"
      "                      per instance, as the paper reports it (70 + 63 runs per instance)\n"
      "  --by-load           stretch-sequential: also Fig. 2, max and mean stretch per load\n"
      "  --sequential        stretch-ssm: every task on one processor (the paper's FCFS)\n"
      "  --data-dir DIR      stretch-moldable: SWF logs (default ../shared/data/swf)\n"
      "  --logs F,G,..       stretch-moldable: log files instead of SDSC-Par-1996, OSC-Clust-2000\n"
      "  --policies A,B,..   stretch-moldable: registry names instead of the paper's four;\n"
      "                      sparse-lp: offline planners (default ltf, sparse-lp, "
      "sparse-lp-hybrid);\n"
      "                      bicriteria: offline planners (default: the paper's six)\n"
      "  --max-flow-jobs     stretch-moldable: also the job behind each maximum flow\n"
      "  --logs A,B,..       ressched(dl): CTC, OSC, SDSC-BLUE, SDSC-DS (default: all four;\n"
      "                      resscheddl: SDSC-BLUE)\n"
      "  --phis A,B,..       ressched(dl): fractions of jobs as reservations (default .1,.2,.5)\n"
      "  --decays A,B,..     ressched(dl): linear, expo, real, none (default: the first three)\n"
      "  --sweep P,Q,..      ressched(dl): Table 1 parameters to vary: n, alpha, width,\n"
      "                      density, regularity, jump (default: all, 40 specifications)\n"
      "  --schedules N       ressched(dl): schedules (start time, tagging) per setting\n"
      "                      (default 1; the paper: 50)\n"
      "  --dags N            ressched(dl): DAGs per specification (default 1; the paper: 20)\n"
      "  --lambdas A,B,..    resscheddl: also DL_RC_CPAR with these lambdas (§5.3's tuning)\n"
      "  --kept-cpa-guide    resscheddl: also DL_RC_* keeping the whole DAG's CPA widths for\n"
      "                      the tasks not placed yet (the paper re-runs CPA on them)\n"
      "  --platform WHICH    ressched(dl): processor counts from aida-casanova's Table 2\n"
      "                      (paper, default: CTC 430, OSC 57) or the logs' headers (header)\n"
      "  --cpa-level-bound B ressched(dl): 1 (default) keeps CPA's per-level allocation bound,\n"
      "                      0 runs plain CPA's stopping criterion\n"
      "  --machines A,B,..   sparse-lp: 32, 64, 128 PEs with the paper's settings (default\n"
      "                      64,128)\n"
      "  --jobs A,B,..       sparse-lp: job counts (default m/8, m/4, m/2, m); bicriteria:\n"
      "                      task counts (default 25,50,100,200,400)\n"
      "  --max-iterations N  sparse-lp: maxIter (default the paper's: 15000 on 32 PEs, else 200)\n"
      "  --with-times        sparse-lp, bicriteria: also the mean CPU time of each planner\n"
      "  -v                  progress on standard error\n",
      stderr);
}

bool ParseNumbers(const std::string& text, std::vector<double>* out) {
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double value = 0;
    if (!absl::SimpleAtod(part, &value)) return false;
    out->push_back(value);
  }
  return !out->empty();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    Usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  resched::experiment::ExperimentOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    // Flags without a value.
    const std::pair<const char*, bool resched::experiment::ExperimentOptions::*> switches[] = {
        {"-v", &resched::experiment::ExperimentOptions::verbose},
        {"--reservation-grid", &resched::experiment::ExperimentOptions::reservation_grid},
        {"--max-flow-jobs", &resched::experiment::ExperimentOptions::max_flow_jobs},
        {"--sequential", &resched::experiment::ExperimentOptions::sequential},
        {"--by-load", &resched::experiment::ExperimentOptions::by_load},
        {"--kept-cpa-guide", &resched::experiment::ExperimentOptions::kept_cpa_guide},
        {"--with-times", &resched::experiment::ExperimentOptions::with_times}};
    bool is_switch = false;
    for (const auto& [name, member] : switches) {
      if (flag == name) {
        options.*member = true;
        is_switch = true;
      }
    }
    if (is_switch) continue;
    if (i + 1 >= argc) {
      std::fprintf(stderr, "resched-experiment: %s needs a value\n", flag.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    bool ok = true;
    std::vector<double> numbers;
    if (flag == "--out") {
      options.out_dir = value;
    } else if (flag == "--seeds") {
      ok = absl::SimpleAtoi(value, &options.seeds) && options.seeds > 0;
    } else if (flag == "--tasks") {
      ok = absl::SimpleAtoi(value, &options.tasks) && options.tasks > 0;
    } else if (flag == "--deltas") {
      ok = ParseNumbers(value, &options.deltas);
    } else if (flag == "--loads") {
      ok = ParseNumbers(value, &options.loads);
    } else if (flag == "--reservation") {
      ok = ParseNumbers(value, &numbers) && numbers.size() == 2;
      if (ok) options.with_reservation = true, options.x = numbers[0], options.t = numbers[1];
    } else if (flag == "--data-dir") {
      options.data_dir = value;
    } else if (flag == "--logs") {
      for (absl::string_view part : absl::StrSplit(value, ',')) options.logs.emplace_back(part);
    } else if (flag == "--cpa-level-bound") {
      ok = absl::SimpleAtoi(value, &options.cpa_level_bound) &&
           (options.cpa_level_bound == 0 || options.cpa_level_bound == 1);
    } else if (flag == "--platform") {
      ok = value == "paper" || value == "header";
      options.platform = value == "header" ? resched::experiment::Platform::kHeader
                                           : resched::experiment::Platform::kPaper;
    } else if (flag == "--lambdas") {
      ok = ParseNumbers(value, &options.lambdas);
    } else if (flag == "--phis") {
      ok = ParseNumbers(value, &options.phis);
    } else if (flag == "--decays" || flag == "--sweep") {
      auto& list = flag == "--decays" ? options.decays : options.sweep;
      for (absl::string_view part : absl::StrSplit(value, ',')) list.emplace_back(part);
    } else if (flag == "--schedules") {
      ok = absl::SimpleAtoi(value, &options.schedules) && options.schedules > 0;
    } else if (flag == "--dags") {
      ok = absl::SimpleAtoi(value, &options.dags) && options.dags > 0;
    } else if (flag == "--machines" || flag == "--jobs") {
      auto& list = flag == "--machines" ? options.machines : options.jobs;
      ok = ParseNumbers(value, &numbers);
      for (double number : numbers) {
        ok = ok && number >= 1 && number == std::floor(number);
        list.push_back(static_cast<int>(number));
      }
    } else if (flag == "--max-iterations") {
      ok = absl::SimpleAtoi(value, &options.max_iterations) && options.max_iterations >= 2;
    } else if (flag == "--policies") {
      for (absl::string_view part : absl::StrSplit(value, ',')) {
        options.policies.emplace_back(part);
      }
    } else {
      std::fprintf(stderr, "resched-experiment: unknown flag %s\n", flag.c_str());
      Usage();
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "resched-experiment: bad value '%s' for %s\n", value.c_str(),
                   flag.c_str());
      return 2;
    }
  }
  std::filesystem::create_directories(options.out_dir);
  if (command == "stretch-sequential") return resched::experiment::StretchSequential(options);
  if (command == "stretch-moldable") return resched::experiment::StretchMoldable(options);
  if (command == "stretch-ssm") return resched::experiment::StretchSsm(options);
  if (command == "ressched") return resched::experiment::Ressched(options);
  if (command == "resscheddl") return resched::experiment::ResschedDl(options);
  if (command == "heft-vs-parallel") return resched::experiment::HeftVsParallel(options);
  if (command == "sparse-lp") return resched::experiment::SparseLp(options);
  if (command == "bicriteria") return resched::experiment::Bicriteria(options);
  if (command == "replan-logs") return resched::experiment::ReplanLogs(options);
  std::fprintf(stderr, "resched-experiment: unknown subcommand '%s'\n", command.c_str());
  Usage();
  return 2;
}
