#include "core/dag/dag_planner.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/dag/barbosa.h"
#include "core/dag/dag_graph.h"
#include "core/dag/heft.h"

namespace resched {
namespace {

int ResolveQ(int own_q, const DagPlanningInput& input) {
  return own_q > 0 ? own_q : input.historical_q;
}

// The widest allocation `source` can ever choose, so width tables stop there.
int WidestFor(AllocationSource source, int p, int q) {
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
}

// Planners that answer a deadline query with their turnaround plan.
class TurnaroundPlanner : public DagPlanner {
 public:
  absl::StatusOr<DeadlineAnswer> AnswerDeadline(const DagPlanningInput& input,
                                                std::optional<Time> deadline) const final {
    absl::StatusOr<DagPlan> plan = Plan(input);
    if (!plan.ok()) return plan.status();
    DeadlineAnswer answer;
    answer.feasible = !deadline || plan->completion <= *deadline;
    if (!deadline || !answer.feasible) answer.tightest = plan->completion;
    if (answer.feasible) answer.plan = *std::move(plan);
    return answer;
  }
};

class CpaPlanner final : public TurnaroundPlanner {
 public:
  explicit CpaPlanner(CpaOptions cpa) : cpa_(cpa) {}

  absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const override {
    const int p = input.timeline->capacity();
    absl::StatusOr<DagGraph> g = BuildDagGraph(*input.dag, p, p);
    if (!g.ok()) return g.status();
    return PlanCpa(*g, *input.timeline, input.release, cpa_, input.control);
  }

 private:
  CpaOptions cpa_;
};

class ResschedPlanner final : public TurnaroundPlanner {
 public:
  explicit ResschedPlanner(ResschedOptions options) : options_(options) {}

  absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const override {
    ResschedOptions o = options_;
    o.q = ResolveQ(o.q, input);
    const int p = input.timeline->capacity();
    const int q = EffectiveQ(p, o.q);
    absl::StatusOr<DagGraph> g = BuildDagGraph(
        *input.dag, p, std::max(WidestFor(o.bottom_level, p, q), WidestFor(o.bound, p, q)));
    if (!g.ok()) return g.status();
    return PlanRessched(*g, *input.timeline, input.release, o, input.control);
  }

 private:
  ResschedOptions options_;
};

class DeadlinePlanner final : public DagPlanner {
 public:
  DeadlinePlanner(ResschedDlOptions options, Duration resolution)
      : options_(options), resolution_(resolution) {}

  // The plan of the tightest deadline.
  absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const override {
    absl::StatusOr<DeadlineAnswer> tightest = AnswerDeadline(input, std::nullopt);
    if (!tightest.ok()) return tightest.status();
    return *std::move(tightest->plan);
  }

  absl::StatusOr<DeadlineAnswer> AnswerDeadline(const DagPlanningInput& input,
                                                std::optional<Time> deadline) const override {
    ResschedDlOptions o = options_;
    absl::StatusOr<DagGraph> g = Graph(input, o);
    if (!g.ok()) return g.status();
    DeadlineAnswer answer;
    if (deadline) {
      if (input.control.Stop()) return absl::CancelledError("the deadline planner was stopped");
      ++answer.probes;
      answer.plan = PlanByDeadline(*g, *input.timeline, input.release, *deadline, o, input.control);
      if (input.control.Stop()) return absl::CancelledError("the deadline planner was stopped");
      answer.feasible = answer.plan.has_value();
      if (answer.feasible) return answer;
    }
    absl::StatusOr<TightestDeadline> t =
        FindTightestDeadline(*g, *input.timeline, input.release, o, resolution_, input.control);
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

 private:
  // Resolves o.q against the input and builds the graph. DL_RC scans every width; the
  // tightest-deadline bracket of DL_BD_CPAR runs BL_CPAR_BD_CPAR, whose widths stay <= q.
  static absl::StatusOr<DagGraph> Graph(const DagPlanningInput& input, ResschedDlOptions& o) {
    o.q = ResolveQ(o.q, input);
    const int p = input.timeline->capacity();
    const bool cpar_bounded = !o.resource_conservative && o.bound == AllocationSource::kCpar;
    return BuildDagGraph(*input.dag, p, cpar_bounded ? EffectiveQ(p, o.q) : p);
  }

  ResschedDlOptions options_;
  Duration resolution_;
};

// HEFT and Barbosa map tasks onto processors of given speeds.
class MappingPlanner final : public TurnaroundPlanner {
 public:
  using MapFn = absl::StatusOr<DagPlan> (*)(const Dag&, const std::vector<double>&, Time,
                                            const Timeline*, const PlanControl&);
  explicit MappingPlanner(MapFn map) : map_(map) {}

  absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const override {
    const int p = input.timeline->capacity();
    if (absl::Status s = ValidateDag(*input.dag, p); !s.ok()) return s;
    const std::vector<double> speeds =
        input.speeds.empty() ? std::vector<double>(p, 1.0) : input.speeds;
    return map_(*input.dag, speeds, input.release, input.timeline, input.control);
  }

 private:
  MapFn map_;
};

absl::StatusOr<DagPlan> BarbosaWithDefaults(const Dag& dag, const std::vector<double>& speeds,
                                            Time release, const Timeline* timeline,
                                            const PlanControl& control) {
  BarbosaOptions options;
  options.control = control;
  return BarbosaPlan(dag, speeds, release, timeline, options);
}

}  // namespace

std::unique_ptr<DagPlanner> MakeCpaPlanner(CpaOptions cpa) {
  return std::make_unique<CpaPlanner>(cpa);
}

std::unique_ptr<DagPlanner> MakeResschedPlanner(ResschedOptions options) {
  return std::make_unique<ResschedPlanner>(options);
}

std::unique_ptr<DagPlanner> MakeDeadlinePlanner(ResschedDlOptions options, Duration resolution) {
  return std::make_unique<DeadlinePlanner>(options, resolution);
}

std::unique_ptr<DagPlanner> MakeHeftPlanner() { return std::make_unique<MappingPlanner>(HeftPlan); }

std::unique_ptr<DagPlanner> MakeBarbosaPlanner() {
  return std::make_unique<MappingPlanner>(BarbosaWithDefaults);
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
