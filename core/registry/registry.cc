#include "core/registry/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/batch/batch_policies.h"
#include "core/dag/dag_planners.h"
#include "core/offline/planners.h"
#include "core/online/policies.h"

namespace resched {

namespace {

// What every entry has besides its factory.
AlgorithmInfo Described(std::string name, AlgorithmKind kind, std::string description,
                        std::string paper, std::vector<ParamInfo> params) {
  AlgorithmInfo info;
  info.name = std::move(name);
  info.kind = kind;
  info.description = std::move(description);
  info.paper = std::move(paper);
  info.params = std::move(params);
  return info;
}

AlgorithmInfo Policy(std::string name, std::string description, std::string paper,
                     PolicyFactory make, std::vector<ParamInfo> params = {}) {
  AlgorithmInfo info = Described(std::move(name), AlgorithmKind::kPolicy, std::move(description),
                                 std::move(paper), std::move(params));
  info.make_policy = std::move(make);
  return info;
}

AlgorithmInfo DagPlannerEntry(std::string name, std::string description, std::string paper,
                              DagPlannerFactory make, std::vector<ParamInfo> params = {}) {
  AlgorithmInfo info = Described(std::move(name), AlgorithmKind::kDagPlanner,
                                 std::move(description), std::move(paper), std::move(params));
  info.make_dag_planner = std::move(make);
  return info;
}

AlgorithmInfo OfflinePlannerEntry(std::string name, std::string description, std::string paper,
                                  OfflinePlannerFactory make, std::vector<ParamInfo> params = {}) {
  AlgorithmInfo info = Described(std::move(name), AlgorithmKind::kPlanner, std::move(description),
                                 std::move(paper), std::move(params));
  info.make_offline_planner = std::move(make);
  return info;
}

// The value of a call this file makes with names it chose itself: a failure is a wiring
// mistake here, never input, and stops the process with the reason.
template <typename T>
T Wired(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) {
    std::fprintf(stderr, "resched: registry wiring: %s: %s\n", what.c_str(),
                 std::string(value.status().message()).c_str());
    std::abort();
  }
  return *std::move(value);
}

// A registered policy run inside each part of a partitioned policy, with its defaults.
InnerPolicyFactory Inner(std::string name) {
  return [name = std::move(name)] {
    return Wired(MakePolicy(name, {}), "inner policy '" + name + "'");
  };
}

CpaOptions CpaFrom(const AlgorithmParams& params) {
  return CpaOptions{.level_bound = params.at("level_bound") != 0};
}

// q = 0 means the cluster's historical average (DagPlanningInput::historical_q).
int QFrom(const AlgorithmParams& params) { return static_cast<int>(params.at("q")); }

DagPlannerFactory ResschedFactory(const std::string& name) {
  return [options = Wired(ParseResschedName(name), name)](const AlgorithmParams& params) {
    ResschedOptions o = options;
    o.q = QFrom(params);
    o.cpa = CpaFrom(params);
    return MakeResschedPlanner(o);
  };
}

DagPlannerFactory DeadlineFactory(const std::string& name) {
  return [options = Wired(ParseResschedDlName(name), name)](const AlgorithmParams& params) {
    ResschedDlOptions o = options;
    o.q = QFrom(params);
    // Only DL_RC declares lambda and cpa_reallocate; DL_BD never reads them.
    auto lambda = params.find("lambda");
    o.lambda = lambda == params.end() ? 0 : lambda->second;
    auto reallocate = params.find("cpa_reallocate");
    o.cpa_guide_reallocates = reallocate != params.end() && reallocate->second != 0;
    o.cpa = CpaFrom(params);
    const Duration resolution = std::max<Duration>(1, CeilMicros(params.at("resolution_s")));
    return MakeDeadlinePlanner(o, resolution);
  };
}

std::vector<AlgorithmInfo> BuildRegistry() {
  const ParamInfo rho{"rho", "resource augmentation factor", 2, 1, 64};
  // The paper's rule is lambda = 1; 1.5 by default because on our reservation schedules
  // lambda = 1 leaves the ancestors no slack and loses on both deadline and CPU-hours
  // (docs/experiments.md, resscheddl).
  const ParamInfo lambda{"lambda",
                         "DL_RC start threshold factor: release + lambda * (CPA start - release); "
                         "1 is the paper's rule",
                         1.5, 0, 1000};
  const ParamInfo cpa_reallocate{"cpa_reallocate",
                                 "DL_RC: 1 re-runs CPA's allocation on the tasks not placed yet "
                                 "(the paper); 0 keeps the whole DAG's CPA widths",
                                 1, 0, 1};
  const ParamInfo q{"q",
                    "processors assumed available for the CPAR allocations; 0: the cluster's "
                    "historical average over q_window_hours",
                    0, 0, 1 << 20};
  const ParamInfo q_window{"q_window_hours",
                           "window before now over which the historical average q is taken",
                           kDefaultHistoryWindowHours, 1e-3, 24 * 366};
  const ParamInfo level_bound{"level_bound",
                              "1: CPA allocations also keep each precedence level within the "
                              "machine (our reading of the improved stopping rule); 0: plain CPA",
                              1, 0, 1};
  const ParamInfo resolution{"resolution_s", "precision of the tightest-deadline search, seconds",
                             1, 1e-6, 86400};
  std::vector<AlgorithmInfo> r;
  r.push_back(Policy("fcfs", "first come, first served; moldable width by earliest completion",
                     "saule §3.1", [](const AlgorithmParams&) { return MakeFcfsPolicy(); }));
  r.push_back(Policy("easy", "EASY backfilling: only the queue head holds a reservation",
                     "saule §5.1", [](const AlgorithmParams&) { return MakeEasyPolicy(); }));
  r.push_back(Policy("conservative", "conservative backfilling: every job keeps its reservation",
                     "saule §5.1",
                     [](const AlgorithmParams&) { return MakeConservativePolicy(); }));
  r.push_back(Policy("dasedf", "dual approximation + EDF, binary search on the stretch S",
                     "saule §3.2",
                     [](const AlgorithmParams& p) { return MakeDasedfPolicy(p.at("epsilon")); },
                     {{"epsilon", "relative precision of the search on S", 1e-3, 1e-6, 0.5}}));
  r.push_back(Policy("split", "Split(rho) with FCFS: rho groups, jobs routed by p(1) class",
                     "saule §3.3.2, Alg. 1",
                     [](const AlgorithmParams& p) {
                       return MakeSplitPolicy(static_cast<int>(std::floor(p.at("rho"))),
                                              p.at("p_min"), p.at("p_max"), Inner("fcfs"));
                     },
                     {rho,
                      {"p_min", "smallest sequential time expected, seconds", 1, 1e-6, 1e9},
                      {"p_max", "largest sequential time expected, seconds", 86400, 1e-6, 1e9}}));
  const std::vector<ParamInfo> reserve_aux{
      {"x", "processors of the auxiliary part (at most P - 1)", 5, 0, 1 << 20},
      {"t", "max-stretch threshold above which the auxiliary part is tried", 2, 0, 1e6}};
  r.push_back(Policy(
      "reserve-aux-fcfs", "main/auxiliary reservation scheme (X, T) over FCFS", "saule §4",
      [](const AlgorithmParams& p) {
        return MakeReserveAuxPolicy(p.at("x"), p.at("t"), Inner("fcfs"));
      },
      reserve_aux));
  r.push_back(Policy(
      "reserve-aux-dasedf", "main/auxiliary reservation scheme (X, T) over DASEDF", "saule §4",
      [](const AlgorithmParams& p) {
        return MakeReserveAuxPolicy(p.at("x"), p.at("t"), Inner("dasedf"));
      },
      reserve_aux));
  r.push_back(
      Policy("dbos", "MoldableEDF inside DBOS(rho)", "saule §6, Alg. 2",
             [](const AlgorithmParams& p) { return MakeDbosPolicy(p.at("rho"), p.at("epsilon")); },
             {{"rho", "online factor: relaxes the best stretch found", 1.5, 1, 64},
              {"epsilon", "relative precision of the search on S", 1e-3, 1e-6, 0.5}}));
  r.push_back(
      Policy("bicriteria-batch", "on-line batches, each planned by the bi-criteria algorithm",
             "dutot §2.2, §3.2",
             [](const AlgorithmParams& p) {
               return MakeBicriteriaBatchPolicy(p.at("epsilon"), static_cast<int>(p.at("shuffles")),
                                                static_cast<std::uint64_t>(p.at("seed")));
             },
             {{"epsilon", "relative precision of MRT's binary search", 1e-3, 1e-6, 0.5},
              {"shuffles", "times each batch's order is shuffled; the best compaction is kept", 10,
               0, 100'000},
              {"seed", "seed of the shuffles", 1, 0, 1e9}}));
  r.push_back(Policy("iterative", "Sabin et al. iterative moldable scheduling", "saule §5.4",
                     [](const AlgorithmParams&) { return MakeIterativePolicy(); }));
  r.push_back(Policy("iterative-improved", "improved iterative moldable scheduling", "saule §5.4",
                     [](const AlgorithmParams&) { return MakeIterativeImprovedPolicy(); }));
  const ParamInfo mrt_epsilon{"epsilon", "relative precision of MRT's search on the makespan", 1e-3,
                              1e-6, 0.5};
  r.push_back(OfflinePlannerEntry(
      "mrt", "MRT dual approximation for makespan: two shelves, and its lower bound",
      "dutot §1.3, §3.2 ([7])",
      [](const AlgorithmParams& p) { return MakeMrtPlanner(p.at("epsilon")); }, {mrt_epsilon}));
  r.push_back(OfflinePlannerEntry(
      "bicriteria", "doubling batches + knapsack + list compaction (makespan and sum wC)",
      "dutot §3.2",
      [](const AlgorithmParams& p) {
        return MakeBicriteriaPlanner(p.at("epsilon"), static_cast<int>(p.at("shuffles")),
                                     static_cast<std::uint64_t>(p.at("seed")));
      },
      {mrt_epsilon,
       {"shuffles", "times the batch order is shuffled; the best compaction is kept", 10, 0,
        100'000},
       {"seed", "seed of the shuffles", 1, 0, 1e9}}));
  r.push_back(
      OfflinePlannerEntry("gang", "every job on all processors, by decreasing weight over time",
                          "dutot §4.1", [](const AlgorithmParams&) { return MakeGangPlanner(); }));
  r.push_back(OfflinePlannerEntry(
      "seq-lptf", "every job on one processor, longest first (list)", "dutot §4.1",
      [](const AlgorithmParams&) { return MakeSequentialLptfPlanner(); }));
  const std::pair<const char*, ListOrder> list_orders[] = {{"list-mrt", ListOrder::kMrt},
                                                           {"list-wlptf", ListOrder::kWlptf},
                                                           {"list-saf", ListOrder::kSaf}};
  const char* list_descriptions[] = {
      "list scheduling on MRT's widths, in MRT's shelf order",
      "list scheduling on MRT's widths, by decreasing weight over time",
      "list scheduling on MRT's widths, smallest area first"};
  for (int i = 0; i < 3; ++i) {
    const ListOrder order = list_orders[i].second;
    r.push_back(OfflinePlannerEntry(
        list_orders[i].first, list_descriptions[i], "dutot §4.1",
        [order](const AlgorithmParams& p) { return MakeListPlanner(order, p.at("epsilon")); },
        {mrt_epsilon}));
  }
  r.push_back(OfflinePlannerEntry(
      "ltf", "largest task (work) first list scheduling, earliest-completion widths",
      "chretien §1, §5", [](const AlgorithmParams&) { return MakeLtfPlanner(); }));
  const std::vector<ParamInfo> sparse_lp_params = {
      {"p", "exponent of the l_p quasi-norm whose successive linearizations make x sparse", 0.1,
       0.01, 0.99},
      {"max_iterations", "LPs solved per horizon before it counts as infeasible (maxIter)", 200, 2,
       100'000},
      {"time_steps", "most time steps LTF's makespan is cut into (the LP's time resolution)", 100,
       4, 10'000}};
  for (const bool hybrid : {false, true}) {
    r.push_back(OfflinePlannerEntry(
        hybrid ? "sparse-lp-hybrid" : "sparse-lp",
        hybrid ? "successive LP approximations; exact slots kept, fuzzy jobs by LTF"
               : "successive LP approximations of the l_p sparse model for makespan",
        hybrid ? "chretien §4.4" : "chretien §4, Alg. 1",
        [hybrid](const AlgorithmParams& p) {
          return MakeSparseLpPlanner(p.at("p"), static_cast<int>(p.at("max_iterations")),
                                     static_cast<int>(p.at("time_steps")), hybrid);
        },
        sparse_lp_params));
  }
  r.push_back(DagPlannerEntry(
      "cpa", "CPA: critical-path/area allocation, then mapping around reservations",
      "aida-casanova §2.1, §4.2",
      [](const AlgorithmParams& p) { return MakeCpaPlanner(CpaFrom(p)); }, {level_bound}));
  for (const char* bl : {"1", "all", "cpa", "cpar"}) {
    for (const char* bd : {"all", "half", "cpa", "cpar"}) {
      const std::string name = absl::StrFormat("bl_%s_bd_%s", bl, bd);
      r.push_back(DagPlannerEntry(
          name,
          absl::StrFormat("RESSCHED: bottom levels on BL_%s widths, widths bounded by BD_%s, "
                          "earliest completion per task",
                          absl::AsciiStrToUpper(bl), absl::AsciiStrToUpper(bd)),
          "aida-casanova §4.2, §4.3.2", ResschedFactory(name), {q, q_window, level_bound}));
    }
  }
  for (const char* name : {"dl_bd_all", "dl_bd_cpa", "dl_bd_cpar"}) {
    r.push_back(DagPlannerEntry(
        name, "RESSCHEDDL aggressive: backwards from the deadline, latest start per task",
        "aida-casanova §5.2.1", DeadlineFactory(name), {q, q_window, level_bound, resolution}));
  }
  for (const char* name : {"dl_rc_cpa", "dl_rc_cpar"}) {
    r.push_back(DagPlannerEntry(name,
                                "RESSCHEDDL resource-conservative: fewest processors starting "
                                "after the CPA schedule's start",
                                "aida-casanova §5.2.2", DeadlineFactory(name),
                                {lambda, cpa_reallocate, q, q_window, level_bound, resolution}));
  }
  r.push_back(DagPlannerEntry(
      "heft", "HEFT: one processor per task, upward rank, insertion-based earliest finish",
      "barbosa §2 ([20], Topcuoglu et al.)",
      [](const AlgorithmParams&) { return MakeHeftPlanner(); }));
  r.push_back(DagPlannerEntry(
      "barbosa", "parallel-task list scheduling with capacity shares and b-level correction",
      "barbosa §4, Alg. 1 + 2", [](const AlgorithmParams&) { return MakeBarbosaPlanner(); }));
  return r;
}

}  // namespace

const std::vector<AlgorithmInfo>& AlgorithmRegistry() {
  static const std::vector<AlgorithmInfo> registry = BuildRegistry();
  return registry;
}

const AlgorithmInfo* FindAlgorithm(std::string_view name) {
  for (const auto& info : AlgorithmRegistry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const char* AlgorithmKindName(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::kPolicy:
      return "policy";
    case AlgorithmKind::kPlanner:
      return "planner";
    case AlgorithmKind::kDagPlanner:
      return "dag-planner";
  }
  return "unknown";
}

absl::Status CheckAlgorithm(std::string_view field, std::string_view name, AlgorithmKind kind,
                            const AlgorithmParams& params) {
  const AlgorithmInfo* info = FindAlgorithm(name);
  if (info == nullptr || info->kind != kind) {
    std::vector<std::string> names;
    for (const auto& a : AlgorithmRegistry()) {
      if (a.kind == kind) names.push_back(a.name);
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.name must be a %s of the registry (%s), got '%s'", field,
                        AlgorithmKindName(kind), absl::StrJoin(names, ", "), name));
  }
  for (const auto& [key, value] : params) {
    const ParamInfo* param = nullptr;
    for (const auto& p : info->params) {
      if (p.name == key) param = &p;
    }
    if (param == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.params: '%s' takes no parameter '%s'", field, info->name, key));
    }
    if (!(value >= param->min && value <= param->max)) {
      return absl::InvalidArgumentError(absl::StrFormat("%s.params.%s must be in [%g, %g], got %g",
                                                        field, key, param->min, param->max, value));
    }
  }
  return absl::OkStatus();
}

namespace {

// `params` with every parameter `info` declares and `params` leaves out set to its default.
AlgorithmParams WithDefaults(const AlgorithmInfo& info, const AlgorithmParams& params) {
  AlgorithmParams all = params;
  for (const ParamInfo& p : info.params) all.emplace(p.name, p.default_value);
  return all;
}

}  // namespace

absl::StatusOr<std::unique_ptr<OnlinePolicy>> MakePolicy(std::string_view name,
                                                         const AlgorithmParams& params) {
  if (auto status = CheckAlgorithm("policy", name, AlgorithmKind::kPolicy, params); !status.ok()) {
    return status;
  }
  const AlgorithmInfo& info = *FindAlgorithm(name);
  return info.make_policy(WithDefaults(info, params));
}

absl::StatusOr<std::unique_ptr<OfflinePlanner>> MakeOfflinePlanner(std::string_view name,
                                                                   const AlgorithmParams& params) {
  if (auto status = CheckAlgorithm("algorithm", name, AlgorithmKind::kPlanner, params);
      !status.ok()) {
    return status;
  }
  const AlgorithmInfo& info = *FindAlgorithm(name);
  return info.make_offline_planner(WithDefaults(info, params));
}

absl::StatusOr<std::unique_ptr<DagPlanner>> MakeDagPlanner(std::string_view name,
                                                           const AlgorithmParams& params) {
  if (auto status = CheckAlgorithm("algorithm", name, AlgorithmKind::kDagPlanner, params);
      !status.ok()) {
    return status;
  }
  const AlgorithmInfo& info = *FindAlgorithm(name);
  return info.make_dag_planner(WithDefaults(info, params));
}

double ParamValue(std::string_view algorithm, const AlgorithmParams& params,
                  const std::string& name) {
  if (auto it = params.find(name); it != params.end()) return it->second;
  if (const AlgorithmInfo* info = FindAlgorithm(algorithm)) {
    for (const auto& p : info->params) {
      if (p.name == name) return p.default_value;
    }
  }
  return 0;
}

}  // namespace resched
