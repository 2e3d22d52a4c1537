#include "core/dag/dag_planner.h"

#include <algorithm>
#include <cmath>

#include "core/dag/barbosa.h"
#include "core/dag/cpa.h"
#include "core/dag/dag_graph.h"
#include "core/dag/heft.h"
#include "core/dag/ressched.h"
#include "core/dag/resscheddl.h"

namespace resched {
namespace {

CpaOptions CpaFor(std::string_view name, const AlgorithmParams& params) {
  return CpaOptions{.level_bound = ParamValue(name, params, "level_bound") != 0};
}

int QFor(std::string_view name, const AlgorithmParams& params, const DagPlanningInput& input) {
  const double q = ParamValue(name, params, "q");
  return q > 0 ? static_cast<int>(q) : input.historical_q;
}

// The widest allocation a planner can ever choose, so width tables stop there.
int WidestNeeded(std::string_view name, int p, int q) {
  auto widest = [&](AllocationSource source) {
    switch (source) {
      case AllocationSource::kOne:
        return 1;
      case AllocationSource::kHalf:
        return std::max(1, p / 2);
      case AllocationSource::kCpar:
        return q;
      case AllocationSource::kAll:
      case AllocationSource::kCpa:
        return p;
    }
    return p;
  };
  if (absl::StatusOr<ResschedOptions> o = ParseResschedName(name); o.ok()) {
    return std::max(widest(o->bottom_level), widest(o->bound));
  }
  // DL_RC scans every width; the tightest-deadline bracket runs BL_CPAR_BD_CPAR (q <= this).
  if (name == "dl_bd_cpar") return q;
  return p;
}

absl::StatusOr<DagGraph> Graph(std::string_view name, const AlgorithmParams& params,
                               const DagPlanningInput& input) {
  if (absl::Status s = CheckAlgorithm("algorithm", name, AlgorithmKind::kDagPlanner, params);
      !s.ok()) {
    return s;
  }
  const int p = input.timeline->capacity();
  const int q = QFor(name, params, input);
  return BuildDagGraph(*input.dag, p, WidestNeeded(name, p, EffectiveQ(p, q)));
}

absl::StatusOr<ResschedDlOptions> DeadlineOptions(std::string_view name,
                                                  const AlgorithmParams& params,
                                                  const DagPlanningInput& input) {
  absl::StatusOr<ResschedDlOptions> o = ParseResschedDlName(name);
  if (!o.ok()) return o.status();
  o->q = QFor(name, params, input);
  o->lambda = ParamValue(name, params, "lambda");
  o->cpa = CpaFor(name, params);
  return o;
}

Duration Resolution(std::string_view name, const AlgorithmParams& params) {
  return std::max<Duration>(1, CeilMicros(ParamValue(name, params, "resolution_s")));
}

}  // namespace

bool IsDeadlinePlanner(std::string_view name) { return name.starts_with("dl_"); }

absl::StatusOr<DagPlan> PlanDag(std::string_view name, const AlgorithmParams& params,
                                const DagPlanningInput& input) {
  if (name == "heft" || name == "barbosa") {
    if (absl::Status s = CheckAlgorithm("algorithm", name, AlgorithmKind::kDagPlanner, params);
        !s.ok()) {
      return s;
    }
    const int p = input.timeline->capacity();
    if (absl::Status s = ValidateDag(*input.dag, p); !s.ok()) return s;
    const std::vector<double> speeds =
        input.speeds.empty() ? std::vector<double>(p, 1.0) : input.speeds;
    return name == "heft" ? HeftPlan(*input.dag, speeds, input.release, input.timeline)
                          : BarbosaPlan(*input.dag, speeds, input.release, input.timeline);
  }
  absl::StatusOr<DagGraph> g = Graph(name, params, input);
  if (!g.ok()) return g.status();
  if (name == "cpa") return PlanCpa(*g, *input.timeline, input.release, CpaFor(name, params));
  if (IsDeadlinePlanner(name)) {
    absl::StatusOr<ResschedDlOptions> o = DeadlineOptions(name, params, input);
    if (!o.ok()) return o.status();
    absl::StatusOr<TightestDeadline> t =
        FindTightestDeadline(*g, *input.timeline, input.release, *o, Resolution(name, params));
    if (!t.ok()) return t.status();
    return std::move(t->plan);
  }
  absl::StatusOr<ResschedOptions> o = ParseResschedName(name);
  if (!o.ok()) return o.status();
  o->q = QFor(name, params, input);
  o->cpa = CpaFor(name, params);
  return PlanRessched(*g, *input.timeline, input.release, *o);
}

absl::StatusOr<DeadlineAnswer> AnswerDeadline(std::string_view name, const AlgorithmParams& params,
                                              const DagPlanningInput& input,
                                              std::optional<Time> deadline) {
  DeadlineAnswer answer;
  if (!IsDeadlinePlanner(name)) {
    absl::StatusOr<DagPlan> plan = PlanDag(name, params, input);
    if (!plan.ok()) return plan.status();
    answer.feasible = !deadline || plan->completion <= *deadline;
    if (!deadline || !answer.feasible) answer.tightest = plan->completion;
    if (answer.feasible) answer.plan = *std::move(plan);
    return answer;
  }
  absl::StatusOr<DagGraph> g = Graph(name, params, input);
  if (!g.ok()) return g.status();
  absl::StatusOr<ResschedDlOptions> o = DeadlineOptions(name, params, input);
  if (!o.ok()) return o.status();
  if (deadline) {
    ++answer.probes;
    answer.plan = PlanByDeadline(*g, *input.timeline, input.release, *deadline, *o);
    answer.feasible = answer.plan.has_value();
    if (answer.feasible) return answer;
  }
  absl::StatusOr<TightestDeadline> t =
      FindTightestDeadline(*g, *input.timeline, input.release, *o, Resolution(name, params));
  if (!t.ok()) return t.status();
  answer.probes += t->probes;
  answer.tightest = t->deadline;
  // The heuristics are not monotone in K: a plan for a tighter deadline also meets K.
  if (!deadline || t->deadline <= *deadline) {
    answer.feasible = true;
    answer.plan = std::move(t->plan);
  }
  return answer;
}

int AverageFree(const Timeline& timeline, Time from, Time to) {
  const int p = timeline.capacity();
  if (from >= to) return p;
  double sum = 0;
  timeline.ForEachStep(from, to, [&](const TimelineStep& s) {
    sum += static_cast<double>(std::max(0, s.free)) * static_cast<double>(s.end - s.start);
  });
  const int q = static_cast<int>(std::lround(sum / static_cast<double>(to - from)));
  return std::clamp(q, 1, p);
}

}  // namespace resched
