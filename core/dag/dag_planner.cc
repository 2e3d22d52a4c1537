#include "core/dag/dag_planner.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/dag/barbosa.h"
#include "core/dag/dag_graph.h"
#include "core/dag/dag_planners.h"
#include "core/dag/heft.h"
#include "core/model/group_order.h"

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
// The input's groups and their free timelines must agree (the caller builds both).
absl::Status CheckGroups(const DagPlanningInput& input) {
  int total = 0;
  bool consistent = input.group_free.size() == input.groups.size();
  for (std::size_t g = 0; consistent && g < input.groups.size(); ++g) {
    consistent = input.group_free[g].capacity() == input.groups[g].count;
    total += input.groups[g].count;
  }
  if (!consistent || total != input.timeline->capacity()) {
    return absl::InternalError("a DAG planning input's groups do not match their timelines");
  }
  return absl::OkStatus();
}

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
  ResschedPlanner(ResschedOptions options, Duration history_window)
      : options_(options), history_window_(history_window) {}

  Duration HistoryWindow() const override { return history_window_; }

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
  Duration history_window_;
};

class DeadlinePlanner final : public DagPlanner {
 public:
  DeadlinePlanner(ResschedDlOptions options, Duration resolution, Duration history_window)
      : options_(options), resolution_(resolution), history_window_(history_window) {}

  Duration HistoryWindow() const override { return history_window_; }

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
      std::optional<DeadlinePlan> direct =
          PlanByDeadline(*g, *input.timeline, input.release, *deadline, o, input.control);
      if (input.control.Stop()) return absl::CancelledError("the deadline planner was stopped");
      if (direct) {
        answer.feasible = true;
        answer.plan = std::move(direct->plan);
        answer.fallback_tasks = direct->fallback_tasks;
        return answer;
      }
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
      answer.fallback_tasks = t->fallback_tasks;
      answer.from_tightest_search = deadline.has_value();
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
  Duration history_window_;
};

// HEFT and Barbosa map tasks onto processors of given speeds: the cluster's processors on one
// speed, the groups' on several.
class MappingPlanner final : public TurnaroundPlanner {
 public:
  using MapFn = absl::StatusOr<DagPlan> (*)(const Dag&, const std::vector<double>&, Time,
                                            const ProcessorFree&, const PlanControl&);
  explicit MappingPlanner(MapFn map) : map_(map) {}

  absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const override {
    if (input.groups.empty()) {
      const int p = input.timeline->capacity();
      if (absl::Status s = ValidateDag(*input.dag, p); !s.ok()) return s;
      const std::vector<double> speeds =
          input.speeds.empty() ? std::vector<double>(p, 1.0) : input.speeds;
      return map_(*input.dag, speeds, input.release, ProcessorFree(p, input.timeline),
                  input.control);
    }
    if (absl::Status s = CheckGroups(input); !s.ok()) return s;
    std::vector<const Timeline*> free;
    std::vector<double> speeds;
    for (std::size_t g = 0; g < input.groups.size(); ++g) {
      free.push_back(&input.group_free[g]);
      speeds.insert(speeds.end(), input.groups[g].count, input.groups[g].speed);
    }
    const ProcessorFree processors(std::move(free));
    if (absl::Status s = ValidateDag(*input.dag, processors.processors()); !s.ok()) return s;
    return map_(*input.dag, speeds, input.release, processors, input.control);
  }

 private:
  MapFn map_;
};

absl::StatusOr<DagPlan> HeftWithSpeeds(const Dag& dag, const std::vector<double>& speeds,
                                       Time release, const ProcessorFree& free,
                                       const PlanControl& control) {
  if (dag.tasks.empty()) return ValidateDag(dag, 1);  // names the empty DAG
  absl::StatusOr<TaskCosts> costs = CostsFromSpeeds(dag, speeds);
  if (!costs.ok()) return costs.status();
  return HeftPlanOn(dag, *costs, release, free, control);
}

absl::StatusOr<DagPlan> BarbosaWithDefaults(const Dag& dag, const std::vector<double>& speeds,
                                            Time release, const ProcessorFree& free,
                                            const PlanControl& control) {
  BarbosaOptions options;
  options.control = control;
  return BarbosaPlanOn(dag, speeds, release, free, options);
}

// The CPA-based planners on groups of several speeds: their allocations count processors of
// one speed, so the whole DAG is planned inside one group at a time, with every task's model
// at the group's speed (Barbosa & Monteiro §3's t / s) on what the group has free, and the
// group that ends the DAG earliest wins (ties: the slower group, keeping fast processors free).
// A historical q (Aida & Casanova §4.2) is the cluster's: each group gets its share of it,
// q * count / P.
class InOneGroup final : public DagPlanner {
 public:
  explicit InOneGroup(std::unique_ptr<DagPlanner> inner) : inner_(std::move(inner)) {}

  Duration HistoryWindow() const override { return inner_->HistoryWindow(); }

  absl::StatusOr<DagPlan> Plan(const DagPlanningInput& input) const override {
    if (input.groups.empty()) return inner_->Plan(input);
    if (absl::Status s = CheckGroups(input); !s.ok()) return s;
    std::optional<DagPlan> best;
    std::vector<std::pair<int, absl::Status>> failures;
    for (int g : GroupsSlowestFirst(input.groups)) {
      const GroupInput in(input, g);
      absl::StatusOr<DagPlan> plan = inner_->Plan(in.input);
      if (!plan.ok()) {
        if (plan.status().code() == absl::StatusCode::kCancelled) return plan.status();
        failures.emplace_back(g, plan.status());
        continue;
      }
      InGroup(*plan, g);
      if (!best || plan->completion < best->completion) best = *std::move(plan);
    }
    if (!best) return InNoGroup(input.groups, failures);
    return *std::move(best);
  }

  absl::StatusOr<DeadlineAnswer> AnswerDeadline(const DagPlanningInput& input,
                                                std::optional<Time> deadline) const override {
    if (input.groups.empty()) return inner_->AnswerDeadline(input, deadline);
    if (absl::Status s = CheckGroups(input); !s.ok()) return s;
    std::optional<DeadlineAnswer> best;
    int probes = 0;
    std::vector<std::pair<int, absl::Status>> failures;
    for (int g : GroupsSlowestFirst(input.groups)) {
      const GroupInput in(input, g);
      absl::StatusOr<DeadlineAnswer> answer = inner_->AnswerDeadline(in.input, deadline);
      if (!answer.ok()) {
        if (answer.status().code() == absl::StatusCode::kCancelled) return answer.status();
        failures.emplace_back(g, answer.status());
        continue;
      }
      probes += answer->probes;
      if (answer->plan) InGroup(*answer->plan, g);
      if (!best || Better(*answer, *best, deadline.has_value())) best = *std::move(answer);
    }
    if (!best) return InNoGroup(input.groups, failures);
    best->probes = probes;
    return *std::move(best);
  }

 private:
  // The planner's input inside group g: the DAG at the group's speed, the group's free
  // processors.
  struct GroupInput {
    GroupInput(const DagPlanningInput& whole, int g) : dag(*whole.dag) {
      const ProcessorGroup& group = whole.groups[g];
      for (Task& task : dag.tasks) task.model = task.model.OnSpeed(group.speed);
      const int total = whole.timeline->capacity();
      int q = 0;  // 0: the planner's default, the group's whole capacity
      if (whole.historical_q > 0) {
        q = std::clamp(static_cast<int>(std::lround(static_cast<double>(whole.historical_q) *
                                                    group.count / total)),
                       1, group.count);
      }
      input.dag = &dag;
      input.timeline = &whole.group_free[g];
      input.release = whole.release;
      input.historical_q = q;
      input.control = whole.control;
    }
    GroupInput(const GroupInput&) = delete;  // input points into dag
    GroupInput& operator=(const GroupInput&) = delete;
    Dag dag;
    DagPlanningInput input;
  };

  // A feasible answer beats an infeasible one; between feasible ones the earlier plan (the
  // tighter deadline without K); between infeasible ones the tighter deadline.
  static bool Better(const DeadlineAnswer& a, const DeadlineAnswer& b, bool with_deadline) {
    if (a.feasible != b.feasible) return a.feasible;
    if (a.feasible && with_deadline) return a.plan->completion < b.plan->completion;
    return a.tightest.value_or(kTimeMax) < b.tightest.value_or(kTimeMax);
  }

  static void InGroup(DagPlan& plan, int g) {
    for (TaskReservation& t : plan.tasks) t.group = g;
  }

  // Every group failed: the code of the largest group's failure (the one most likely to fit),
  // and every group's reason.
  static absl::Status InNoGroup(const std::vector<ProcessorGroup>& groups,
                                const std::vector<std::pair<int, absl::Status>>& failures) {
    std::string reasons;
    absl::StatusCode code = absl::StatusCode::kInternal;
    int largest = -1;
    for (const auto& [g, status] : failures) {
      absl::StrAppend(&reasons, reasons.empty() ? "" : "; ", "group ", g, " ('", groups[g].name,
                      "', ", groups[g].count, " processors): ", status.message());
      if (largest < 0 || groups[g].count > groups[largest].count) {
        largest = g;
        code = status.code();
      }
    }
    return absl::Status(code, absl::StrCat("the DAG is planned inside one processor group on "
                                           "groups of different speeds, and no group can run "
                                           "it: ",
                                           reasons));
  }

  std::unique_ptr<DagPlanner> inner_;
};

}  // namespace

std::unique_ptr<DagPlanner> MakeCpaPlanner(CpaOptions cpa) {
  return std::make_unique<InOneGroup>(std::make_unique<CpaPlanner>(cpa));
}

std::unique_ptr<DagPlanner> MakeResschedPlanner(const ResschedPlannerOptions& options) {
  return std::make_unique<InOneGroup>(std::make_unique<ResschedPlanner>(
      options.ressched, CeilMicros(options.q_window_hours * 3600)));
}

std::unique_ptr<DagPlanner> MakeDeadlinePlanner(const DeadlinePlannerOptions& options) {
  return std::make_unique<InOneGroup>(std::make_unique<DeadlinePlanner>(
      options.resscheddl, std::max<Duration>(1, CeilMicros(options.resolution_s)),
      CeilMicros(options.q_window_hours * 3600)));
}

std::unique_ptr<DagPlanner> MakeHeftPlanner() {
  return std::make_unique<MappingPlanner>(HeftWithSpeeds);
}

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
