// ClusterPlan::Submit alone (no gRPC), per online policy and job kind, on a 64-processor
// SIMULATED cluster holding Q queued jobs (issue 12 §1: <= 5 µs rigid, <= 20 µs moldable at
// 10k queued). The queue is filled with the mix of submit_bench (half rigid, half Amdahl, 1 to
// 32 processors, 1 minute to 2 hours, all released at 0), then jobs of one kind are submitted
// (2,000, or 200 below), each timed alone: p50, p99 and mean in µs, and the queue length at the
// end. Arguments: Q, the jobs measured, and the seconds the clock moves before each of them (0, or
// 60 so that jobs start and end in between as on a live cluster). The
// baseline in the same run is Q = 0 (an empty cluster).
//
// Policies that re-plan the whole queue at every decision run at Q = 0 and 1,000, with 200 jobs
// measured: dasedf, dbos, iterative and bicriteria-batch (the papers' algorithms re-plan by
// design), easy (its estimates for every waiting job are re-planned at each event) and split
// (each part's queue likewise). So do fcfs and conservative on two groups of different speeds
// ("@two-speeds": 48 processors at speed 1 and 16 at speed 2), where each submission tries the
// job in both groups (core/online/grouped_policy.cc), plus Q = 10,000. docs/timeline.md,
// "SubmitJob at any backlog", has the figures.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/job_mix.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/plan/cluster_plan.h"

namespace {

using resched::Job;
using resched::bench::JobKind;
using resched::bench::RandomJob;

// One pool of 64 processors, or two groups of different speeds with as many.
const std::vector<resched::ProcessorGroup> kOnePool = {{"", 64, 1.0}};
const std::vector<resched::ProcessorGroup> kTwoSpeeds = {{"slow", 48, 1.0}, {"fast", 16, 2.0}};

void SubmitOnBacklog(benchmark::State& state, const std::string& policy, JobKind kind,
                     const std::vector<resched::ProcessorGroup>& groups) {
  const int queued = static_cast<int>(state.range(0));
  const int measured = static_cast<int>(state.range(1));
  // Seconds the clock moves before each measured submission (not timed): jobs start and end
  // between submissions, as on a live cluster.
  const resched::Duration clock_step = state.range(2) * resched::kMicrosPerSecond;
  const resched::ClusterSpec spec{"bench", groups, resched::ClockKind::kSimulated, policy, {}};
  std::vector<double> micros;
  std::size_t queue_at_end = 0;
  for (auto _ : state) {
    auto plan = *resched::ClusterPlan::Create(spec, {}, 0);
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

void Register(const std::string& policy, bool replans_whole_queue, bool two_speeds = false) {
  const std::string name = two_speeds ? policy + "@two-speeds" : policy;
  for (const auto& [label, kind] :
       {std::pair{"rigid", JobKind::kRigid}, std::pair{"moldable", JobKind::kMoldable}}) {
    auto* b = benchmark::RegisterBenchmark(
        ("BM_PlanSubmit/" + name + "/" + label).c_str(),
        [policy, kind = kind, two_speeds](benchmark::State& state) {
          SubmitOnBacklog(state, policy, kind, two_speeds ? kTwoSpeeds : kOnePool);
        });
    if (replans_whole_queue) {
      b->Args({0, 200, 0})->Args({1'000, 200, 0});
      if (two_speeds) b->Args({10'000, 200, 0});
    } else {
      b->Args({0, 2'000, 0})->Args({10'000, 2'000, 0})->Args({10'000, 2'000, 60});
    }
    b->Iterations(1)->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* policy : {"fcfs", "conservative"}) Register(policy, false);
  for (const char* policy : {"easy", "split", "dasedf", "dbos", "iterative", "bicriteria-batch"}) {
    Register(policy, true);
  }
  for (const char* policy : {"fcfs", "conservative"}) Register(policy, true, /*two_speeds=*/true);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
