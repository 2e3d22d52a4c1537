#include "core/registry/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/batch/batch_policies.h"
#include "core/dag/dag_planners.h"
#include "core/offline/planners.h"
#include "core/online/policies.h"
#include "core/registry/param_binding.h"

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

// A factory of `Made` that fills the algorithm's typed options from checked AlgorithmParams
// (`defaults` where a parameter is left out) and hands them to `make`.
template <class Made, class Options, class Make>
std::function<std::unique_ptr<Made>(const AlgorithmParams&)> Typed(
    std::vector<ParamBinding<Options>> params, Options defaults, Make make) {
  return [params = std::move(params), defaults = std::move(defaults),
          make = std::move(make)](const AlgorithmParams& values) -> std::unique_ptr<Made> {
    return make(FillOptions(params, defaults, values));
  };
}

// Where an entry of each kind keeps its factory.
template <class Made>
struct EntryKind;
template <>
struct EntryKind<OnlinePolicy> {
  static constexpr AlgorithmKind kKind = AlgorithmKind::kPolicy;
  static PolicyFactory& Factory(AlgorithmInfo& info) { return info.make_policy; }
};
template <>
struct EntryKind<DagPlanner> {
  static constexpr AlgorithmKind kKind = AlgorithmKind::kDagPlanner;
  static DagPlannerFactory& Factory(AlgorithmInfo& info) { return info.make_dag_planner; }
};
template <>
struct EntryKind<OfflinePlanner> {
  static constexpr AlgorithmKind kKind = AlgorithmKind::kPlanner;
  static OfflinePlannerFactory& Factory(AlgorithmInfo& info) { return info.make_offline_planner; }
};

// A registry entry building a `Made` (an OnlinePolicy, a DagPlanner or an OfflinePlanner) from the
// options `params` fill in `defaults`.
template <class Made, class Options, class Make>
AlgorithmInfo Entry(std::string name, std::string description, std::string paper, Options defaults,
                    std::vector<ParamBinding<Options>> params, Make make) {
  AlgorithmInfo info = Described(std::move(name), EntryKind<Made>::kKind, std::move(description),
                                 std::move(paper), ParamInfos(params, defaults));
  EntryKind<Made>::Factory(info) =
      Typed<Made>(std::move(params), std::move(defaults), std::move(make));
  return info;
}

// An algorithm without parameters.
struct NoOptions {};

template <class Made, class Make>
AlgorithmInfo Entry(std::string name, std::string description, std::string paper, Make make) {
  return Entry<Made>(std::move(name), std::move(description), std::move(paper), NoOptions{}, {},
                     [make = std::move(make)](const NoOptions&) { return make(); });
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

// CPA's level bound, bound where `cpa` finds the CpaOptions in Options.
template <class Options, class Access>
ParamBinding<Options> LevelBound(Access cpa) {
  return BindField<Options>(
      "level_bound",
      "1: CPA allocations also keep each precedence level within the "
      "machine (our reading of the improved stopping rule); 0: plain CPA",
      0, 1, [cpa](auto& o) -> auto& { return cpa(o).level_bound; });
}

// The bi-criteria algorithm's parameters, for the offline planner and the batch policy.
std::vector<ParamBinding<BicriteriaOptions>> BicriteriaParams(const char* shuffles) {
  return {Bind("epsilon", "relative precision of MRT's binary search", 1e-6, 0.5,
               &BicriteriaOptions::epsilon),
          Bind("shuffles", shuffles, 0, 100'000, &BicriteriaOptions::shuffles),
          Bind("seed", "seed of the shuffles", 0, 1e9, &BicriteriaOptions::seed)};
}

// The parameters every RESSCHED and RESSCHEDDL variant takes, bound where `options` (a
// ResschedOptions or a ResschedDlOptions) sits in the planner's Options.
template <class Options, class Access>
std::vector<ParamBinding<Options>> ResschedParams(Access options) {
  return {BindField<Options>(
              "q",
              "processors assumed available for the CPAR allocations; 0: the "
              "cluster's historical average over q_window_hours",
              0, 1 << 20, [options](auto& o) -> auto& { return options(o).q; }),
          Bind("q_window_hours", "window before now over which the historical average q is taken",
               1e-3, 24 * 366, &Options::q_window_hours),
          LevelBound<Options>([options](auto& o) -> auto& { return options(o).cpa; })};
}

std::vector<AlgorithmInfo> BuildRegistry() {
  std::vector<AlgorithmInfo> r;
  r.push_back(Entry<OnlinePolicy>("fcfs",
                                  "first come, first served; moldable width by earliest completion",
                                  "saule §3.1", [] { return MakeFcfsPolicy(); }));
  r.push_back(Entry<OnlinePolicy>("easy",
                                  "EASY backfilling: only the queue head holds a reservation",
                                  "saule §5.1", [] { return MakeEasyPolicy(); }));
  r.push_back(Entry<OnlinePolicy>("conservative",
                                  "conservative backfilling: every job keeps its reservation",
                                  "saule §5.1", [] { return MakeConservativePolicy(); }));
  r.push_back(Entry<OnlinePolicy>("dasedf",
                                  "dual approximation + EDF, binary search on the stretch S",
                                  "saule §3.2", DasedfOptions{},
                                  {Bind("epsilon", "relative precision of the search on S", 1e-6,
                                        0.5, &DasedfOptions::epsilon)},
                                  [](const DasedfOptions& o) { return MakeDasedfPolicy(o); }));
  r.push_back(
      Entry<OnlinePolicy>("split", "Split(rho) with FCFS: rho groups, jobs routed by p(1) class",
                          "saule §3.3.2, Alg. 1", SplitOptions{},
                          {Bind("rho", "resource augmentation factor: the number of classes", 1, 64,
                                &SplitOptions::rho),
                           Bind("p_min", "smallest sequential time expected, seconds", 1e-6, 1e9,
                                &SplitOptions::p_min_s),
                           Bind("p_max", "largest sequential time expected, seconds", 1e-6, 1e9,
                                &SplitOptions::p_max_s)},
                          [](const SplitOptions& o) { return MakeSplitPolicy(o, Inner("fcfs")); }));
  const std::vector<ParamBinding<ReserveAuxOptions>> reserve_aux{
      Bind("x", "processors of the auxiliary part (at most P - 1)", 0, 1 << 20,
           &ReserveAuxOptions::x),
      Bind("t", "max-stretch threshold above which the auxiliary part is tried", 0, 1e6,
           &ReserveAuxOptions::t)};
  for (const char* inner : {"fcfs", "dasedf"}) {
    r.push_back(Entry<OnlinePolicy>(absl::StrCat("reserve-aux-", inner),
                                    absl::StrCat("main/auxiliary reservation scheme (X, T) over ",
                                                 absl::AsciiStrToUpper(inner)),
                                    "saule §4", ReserveAuxOptions{}, reserve_aux,
                                    [inner = std::string(inner)](const ReserveAuxOptions& o) {
                                      return MakeReserveAuxPolicy(o, Inner(inner));
                                    }));
  }
  r.push_back(Entry<OnlinePolicy>(
      "dbos", "MoldableEDF inside DBOS(rho)", "saule §6, Alg. 2", DbosOptions{},
      {Bind("rho", "online factor: relaxes the best stretch found", 1, 64, &DbosOptions::rho),
       Bind("epsilon", "relative precision of the search on S", 1e-6, 0.5, &DbosOptions::epsilon)},
      [](const DbosOptions& o) { return MakeDbosPolicy(o); }));
  r.push_back(Entry<OnlinePolicy>(
      "bicriteria-batch", "on-line batches, each planned by the bi-criteria algorithm",
      "dutot §2.2, §3.2", BicriteriaOptions{},
      BicriteriaParams("times each batch's order is shuffled; the best "
                       "compaction is kept"),
      [](const BicriteriaOptions& o) { return MakeBicriteriaBatchPolicy(o); }));
  r.push_back(Entry<OnlinePolicy>("iterative", "Sabin et al. iterative moldable scheduling",
                                  "saule §5.4", [] { return MakeIterativePolicy(); }));
  r.push_back(Entry<OnlinePolicy>("iterative-improved", "improved iterative moldable scheduling",
                                  "saule §5.4", [] { return MakeIterativeImprovedPolicy(); }));
  const std::vector<ParamBinding<MrtOptions>> mrt{
      Bind("epsilon", "relative precision of MRT's search on the makespan", 1e-6, 0.5,
           &MrtOptions::epsilon)};
  r.push_back(Entry<OfflinePlanner>(
      "mrt", "MRT dual approximation for makespan: two shelves, and its lower bound",
      "dutot §1.3, §3.2 ([7])", MrtOptions{}, mrt,
      [](const MrtOptions& o) { return MakeMrtPlanner(o); }));
  r.push_back(Entry<OfflinePlanner>(
      "bicriteria", "doubling batches + knapsack + list compaction (makespan and sum wC)",
      "dutot §3.2", BicriteriaOptions{},
      BicriteriaParams("times the batch order is shuffled; the best compaction is kept"),
      [](const BicriteriaOptions& o) { return MakeBicriteriaPlanner(o); }));
  r.push_back(Entry<OfflinePlanner>("gang",
                                    "every job on all processors, by decreasing weight over time",
                                    "dutot §4.1", [] { return MakeGangPlanner(); }));
  r.push_back(Entry<OfflinePlanner>("seq-lptf", "every job on one processor, longest first (list)",
                                    "dutot §4.1", [] { return MakeSequentialLptfPlanner(); }));
  const std::pair<const char*, ListOrder> list_orders[] = {{"list-mrt", ListOrder::kMrt},
                                                           {"list-wlptf", ListOrder::kWlptf},
                                                           {"list-saf", ListOrder::kSaf}};
  const char* list_descriptions[] = {
      "list scheduling on MRT's widths, in MRT's shelf order",
      "list scheduling on MRT's widths, by decreasing weight over time",
      "list scheduling on MRT's widths, smallest area first"};
  for (int i = 0; i < 3; ++i) {
    const ListOrder order = list_orders[i].second;
    r.push_back(Entry<OfflinePlanner>(
        list_orders[i].first, list_descriptions[i], "dutot §4.1", MrtOptions{}, mrt,
        [order](const MrtOptions& o) { return MakeListPlanner(order, o); }));
  }
  r.push_back(Entry<OfflinePlanner>(
      "ltf", "largest task (work) first list scheduling, earliest-completion widths",
      "chretien §1, §5", [] { return MakeLtfPlanner(); }));
  const std::vector<ParamBinding<SparseLpOptions>> sparse_lp{
      Bind("p", "exponent of the l_p quasi-norm whose successive linearizations make x sparse",
           0.01, 0.99, &SparseLpOptions::p),
      Bind("max_iterations", "LPs solved per horizon before it counts as infeasible (maxIter)", 2,
           100'000, &SparseLpOptions::max_iterations),
      Bind("time_steps", "most time steps LTF's makespan is cut into (the LP's time resolution)", 4,
           10'000, &SparseLpOptions::time_steps),
      Bind("time_limit_s",
           "seconds of LP solving, after which the best schedule found is the answer", 0.01, 86'400,
           &SparseLpOptions::time_limit_s)};
  for (const bool hybrid : {false, true}) {
    SparseLpOptions defaults;
    defaults.hybrid = hybrid;
    r.push_back(Entry<OfflinePlanner>(
        hybrid ? "sparse-lp-hybrid" : "sparse-lp",
        hybrid ? "successive LP approximations; exact slots kept, fuzzy jobs by LTF"
               : "successive LP approximations of the l_p sparse model for makespan",
        hybrid ? "chretien §4.4" : "chretien §4, Alg. 1", defaults, sparse_lp,
        [](const SparseLpOptions& o) { return MakeSparseLpPlanner(o); }));
  }
  r.push_back(Entry<DagPlanner>(
      "cpa", "CPA: critical-path/area allocation, then mapping around reservations",
      "aida-casanova §2.1, §4.2", CpaOptions{},
      {LevelBound<CpaOptions>([](auto& o) -> auto& { return o; })},
      [](const CpaOptions& o) { return MakeCpaPlanner(o); }));
  for (const ResschedOptions& variant : ResschedVariants()) {
    ResschedPlannerOptions defaults;
    defaults.ressched = variant;
    r.push_back(Entry<DagPlanner>(
        ResschedName(variant),
        absl::StrFormat("RESSCHED: bottom levels on BL_%s widths, widths bounded by BD_%s, "
                        "earliest completion per task",
                        absl::AsciiStrToUpper(AllocationSourceName(variant.bottom_level)),
                        absl::AsciiStrToUpper(AllocationSourceName(variant.bound))),
        "aida-casanova §4.2, §4.3.2", defaults,
        ResschedParams<ResschedPlannerOptions>([](auto& o) -> auto& { return o.ressched; }),
        [](const ResschedPlannerOptions& o) { return MakeResschedPlanner(o); }));
  }
  for (const ResschedDlOptions& variant : ResschedDlVariants()) {
    DeadlinePlannerOptions defaults;
    defaults.resscheddl = variant;
    // The paper's rules are lambda = 1 and no fallback (a task no width of which starts late
    // enough fails the plan). Ours by default: lambda 1.5 and the CPA-bounded fallback, which on
    // our reservation schedules bring DL_RC_CPAR's tightest deadlines from about 300 % behind
    // the best of the paper's five to slightly ahead of it, at the same CPU-hours for a loose
    // deadline (docs/experiments.md, Table 6's sensitivity rows).
    defaults.resscheddl.lambda = 1.5;
    defaults.resscheddl.fallback = DlRcFallback::kCpaBounded;
    std::vector<ParamBinding<DeadlinePlannerOptions>> params;
    if (variant.resource_conservative) {
      params.push_back(BindField<DeadlinePlannerOptions>(
          "lambda",
          "DL_RC start threshold factor: release + lambda * (CPA start - release); 1 is the "
          "paper's rule",
          0, 1000, [](auto& o) -> auto& { return o.resscheddl.lambda; }));
      params.push_back(BindChoice<DeadlinePlannerOptions>(
          "fallback",
          "DL_RC, for a task no width of which starts late enough (the paper says nothing): none "
          "fails the plan (the paper, literally), cpa-bounded takes the latest start up to the "
          "CPA bound, widest the latest start on any width",
          DlRcFallbackNames(), [](auto& o) -> auto& { return o.resscheddl.fallback; }));
      params.push_back(BindField<DeadlinePlannerOptions>(
          "cpa_reallocate",
          "DL_RC: 1 re-runs CPA's allocation on the tasks not placed yet (the paper); 0 keeps "
          "the whole DAG's CPA widths",
          0, 1, [](auto& o) -> auto& { return o.resscheddl.cpa_guide_reallocates; }));
    }
    for (ParamBinding<DeadlinePlannerOptions>& shared :
         ResschedParams<DeadlinePlannerOptions>([](auto& o) -> auto& { return o.resscheddl; })) {
      params.push_back(std::move(shared));
    }
    params.push_back(Bind("resolution_s", "precision of the tightest-deadline search, seconds",
                          1e-6, 86400, &DeadlinePlannerOptions::resolution_s));
    r.push_back(Entry<DagPlanner>(
        ResschedDlName(variant),
        variant.resource_conservative
            ? "RESSCHEDDL resource-conservative: fewest processors starting after the CPA "
              "schedule's start"
            : "RESSCHEDDL aggressive: backwards from the deadline, latest start per task",
        variant.resource_conservative ? "aida-casanova §5.2.2" : "aida-casanova §5.2.1", defaults,
        std::move(params), [](const DeadlinePlannerOptions& o) { return MakeDeadlinePlanner(o); }));
  }
  r.push_back(Entry<DagPlanner>(
      "heft", "HEFT: one processor per task, upward rank, insertion-based earliest finish",
      "barbosa §2 ([20], Topcuoglu et al.)", [] { return MakeHeftPlanner(); }));
  r.push_back(Entry<DagPlanner>(
      "barbosa", "parallel-task list scheduling with capacity shares and b-level correction",
      "barbosa §4, Alg. 1 + 2", [] { return MakeBarbosaPlanner(); }));
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
    if (param->type == ParamType::kChoice && value != std::floor(value)) {
      std::vector<std::string> indexed;
      for (std::size_t i = 0; i < param->choices.size(); ++i) {
        indexed.push_back(absl::StrCat(i, " (", param->choices[i], ")"));
      }
      return absl::InvalidArgumentError(absl::StrFormat("%s.params.%s must be one of %s, got %g",
                                                        field, key, absl::StrJoin(indexed, ", "),
                                                        value));
    }
    if (param->type != ParamType::kReal && value != std::floor(value)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.params.%s must be %s, got %g", field, key,
                          param->type == ParamType::kFlag ? "0 or 1" : "a whole number", value));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<OnlinePolicy>> MakePolicy(std::string_view name,
                                                         const AlgorithmParams& params) {
  if (auto status = CheckAlgorithm("policy", name, AlgorithmKind::kPolicy, params); !status.ok()) {
    return status;
  }
  const AlgorithmInfo& info = *FindAlgorithm(name);
  return info.make_policy(params);
}

absl::StatusOr<std::unique_ptr<OfflinePlanner>> MakeOfflinePlanner(std::string_view name,
                                                                   const AlgorithmParams& params) {
  if (auto status = CheckAlgorithm("algorithm", name, AlgorithmKind::kPlanner, params);
      !status.ok()) {
    return status;
  }
  const AlgorithmInfo& info = *FindAlgorithm(name);
  return info.make_offline_planner(params);
}

absl::StatusOr<std::unique_ptr<DagPlanner>> MakeDagPlanner(std::string_view name,
                                                           const AlgorithmParams& params) {
  if (auto status = CheckAlgorithm("algorithm", name, AlgorithmKind::kDagPlanner, params);
      !status.ok()) {
    return status;
  }
  const AlgorithmInfo& info = *FindAlgorithm(name);
  return info.make_dag_planner(params);
}

}  // namespace resched
