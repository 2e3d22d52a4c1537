// The offline planners on Replan's target size: 400 queued jobs on 200 processors,
// with 1,000 reservations on the timeline, or none (the paper's empty machine: the baseline in
// the same run). Jobs as dutot §4.1's uniform workload: sequential times uniform in 1..10
// (minutes here), Amdahl speedups with a serial fraction uniform in [0, 0.3], weights 1..10.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/offline/minsum_lower_bound.h"
#include "core/offline/planners.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"

namespace {

using resched::Duration;
using resched::kMicrosPerSecond;

resched::OfflineProblem Problem(int reservations) {
  constexpr int kJobs = 400;
  constexpr int kProcessors = 200;
  std::mt19937_64 rng(42);
  resched::OfflineProblem problem;
  problem.free = resched::Timeline(kProcessors);
  for (int i = 0; i < kJobs; ++i) {
    const Duration t1 = (1 + static_cast<Duration>(rng() % 10)) * 60 * kMicrosPerSecond;
    const double alpha = static_cast<double>(rng() % 31) / 100;
    problem.jobs.push_back({absl::StrCat("j", i),
                            resched::RuntimeModel(resched::AmdahlModel{t1, alpha, 1, 0}),
                            1 + static_cast<double>(rng() % 10)});
  }
  for (int r = 0; r < reservations; ++r) {
    const resched::Time start = static_cast<resched::Time>(rng() % (24 * 3600)) * kMicrosPerSecond;
    const Duration length = (60 + static_cast<Duration>(rng() % 3600)) * kMicrosPerSecond;
    (void)problem.free.Add(start, start + length, 1 + static_cast<int>(rng() % 10));
  }
  return problem;
}

template <class Plan>
void Run(benchmark::State& state, Plan plan) {
  const resched::OfflineProblem problem = Problem(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(plan(problem));
}

void BM_Mrt(benchmark::State& state) {
  const auto planner = resched::MakeMrtPlanner({.epsilon = 1e-3});
  Run(state, [&](const resched::OfflineProblem& p) { return planner->Plan(p, {}); });
}

void BM_Bicriteria(benchmark::State& state) {
  const auto planner = resched::MakeBicriteriaPlanner({.epsilon = 1e-3, .shuffles = 10, .seed = 1});
  Run(state, [&](const resched::OfflineProblem& p) { return planner->Plan(p, {}); });
}

void BM_ListSaf(benchmark::State& state) {
  const auto planner = resched::MakeListPlanner(resched::ListOrder::kSaf, {.epsilon = 1e-3});
  Run(state, [&](const resched::OfflineProblem& p) { return planner->Plan(p, {}); });
}

void BM_WeightedCompletionLowerBound(benchmark::State& state) {
  Run(state, [](const resched::OfflineProblem& p) {
    return resched::WeightedCompletionLowerBound(p, {});
  });
}

// chrétien §5.3's larger machine: 64 jobs on 128 PEs, each asking for 1..32 PEs for 1..10
// time units (granularity 10; seconds here), rigid or moldable by the ceil model; one instance
// per seed, as one instance says little of another. The target: sparse-lp-hybrid under 10 s at
// its defaults; LTF is the baseline in the same run.
resched::OfflineProblem ChretienProblem(bool moldable, std::uint64_t seed) {
  constexpr int kJobs = 64;
  std::mt19937_64 rng(seed);
  resched::OfflineProblem problem;
  problem.free = resched::Timeline(128);
  for (int i = 0; i < kJobs; ++i) {
    const int req = 1 + static_cast<int>(rng() % 32);
    const Duration time = (1 + static_cast<Duration>(rng() % 10)) * kMicrosPerSecond;
    problem.jobs.push_back({absl::StrCat("j", i),
                            moldable ? resched::RuntimeModel(resched::CeilModel{req, time})
                                     : resched::RuntimeModel(resched::RigidModel{req, time}),
                            1});
  }
  return problem;
}

template <class Planner>
void RunChretien(benchmark::State& state, const Planner& planner) {
  const resched::OfflineProblem problem =
      ChretienProblem(state.range(0) != 0, static_cast<std::uint64_t>(state.range(1)));
  resched::Time makespan = 0;
  double out_of_time = 0;
  for (auto _ : state) {
    auto plan = planner->Plan(problem, {});
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    makespan = 0;
    for (const resched::Allocation& a : plan->allocations) makespan = std::max(makespan, a.end);
    const auto it = plan->statistics.find(resched::kSparseLpOutOfTime);
    out_of_time = it == plan->statistics.end() ? 0 : it->second;
  }
  state.counters["makespan_s"] = static_cast<double>(makespan) / kMicrosPerSecond;
  state.counters["out_of_time"] = out_of_time;
}

void BM_ChretienLtf(benchmark::State& state) { RunChretien(state, resched::MakeLtfPlanner()); }

void BM_ChretienSparseLpHybrid(benchmark::State& state) {
  resched::SparseLpOptions options;  // the defaults, as Replan runs it
  options.hybrid = true;
  RunChretien(state, resched::MakeSparseLpPlanner(options));
}

// What a Replan call computes besides the gRPC around it, on a conservative-backfilling cluster
// of 200 processors whose 400 queued jobs are the problem above: the planner, the objective's
// lower bounds and the trial of the plan on a copy (ProposeReplan), under the objective the
// planner defaults to (bicriteria: BICRITERIA, both bounds). The target: 50 ms for bicriteria.
std::unique_ptr<resched::ClusterPlan> QueuedCluster() {
  const resched::ClusterSpec spec{
      "bench", {{"", 200, 1.0}}, resched::ClockKind::kSimulated, "conservative", {}};
  std::unique_ptr<resched::ClusterPlan> plan = *resched::ClusterPlan::Create(spec, {}, 0);
  for (const resched::OfflineJob& job : Problem(0).jobs) {
    resched::Job submitted;
    submitted.model = job.model;
    submitted.weight = job.weight;
    (void)plan->Submit(std::move(submitted));
  }
  return plan;
}

void BM_ProposeReplan(benchmark::State& state, const char* planner_name,
                      resched::ReplanObjective objective) {
  const std::unique_ptr<resched::ClusterPlan> plan = QueuedCluster();
  const auto planner = *resched::MakeOfflinePlanner(planner_name, {});
  for (auto _ : state) {
    benchmark::DoNotOptimize(resched::ProposeReplan(*plan, *planner, objective, {}));
  }
  state.counters["queued"] = plan->queued_count();
}
BENCHMARK_CAPTURE(BM_ProposeReplan, bicriteria, "bicriteria", resched::ReplanObjective::kBicriteria)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ProposeReplan, mrt, "mrt", resched::ReplanObjective::kMakespan)
    ->Unit(benchmark::kMillisecond);

// Argument: reservations on the timeline (0: the paper's empty machine).
BENCHMARK(BM_Mrt)->Arg(0)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Bicriteria)->Arg(0)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListSaf)->Arg(0)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WeightedCompletionLowerBound)->Arg(0)->Arg(1000)->Unit(benchmark::kMillisecond);
// Arguments: moldable (0 rigid, 1 ceil model), the instance's seed.
BENCHMARK(BM_ChretienLtf)->ArgsProduct({{0, 1}, {5, 6, 7}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChretienSparseLpHybrid)
    ->ArgsProduct({{0, 1}, {5, 6, 7}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
