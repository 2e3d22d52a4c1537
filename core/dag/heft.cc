// HEFT (Topcuoglu, Hariri & Wu 2002, §4.1); choices and deviations are listed in heft.h.
#include "core/dag/heft.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/strings/str_format.h"

namespace resched {
namespace {

struct Interval {
  Time start = 0;
  Time end = 0;
};

// Earliest s >= ready such that [s, s + d) overlaps no interval of `busy` (sorted, disjoint) and
// processor j is free over the whole window.
std::optional<Time> EarliestSlot(const std::vector<Interval>& busy, int j, Time ready, Duration d,
                                 const ProcessorFree& free) {
  Time s = ready;
  while (true) {
    const auto t = free.EarliestFree(j, s, d);
    if (!t) return std::nullopt;
    s = *t;
    // Disjoint and sorted by start, so also sorted by end: the first interval ending after s is the
    // only one that can overlap a window starting at s first.
    const auto it = std::partition_point(busy.begin(), busy.end(),
                                         [&](const Interval& b) { return b.end <= s; });
    if (it == busy.end() || it->start >= s + d) return s;
    s = it->end;  // strictly later: the loop ends
  }
}

absl::Status CheckCosts(const Dag& dag, const TaskCosts& costs) {
  if (costs.size() != dag.tasks.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("costs has %d rows for %d tasks", costs.size(), dag.tasks.size()));
  }
  if (costs.empty() || costs.front().empty()) {
    return absl::InvalidArgumentError("costs: no processor");
  }
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (costs[i].size() != costs.front().size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "costs[%d] has %d processors, costs[0] has %d", i, costs[i].size(), costs[0].size()));
    }
    for (Duration c : costs[i]) {
      if (c < 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("costs[%d] holds a negative cost %d", i, c));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<double> ProcessorSpeeds(const ClusterSpec& spec) {
  std::vector<double> speeds;
  for (const ProcessorGroup& g : spec.groups) speeds.insert(speeds.end(), g.count, g.speed);
  return speeds;
}

absl::StatusOr<TaskCosts> CostsFromSpeeds(const Dag& dag, const std::vector<double>& speeds) {
  if (speeds.empty()) return absl::InvalidArgumentError("speeds: no processor");
  for (std::size_t j = 0; j < speeds.size(); ++j) {
    if (!(speeds[j] > 0) || !std::isfinite(speeds[j])) {
      return absl::InvalidArgumentError(
          absl::StrFormat("speeds[%d] must be > 0, got %g", j, speeds[j]));
    }
  }
  TaskCosts costs(dag.tasks.size(), std::vector<Duration>(speeds.size()));
  for (std::size_t i = 0; i < dag.tasks.size(); ++i) {
    // HEFT runs every task on one processor, so a task must allow that width: stretching a
    // rigid k > 1 task (or one with k_min > 1) onto one processor would book less capacity than
    // it needs.
    const RuntimeModel& model = dag.tasks[i].model;
    const std::vector<int> widths = model.Widths(static_cast<int>(speeds.size()));
    if (widths.empty() || widths.front() != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dag.tasks[%d] ('%s'): heft runs every task on one processor, and this %s task does "
          "not allow width 1 (smallest allowed width: %d); choose a parallel-task planner",
          i, dag.tasks[i].name, model.KindName(), widths.empty() ? 0 : widths.front()));
    }
    const Duration seq = model.TimeOn(1);
    for (std::size_t j = 0; j < speeds.size(); ++j) costs[i][j] = ScaleDuration(seq, speeds[j]);
  }
  return costs;
}

std::vector<double> UpwardRanks(const Dag& dag, const TaskCosts& costs) {
  const int n = static_cast<int>(dag.tasks.size());
  std::vector<double> rank(n, 0);
  const auto order = TopologicalOrder(dag);
  if (!order.ok()) return rank;
  std::vector<std::vector<const Edge*>> succs(n);
  for (const Edge& e : dag.edges) succs[e.from].push_back(&e);
  // Not std::ranges::reverse_view: clang-tidy's clang 14 cannot parse libstdc++ 12's ranges.
  for (auto it = order->rbegin(); it != order->rend(); ++it) {  // NOLINT(modernize-loop-convert)
    const int i = *it;
    double mean = 0;
    for (Duration c : costs[i]) mean += static_cast<double>(c);
    mean /= static_cast<double>(costs[i].size());
    double tail = 0;
    for (const Edge* e : succs[i]) {
      tail = std::max(tail, static_cast<double>(e->transfer) + rank[e->to]);
    }
    rank[i] = mean + tail;
  }
  return rank;
}

absl::StatusOr<DagPlan> HeftPlan(const Dag& dag, const std::vector<double>& speeds, Time release,
                                 const Timeline* timeline, const PlanControl& control) {
  if (dag.tasks.empty()) return ValidateDag(dag, 1);
  auto costs = CostsFromSpeeds(dag, speeds);
  if (!costs.ok()) return costs.status();
  return HeftPlanWithCosts(dag, *costs, release, timeline, control);
}

absl::StatusOr<DagPlan> HeftPlanWithCosts(const Dag& dag, const TaskCosts& costs, Time release,
                                          const Timeline* timeline, const PlanControl& control) {
  if (dag.tasks.empty()) return ValidateDag(dag, 1);  // names the empty DAG
  if (auto s = CheckCosts(dag, costs); !s.ok()) return s;
  const int m = static_cast<int>(costs.front().size());
  if (timeline != nullptr && timeline->capacity() != m) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%d processor speeds for a timeline of %d processors", m, timeline->capacity()));
  }
  return HeftPlanOn(dag, costs, release, ProcessorFree(m, timeline), control);
}

absl::StatusOr<DagPlan> HeftPlanOn(const Dag& dag, const TaskCosts& costs, Time release,
                                   const ProcessorFree& free, const PlanControl& control) {
  if (dag.tasks.empty()) return ValidateDag(dag, 1);  // names the empty DAG
  if (auto s = CheckCosts(dag, costs); !s.ok()) return s;
  const int n = static_cast<int>(dag.tasks.size());
  const int m = static_cast<int>(costs.front().size());
  if (free.processors() != m) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d processor costs for %d processors", m, free.processors()));
  }
  if (auto s = ValidateDag(dag, m); !s.ok()) return s;
  const auto order = TopologicalOrder(dag);
  if (!order.ok()) return order.status();

  // Priority: decreasing rank_u, ties in topological order.
  const std::vector<double> rank = UpwardRanks(dag, costs);
  std::vector<int> position(n);
  for (int p = 0; p < n; ++p) position[(*order)[p]] = p;
  std::vector<int> priority(*order);
  std::stable_sort(priority.begin(), priority.end(), [&](int a, int b) {
    if (rank[a] != rank[b]) return rank[a] > rank[b];
    return position[a] < position[b];
  });

  std::vector<std::vector<const Edge*>> preds(n);
  for (const Edge& e : dag.edges) preds[e.to].push_back(&e);
  std::vector<std::vector<Interval>> busy(m);
  std::vector<int> proc(n, -1);
  DagPlan plan;
  plan.tasks.resize(n);
  for (int i : priority) {
    if (control.Stop()) return absl::CancelledError("HEFT was stopped");
    int best_j = -1;
    Time best_start = 0;
    Time best_end = kTimeMax;
    for (int j = 0; j < m; ++j) {
      Time ready = release;
      for (const Edge* e : preds[i]) {
        const TaskReservation& p = plan.tasks[e->from];
        ready = std::max(ready, p.end + (proc[e->from] == j ? 0 : e->transfer));
      }
      const auto s = EarliestSlot(busy[j], j, ready, costs[i][j], free);
      if (s && *s + costs[i][j] < best_end) {
        best_j = j;
        best_start = *s;
        best_end = *s + costs[i][j];
      }
    }
    if (best_j < 0) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("task '%s' fits on no processor: the cluster's "
                          "reservations never leave one free",
                          dag.tasks[i].name));
    }
    proc[i] = best_j;
    plan.tasks[i] = TaskReservation{1, best_start, best_end, {best_j}};
    if (free.groups() > 1) plan.tasks[i].group = free.group_of(best_j);
    if (best_end > best_start) {  // an empty interval blocks nothing
      auto& b = busy[best_j];
      const auto at = std::lower_bound(b.begin(), b.end(), best_start,
                                       [](const Interval& x, Time t) { return x.start < t; });
      b.insert(at, Interval{best_start, best_end});
    }
  }
  Summarize(plan);
  return plan;
}

ScheduleToValidate MappedDagPlanToValidate(const Dag& dag, const DagPlan& plan,
                                           const Timeline& timeline, Time release,
                                           bool check_durations) {
  ScheduleToValidate s = DagPlanToValidate(dag, plan, timeline, release);
  if (!check_durations) {
    for (ScheduledItem& item : s.items) item.model = nullptr;
  }
  for (PrecedenceConstraint& p : s.precedences) {
    if (p.before < 0 || p.after < 0 || p.before >= static_cast<int>(plan.tasks.size()) ||
        p.after >= static_cast<int>(plan.tasks.size())) {
      continue;  // the validator reports it
    }
    const auto& a = plan.tasks[p.before].processors;
    const auto& b = plan.tasks[p.after].processors;
    if (a.size() == 1 && a == b) p.delay = 0;
  }
  return s;
}

absl::Status ValidateProcessorMapping(const std::vector<const DagPlan*>& plans, int processors,
                                      const Timeline* timeline) {
  return ValidateProcessorMapping(plans, ProcessorFree(processors, timeline));
}

absl::Status ValidateProcessorMapping(const std::vector<const DagPlan*>& plans,
                                      const ProcessorFree& free) {
  const int processors = free.processors();
  struct Use {
    Time start;
    Time end;
    int plan;
    int task;
  };
  std::vector<std::vector<Use>> uses(std::max(processors, 0));
  for (std::size_t p = 0; p < plans.size(); ++p) {
    for (std::size_t i = 0; i < plans[p]->tasks.size(); ++i) {
      const TaskReservation& t = plans[p]->tasks[i];
      if (static_cast<int>(t.processors.size()) != t.k) {
        return absl::InternalError(absl::StrFormat("plan %d task %d: k=%d but %d processor ids", p,
                                                   i, t.k, t.processors.size()));
      }
      for (std::size_t x = 0; x < t.processors.size(); ++x) {
        const int j = t.processors[x];
        if (j < 0 || j >= processors) {
          return absl::InternalError(absl::StrFormat(
              "plan %d task %d: processor %d outside [0, %d)", p, i, j, processors));
        }
        if (x > 0 && t.processors[x - 1] >= j) {
          return absl::InternalError(
              absl::StrFormat("plan %d task %d: processor ids not ascending and distinct", p, i));
        }
        if (!free.FreeOver(j, t.start, t.end)) {
          return absl::InternalError(absl::StrFormat(
              "plan %d task %d: processor %d over [%d, %d) but its group has only %d free there", p,
              i, j, t.start, t.end, free.timeline(free.group_of(j))->MinFree(t.start, t.end)));
        }
        const int group = free.groups() > 1 ? free.group_of(j) : -1;
        if (group != t.group) {
          return absl::InternalError(
              absl::StrFormat("plan %d task %d: processor %d is in group %d, the task says %d", p,
                              i, j, free.group_of(j), t.group));
        }
        if (t.start < t.end) {
          uses[j].push_back({t.start, t.end, static_cast<int>(p), static_cast<int>(i)});
        }
      }
    }
  }
  for (int j = 0; j < processors; ++j) {
    auto& u = uses[j];
    std::sort(u.begin(), u.end(), [](const Use& a, const Use& b) { return a.start < b.start; });
    for (std::size_t x = 1; x < u.size(); ++x) {
      if (u[x].start < u[x - 1].end) {
        return absl::InternalError(
            absl::StrFormat("processor %d: plan %d task %d [%d, %d) overlaps plan %d task %d "
                            "[%d, %d)",
                            j, u[x - 1].plan, u[x - 1].task, u[x - 1].start, u[x - 1].end,
                            u[x].plan, u[x].task, u[x].start, u[x].end));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace resched
