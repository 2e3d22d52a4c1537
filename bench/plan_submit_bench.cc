// ClusterPlan::Submit alone (no gRPC), per online policy and job kind, on a 64-processor
// SIMULATED cluster holding Q queued jobs (targets: <= 5 µs rigid, <= 20 µs moldable at
// 10k queued). The queue is filled with the mix of submit_bench (half rigid, half Amdahl, 1 to
// 32 processors, 1 minute to 2 hours, all released at 0), then jobs of one kind are submitted
// (2,000, or 200 below), each timed alone: p50, p99 and mean in µs, and the queue length at the
// end. Arguments: Q, the jobs measured, and the seconds the clock moves before each of them (0, or
// 60 so that jobs start and end in between as on a live cluster). The
// baseline in the same run is Q = 0 (an empty cluster).
//
// Policies that re-plan the whole queue at every decision run at Q = 0 and 1,000, with 200 jobs
// measured: dasedf, dbos, iterative and bicriteria-batch (the papers' algorithms re-plan by
// design).
//
// easy decides a new job alone where nothing changed since its last pass (core/online/easy.cc)
// and runs as fcfs does. The baseline in the same run is "easy-pass": every decision passes over
// the whole queue, at Q = 0 and 1,000 with 200 jobs.
//
// split (Split(2) with FCFS in each part) places a new job on its part's kept timeline
// (core/online/part_views.h) and runs as fcfs does. The baseline in the same run is
// "split-rebuilt": each submission plans its part in full (no kept timelines), at
// Q = 0, 1,000 and 10,000 with 200 jobs and the clock still.
//
// fcfs, conservative and split also run on two groups of different speeds ("@two-speeds": 48
// processors at speed 1 and 16 at speed 2), where each submission tries the job in both groups
// (core/online/grouped_policy.cc; split: in its class's part of each group) on the kept
// timelines, as on one pool. The baseline in the same run is "@two-speeds-rebuilt": the same
// policy rebuilding each group's timeline at every submission (no kept ones), at
// Q = 0, 1,000 and 10,000 with 200 jobs and the clock still.
// docs/timeline.md, "SubmitJob at any backlog", has the figures.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/job_mix.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/online/partitioned_policy.h"
#include "core/online/policies.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"

namespace {

using resched::Job;
using resched::bench::JobKind;
using resched::bench::RandomJob;

// One pool of 64 processors, or two groups of different speeds with as many.
const std::vector<resched::ProcessorGroup> kOnePool = {{"", 64, 1.0}};
const std::vector<resched::ProcessorGroup> kTwoSpeeds = {{"slow", 48, 1.0}, {"fast", 16, 2.0}};

// The plan a benchmark fills and submits to.
using PlanFactory = std::function<std::unique_ptr<resched::ClusterPlan>()>;

PlanFactory PlanOn(const std::string& policy, const std::vector<resched::ProcessorGroup>& groups) {
  return [policy, groups] {
    const resched::ClusterSpec spec{"bench", groups, resched::ClockKind::kSimulated, policy, {}};
    return *resched::ClusterPlan::Create(spec, {}, 0);
  };
}

// The baseline of Split's kept part timelines: every submission plans its part in full (in each
// group, on several speeds).
PlanFactory RebuildingSplitPlanOn(const std::vector<resched::ProcessorGroup>& groups) {
  return [groups] {
    const resched::ClusterSpec spec{"bench", groups, resched::ClockKind::kSimulated, "split", {}};
    // The registry's defaults: rho = 2 over [1 s, 1 day].
    auto split = resched::MakeSplitPolicy(
        {.rho = 2, .p_min_s = 1, .p_max_s = 86400}, [] { return *resched::MakePolicy("fcfs", {}); },
        /*keep_part_timelines=*/false);
    if (!spec.homogeneous()) {
      dynamic_cast<resched::PartitionedPolicy&>(*split).RunInGroups(groups);
    }
    return *resched::ClusterPlan::CreateWithPolicy(spec, {}, 0, std::move(split));
  };
}

// The baseline of the groups' kept timelines: every submission rebuilds each group's timeline.
PlanFactory RebuildingGroupsPlanOn(const std::string& policy,
                                   const std::vector<resched::ProcessorGroup>& groups) {
  if (policy == "split") return RebuildingSplitPlanOn(groups);
  return [policy, groups] {
    const resched::ClusterSpec spec{"bench", groups, resched::ClockKind::kSimulated, policy, {}};
    auto grouped = resched::MakeGroupedPolicy(
        groups, [policy] { return *resched::MakePolicy(policy, {}); },
        /*keep_group_timelines=*/false);
    return *resched::ClusterPlan::CreateWithPolicy(spec, {}, 0, std::move(grouped));
  };
}

void SubmitOnBacklog(benchmark::State& state, const PlanFactory& make_plan, JobKind kind) {
  const int queued = static_cast<int>(state.range(0));
  const int measured = static_cast<int>(state.range(1));
  // Seconds the clock moves before each measured submission (not timed): jobs start and end
  // between submissions, as on a live cluster.
  const resched::Duration clock_step = state.range(2) * resched::kMicrosPerSecond;
  std::vector<double> micros;
  std::size_t queue_at_end = 0;
  for (auto _ : state) {
    auto plan = make_plan();
    std::mt19937_64 rng(42);
    for (int i = 0; i < queued; ++i) {
      if (!plan->Submit(RandomJob(rng, JobKind::kMixed)).ok()) std::abort();
    }
    std::vector<Job> jobs;
    jobs.reserve(static_cast<std::size_t>(measured));
    for (int i = 0; i < measured; ++i) jobs.push_back(RandomJob(rng, kind));
    micros.clear();
    for (Job& job : jobs) {
      if (clock_step > 0 && !plan->AdvanceTo(plan->now() + clock_step).ok()) std::abort();
      const auto start = std::chrono::steady_clock::now();
      const bool ok = plan->Submit(std::move(job)).ok();
      micros.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      if (!ok) std::abort();
    }
    queue_at_end = static_cast<std::size_t>(plan->queued_count());
  }
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) { return micros[static_cast<size_t>(q * (micros.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  // What a server's throughput depends on: the tail counts in full.
  double total = 0;
  for (double us : micros) total += us;
  state.counters["mean_us"] = total / static_cast<double>(micros.size());
  state.counters["queued_at_end"] = static_cast<double>(queue_at_end);
}

// How a benchmark's plans are made and how deep their queues go.
enum class Setting {
  kOnePool,            // one pool of 64: Q = 0 and 10,000, 2,000 jobs; the clock still or moving
  kOnePoolReplanning,  // one pool, a policy that re-plans its queue: Q = 0 and 1,000, 200 jobs
  kTwoSpeeds,          // two speeds, kept group timelines: as kOnePool
  kTwoSpeedsRebuilt,   // two speeds, rebuilt group timelines: Q = 0 to 10,000, 200 jobs
  kSplitRebuilt,       // one pool, split planning its part in full: as kTwoSpeedsRebuilt
  kEasyPass,           // one pool, easy passing over its whole queue: as kOnePoolReplanning
};

// The baseline of EASY deciding a new job alone: every decision passes over the whole queue.
PlanFactory PassingEasyPlan() {
  return [] {
    const resched::ClusterSpec spec{"bench", kOnePool, resched::ClockKind::kSimulated, "easy", {}};
    return *resched::ClusterPlan::CreateWithPolicy(
        spec, {}, 0, resched::MakeEasyPolicy(/*decide_new_jobs_alone=*/false));
  };
}

void Register(const std::string& policy, Setting setting) {
  const bool two_speeds = setting == Setting::kTwoSpeeds || setting == Setting::kTwoSpeedsRebuilt;
  const std::string name = policy + (setting == Setting::kTwoSpeeds          ? "@two-speeds"
                                     : setting == Setting::kTwoSpeedsRebuilt ? "@two-speeds-rebuilt"
                                     : setting == Setting::kSplitRebuilt     ? "-rebuilt"
                                     : setting == Setting::kEasyPass         ? "-pass"
                                                                             : "");
  const PlanFactory make_plan =
      setting == Setting::kTwoSpeedsRebuilt ? RebuildingGroupsPlanOn(policy, kTwoSpeeds)
      : setting == Setting::kSplitRebuilt   ? RebuildingSplitPlanOn(kOnePool)
      : setting == Setting::kEasyPass       ? PassingEasyPlan()
                                            : PlanOn(policy, two_speeds ? kTwoSpeeds : kOnePool);
  for (const auto& [label, kind] :
       {std::pair{"rigid", JobKind::kRigid}, std::pair{"moldable", JobKind::kMoldable}}) {
    auto* b = benchmark::RegisterBenchmark(("BM_PlanSubmit/" + name + "/" + label).c_str(),
                                           [make_plan, kind = kind](benchmark::State& state) {
                                             SubmitOnBacklog(state, make_plan, kind);
                                           });
    switch (setting) {
      case Setting::kOnePool:
      case Setting::kTwoSpeeds:
        b->Args({0, 2'000, 0})->Args({10'000, 2'000, 0})->Args({10'000, 2'000, 60});
        break;
      case Setting::kOnePoolReplanning:
      case Setting::kEasyPass:
        b->Args({0, 200, 0})->Args({1'000, 200, 0});
        break;
      case Setting::kTwoSpeedsRebuilt:
      case Setting::kSplitRebuilt:
        // Filling 10k queued jobs this way takes about 1.5 minutes: the clock stays.
        b->Args({0, 200, 0})->Args({1'000, 200, 0})->Args({10'000, 200, 0});
        break;
    }
    b->Iterations(1)->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* policy : {"fcfs", "conservative", "split", "easy"}) {
    Register(policy, Setting::kOnePool);
  }
  Register("split", Setting::kSplitRebuilt);
  Register("easy", Setting::kEasyPass);
  for (const char* policy : {"dasedf", "dbos", "iterative", "bicriteria-batch"}) {
    Register(policy, Setting::kOnePoolReplanning);
  }
  for (const char* policy : {"fcfs", "conservative", "split"}) {
    Register(policy, Setting::kTwoSpeeds);
    Register(policy, Setting::kTwoSpeedsRebuilt);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
