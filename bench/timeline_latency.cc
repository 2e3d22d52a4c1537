// Per-operation latency of the timeline: every operation timed on its own, so that the
// benchmark reports the median (and p90, p99, mean) of single operations, which the
// throughput benchmarks of timeline_bench.cc (a mean over a batch) cannot show. A wide
// search's cost has a long tail: a mean is dominated by the few requests that cross the
// whole horizon, a median is not, and both matter.
//
// Baselines for the 1M/1k ratios, measured in the same run: BM_LatencyFreeAt, one root-to-leaf
// path and nothing else (every operation does at least that), and BM_MemoryLatency, one
// dependent load from a buffer that fits in cache and from one as large as a 1M-reservation
// timeline's node pools (at 1M an operation reads at least one leaf from memory).
#include "bench/timeline_latency.h"

#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench/timeline_fixture.h"
#include "core/timeline/timeline.h"

namespace resched {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kSamples = 1 << 15;

double Nanoseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::nano>(to - from).count();
}

// The median cost of reading the clock twice, subtracted from every sample.
double ClockOverhead() {
  std::vector<double> samples(4096);
  for (double& s : samples) {
    const auto a = Clock::now();
    const auto b = Clock::now();
    s = Nanoseconds(a, b);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

void Report(benchmark::State& state, std::vector<double>& samples, const Fixture& f) {
  std::sort(samples.begin(), samples.end());
  auto at = [&](double q) { return samples[static_cast<std::size_t>(q * (samples.size() - 1))]; };
  state.counters["p50_ns"] = at(0.50);
  state.counters["p90_ns"] = at(0.90);
  state.counters["p99_ns"] = at(0.99);
  state.counters["mean_ns"] =
      std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  state.counters["breakpoints"] = static_cast<double>(f.timeline->breakpoint_count());
  state.counters["pool_MiB"] = static_cast<double>(f.timeline->node_pool_bytes()) / (1 << 20);
}

// Times `op(i)` for kSamples values of i; `undo(i)`, untimed, restores the timeline after it.
void Distribution(benchmark::State& state, const std::function<void(int)>& op,
                  const std::function<void(int)>& undo) {
  const Fixture& f = GetFixture(state.range(0));
  const double overhead = ClockOverhead();
  std::vector<double> samples(kSamples);
  for (auto _ : state) {
    for (int i = 0; i < kSamples; ++i) {
      const auto a = Clock::now();
      op(i);
      const auto b = Clock::now();
      samples[i] = std::max(0.0, Nanoseconds(a, b) - overhead);
      undo(i);
    }
  }
  Report(state, samples, f);
}

const Request& Pick(const std::vector<Request>& requests, int i) {
  return requests[static_cast<std::size_t>(i) & (requests.size() - 1)];
}

void BM_LatencyEarliestStart(benchmark::State& state, bool wide) {
  Fixture& f = GetFixture(state.range(0));
  const std::vector<Request>& requests = wide ? f.wide : f.narrow;
  Distribution(
      state,
      [&](int i) {
        const Request& r = Pick(requests, i);
        benchmark::DoNotOptimize(f.timeline->EarliestStart(r.start, r.d, r.k));
      },
      [](int) {});
}

// One root-to-leaf path and nothing else: the least any operation does.
void BM_LatencyFreeAt(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  Distribution(
      state, [&](int i) { benchmark::DoNotOptimize(f.timeline->FreeAt(Pick(f.narrow, i).start)); },
      [](int) {});
}

void BM_LatencyLatestStart(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  Distribution(
      state,
      [&](int i) {
        const Request& r = Pick(f.narrow, i);
        benchmark::DoNotOptimize(
            f.timeline->LatestStart(r.start, r.start + 5 * kMaxDuration, r.d, r.k));
      },
      [](int) {});
}

void BM_LatencyAdd(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  absl::StatusOr<ReservationId> added;
  Distribution(
      state,
      [&](int i) {
        const Request& r = Pick(f.requests, i);
        added = f.timeline->Add(r.start, r.start + r.d, r.k);
      },
      [&](int) {
        if (added.ok()) (void)f.timeline->Remove(*added);
      });
}

void BM_LatencyRemove(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::size_t> pick(0, f.ids.size() - 1);
  std::size_t chosen = 0;
  Distribution(
      state,
      [&](int) {
        chosen = pick(rng);
        (void)f.timeline->Remove(f.ids[chosen]);
      },
      [&](int) {
        // Putting back what was just removed always fits.
        const Allocation& p = f.params[chosen];
        f.ids[chosen] = f.timeline->Add(p.start, p.end, p.k).value();
      });
}

// Dependent loads in a random cyclic order over `mebibytes` of memory, one per cache line,
// advised as huge pages like the timeline's pools.
void BM_MemoryLatency(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  const std::size_t lines = bytes / 64;
  auto* buffer = static_cast<std::uint64_t*>(std::aligned_alloc(std::size_t{2} << 20, bytes));
  ::madvise(buffer, bytes, MADV_HUGEPAGE);
  std::vector<std::uint64_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
  for (std::size_t i = 0; i < lines; ++i) buffer[order[i] * 8] = order[(i + 1) % lines] * 8;
  constexpr int kLoads = 1 << 20;
  std::uint64_t at = 0;
  double elapsed_ns = 0;
  for (auto _ : state) {
    const auto from = Clock::now();
    for (int i = 0; i < kLoads; ++i) at = buffer[at];
    elapsed_ns += Nanoseconds(from, Clock::now());
    benchmark::DoNotOptimize(at);
  }
  state.counters["ns_per_load"] = elapsed_ns / kLoads / static_cast<double>(state.iterations());
  std::free(buffer);
}

}  // namespace

void RegisterLatencyBenchmarks() {
  const std::vector<std::int64_t> sizes = {1'000, 100'000, 1'000'000};
  auto sized = [&](benchmark::internal::Benchmark* b) {
    for (std::int64_t n : sizes) b->Arg(n);
    b->Iterations(1)->Repetitions(3)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
  };
  sized(benchmark::RegisterBenchmark("BM_LatencyFreeAt", BM_LatencyFreeAt));
  sized(benchmark::RegisterBenchmark("BM_LatencyEarliestStart", BM_LatencyEarliestStart, false));
  sized(benchmark::RegisterBenchmark("BM_LatencyEarliestStartWide", BM_LatencyEarliestStart, true));
  sized(benchmark::RegisterBenchmark("BM_LatencyLatestStart", BM_LatencyLatestStart));
  sized(benchmark::RegisterBenchmark("BM_LatencyAdd", BM_LatencyAdd));
  sized(benchmark::RegisterBenchmark("BM_LatencyRemove", BM_LatencyRemove));
  benchmark::RegisterBenchmark("BM_MemoryLatency", BM_MemoryLatency)
      ->Arg(1)
      ->Arg(4)
      ->Arg(16)
      ->Arg(64)
      ->Repetitions(3)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace resched
