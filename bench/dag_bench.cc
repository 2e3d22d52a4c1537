// ReserveDAG's planners on a busy cluster: a 100-task DAG (daggen defaults
// of Aida & Casanova Table 1, n = 100) on a timeline holding 10,000 reservations, planned by
// name exactly as the server does (core/dag/dag_planner.h, without gRPC).
//   BM_PlanDag/<name>: one turnaround plan (target: <= 5 ms median for bl_cpar_bd_cpar).
//   BM_TightestDeadline/<name>: the tightest-deadline search (target: <= 100 ms).
//   BM_TimelineCopy: the snapshot every plan starts from, as a baseline in the same run.
//   BM_PlanDagOnGroups/<name>: the same on two processor groups of different speeds (864 at
//   speed 1, 288 at speed 2), every reservation a hold of any group (the split's worst case);
//   BM_SplitFreeAmongGroups: what each group has free, built once per plan (group_free.h).
// Medians: run with --benchmark_repetitions=10 --benchmark_report_aggregates_only=true.
#include <benchmark/benchmark.h>

#include <optional>
#include <random>

#include "core/dag/cpa.h"
#include "core/dag/dag_planner.h"
#include "core/dag/group_free.h"
#include "core/registry/registry.h"
#include "core/workload/dag_generator.h"

namespace resched {
namespace {

constexpr int kProcessors = 1152;  // SDSC-BLUE's size, the log of Table 6
constexpr int kReservations = 10'000;
constexpr Duration kMinute = 60 * kMicrosPerSecond;
constexpr Duration kDay = 24 * 60 * kMinute;

// 10k reservations over 200 days: starts uniform, lengths 10 min to 12 h, widths 1 to 128,
// about 70% of the machine booked on average (the utilization of Table 2's logs); one that does
// not fit is redrawn, so the timeline ends up with exactly 10k.
const Timeline& BusyTimeline() {
  static const Timeline timeline = [] {
    Timeline t(kProcessors);
    std::mt19937_64 rng(2008);
    std::uniform_int_distribution<Time> start(0, 200 * kDay);
    std::uniform_int_distribution<Duration> length(10 * kMinute, 12 * 60 * kMinute);
    std::uniform_int_distribution<int> width(1, 128);
    while (t.reservation_count() < kReservations) {
      const Time s = start(rng);
      (void)t.Add(s, s + length(rng), width(rng));
    }
    return t;
  }();
  return timeline;
}

const Dag& HundredTasks() {
  static const Dag dag = [] {
    DagGeneratorOptions options;
    options.n = 100;
    options.seed = 7;
    return GenerateDag(options)->dag;
  }();
  return dag;
}

DagPlanningInput Input() {
  const Timeline& t = BusyTimeline();
  // The release sits in the middle, with the paper's week of history for q.
  const Time release = 100 * kDay;
  return DagPlanningInput{
      &HundredTasks(), &t, release, AverageFree(t, release - 7 * kDay, release), {}, {}};
}

// The registry's planner `name`; null, with the benchmark marked skipped, if it cannot be built.
std::unique_ptr<DagPlanner> PlannerOrSkip(benchmark::State& state, const char* name,
                                          const AlgorithmParams& params = {}) {
  absl::StatusOr<std::unique_ptr<DagPlanner>> planner = MakeDagPlanner(name, params);
  if (!planner.ok()) {
    state.SkipWithError(std::string(planner.status().message()).c_str());
    return nullptr;
  }
  return *std::move(planner);
}

// Plans `input` with `name` once per iteration; the last plan, or nullopt when skipped.
std::optional<DagPlan> PlanEachIteration(benchmark::State& state, const char* name,
                                         const DagPlanningInput& input) {
  const std::unique_ptr<DagPlanner> planner = PlannerOrSkip(state, name);
  if (planner == nullptr) return std::nullopt;
  std::optional<DagPlan> last;
  for (auto _ : state) {
    absl::StatusOr<DagPlan> plan = planner->Plan(input);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return std::nullopt;
    }
    last = *std::move(plan);
    benchmark::DoNotOptimize(last->completion);
  }
  if (last) {
    state.counters["turnaround_h"] = static_cast<double>(last->completion - input.release) / 3600e6;
  }
  return last;
}

void BM_PlanDag(benchmark::State& state, const char* name) {
  const DagPlanningInput input = Input();
  if (PlanEachIteration(state, name, input)) state.counters["q"] = input.historical_q;
}

void BM_TightestDeadline(benchmark::State& state, const char* name,
                         const AlgorithmParams& params = {}) {
  const DagPlanningInput input = Input();
  const std::unique_ptr<DagPlanner> planner = PlannerOrSkip(state, name, params);
  if (planner == nullptr) return;
  int probes = 0;
  Time tightest = 0;
  for (auto _ : state) {
    absl::StatusOr<DeadlineAnswer> answer = planner->AnswerDeadline(input, std::nullopt);
    if (!answer.ok()) {
      state.SkipWithError(std::string(answer.status().message()).c_str());
      return;
    }
    probes = answer->probes;
    tightest = *answer->tightest;
  }
  state.counters["probes"] = probes;
  state.counters["deadline_h"] = static_cast<double>(tightest - input.release) / 3600e6;
}

const std::vector<ProcessorGroup> kTwoSpeeds = {{"slow", 864, 1.0}, {"fast", 288, 2.0}};

std::vector<Timeline> SplitBusyTimeline(Time from) {
  std::vector<Timeline> own;
  own.reserve(kTwoSpeeds.size());
  for (const ProcessorGroup& g : kTwoSpeeds) own.emplace_back(g.count);
  return SplitFreeAmongGroups(BusyTimeline(), std::move(own), kTwoSpeeds, from);
}

void BM_SplitFreeAmongGroups(benchmark::State& state) {
  const Time release = 100 * kDay;
  for (auto _ : state) {
    std::vector<Timeline> free = SplitBusyTimeline(release);
    benchmark::DoNotOptimize(free);
  }
}

void BM_PlanDagOnGroups(benchmark::State& state, const char* name) {
  DagPlanningInput input = Input();
  input.groups = kTwoSpeeds;
  input.group_free = SplitBusyTimeline(input.release);
  if (const std::optional<DagPlan> plan = PlanEachIteration(state, name, input)) {
    int fast_tasks = 0;
    for (const TaskReservation& t : plan->tasks) fast_tasks += t.group == 1 ? 1 : 0;
    state.counters["fast_tasks"] = fast_tasks;
  }
}

void BM_CpaAllocation(benchmark::State& state) {
  const DagPlanningInput input = Input();
  const absl::StatusOr<DagGraph> g = BuildDagGraph(HundredTasks(), kProcessors);
  const int q = state.range(0) == 0 ? input.historical_q : kProcessors;
  int total = 0;
  for (auto _ : state) {
    const std::vector<int> widths = CpaAllocation(*g, q);
    total = 0;
    for (int w : widths) total += w;
    benchmark::DoNotOptimize(total);
  }
  state.counters["q"] = q;
  state.counters["sum_widths"] = total;
}

void BM_TimelineCopy(benchmark::State& state) {
  const Timeline& t = BusyTimeline();
  for (auto _ : state) {
    Timeline copy = t.Copy();
    benchmark::DoNotOptimize(copy);
  }
  state.counters["breakpoints"] = static_cast<double>(t.breakpoint_count());
}

BENCHMARK(BM_TimelineCopy)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CpaAllocation)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, cpa, "cpa")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, bl_cpar_bd_cpar, "bl_cpar_bd_cpar")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, bl_cpa_bd_cpa, "bl_cpa_bd_cpa")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, bl_cpar_bd_half, "bl_cpar_bd_half")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, bl_cpar_bd_all, "bl_cpar_bd_all")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, heft, "heft")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDag, barbosa, "barbosa")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SplitFreeAmongGroups)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDagOnGroups, bl_cpar_bd_cpar, "bl_cpar_bd_cpar")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDagOnGroups, heft, "heft")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanDagOnGroups, barbosa, "barbosa")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TightestDeadline, dl_rc_cpar, "dl_rc_cpar")->Unit(benchmark::kMillisecond);
// A/B: the CPA guide re-run on the remaining tasks (the default, §5.2.2) against the whole DAG's
// CPA widths kept.
BENCHMARK_CAPTURE(BM_TightestDeadline, dl_rc_cpar_whole_dag_widths, "dl_rc_cpar",
                  AlgorithmParams{{"cpa_reallocate", 0}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TightestDeadline, dl_bd_cpar, "dl_bd_cpar")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TightestDeadline, dl_bd_all, "dl_bd_all")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace resched

BENCHMARK_MAIN();
