// Memory per queued job and per reservation (target: 1M queued jobs across clusters fit in
// 2 GiB). Heap bytes in use (glibc mallinfo2: small blocks plus mmapped ones, which hold the
// timeline's huge-page pools) before and after, so vector slack counts as it does in the server.
//
// - BM_BytesPerQueuedJob: 10 clusters of 64 processors (SIMULATED, conservative backfilling),
//   100k queued jobs each (the server's default max_active_jobs_per_cluster), submit_bench's mix
//   of rigid and Amdahl jobs: 1M queued jobs in all. Counters: bytes_per_job, total_MiB. /0: one
//   pool; /1: two groups of different speeds (48 at speed 1, 16 at speed 2), whose kept group
//   timelines (core/online/part_views.h) hold every booking a second time.
// - BM_BytesPerReservation: one timeline of 1,024 processors, 1M reservations of 1 to 32
//   processors and 1 minute to 2 hours at random starts. Counter: bytes_per_reservation.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/job_mix.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/plan/cluster_plan.h"
#include "core/timeline/timeline.h"

namespace {

constexpr resched::Duration kS = resched::kMicrosPerSecond;

double HeapBytesInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

void BM_BytesPerQueuedJob(benchmark::State& state) {
  constexpr int kClusters = 10;
  constexpr int kJobsPerCluster = 100'000;
  const std::vector<resched::ProcessorGroup> groups =
      state.range(0) == 0
          ? std::vector<resched::ProcessorGroup>{{"", 64, 1.0}}
          : std::vector<resched::ProcessorGroup>{{"slow", 48, 1.0}, {"fast", 16, 2.0}};
  for (auto _ : state) {
    const double before = HeapBytesInUse();
    std::vector<std::unique_ptr<resched::ClusterPlan>> plans;
    std::mt19937_64 rng(42);
    for (int c = 0; c < kClusters; ++c) {
      const resched::ClusterSpec spec{
          absl::StrCat("c", c), groups, resched::ClockKind::kSimulated, "conservative", {}};
      plans.push_back(*resched::ClusterPlan::Create(spec, {}, 0));
      for (int i = 0; i < kJobsPerCluster; ++i) {
        if (!plans.back()->Submit(resched::bench::RandomJob(rng)).ok()) std::abort();
      }
    }
    const double bytes = HeapBytesInUse() - before;
    int queued = 0;
    for (const auto& plan : plans) queued += plan->queued_count();
    state.counters["queued_jobs"] = queued;
    state.counters["bytes_per_job"] = bytes / (kClusters * kJobsPerCluster);
    state.counters["total_MiB"] = bytes / (1 << 20);
  }
}
BENCHMARK(BM_BytesPerQueuedJob)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

void BM_BytesPerReservation(benchmark::State& state) {
  constexpr int kReservations = 1'000'000;
  // Starts spread over a horizon long enough that about 30 reservations overlap at a time.
  constexpr resched::Duration kHorizon = resched::Duration{36'000} * 3'600 * kS;
  for (auto _ : state) {
    const double before = HeapBytesInUse();
    resched::Timeline timeline(1024);
    std::mt19937_64 rng(7);
    int booked = 0;
    while (booked < kReservations) {
      const int k = 1 + static_cast<int>(rng() % 32);
      const resched::Duration d = (60 + static_cast<resched::Duration>(rng() % 7200)) * kS;
      const resched::Time start = static_cast<resched::Time>(rng() % kHorizon);
      if (timeline.Add(start, start + d, k).ok()) ++booked;
    }
    state.counters["bytes_per_reservation"] = (HeapBytesInUse() - before) / kReservations;
    state.counters["node_pool_bytes_per_reservation"] =
        static_cast<double>(timeline.node_pool_bytes()) / kReservations;
  }
}
BENCHMARK(BM_BytesPerReservation)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
