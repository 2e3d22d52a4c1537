// Processor rows (server/app/processor_rows.h) on a 1,024-processor cluster of 8,000 jobs
// packed by conservative backfilling, as the web view keeps them: BM_PlaceAndRemove, a new job
// placed where the plan would start it (often in a hole, early) and taken out again; and the
// search for the rows free over such a job's span, row by row (each row's spans looked up, the
// baseline) against by block of 64 rows (RowOccupancy), in the same run. The Cold variants
// evict the caches before each run, as the server's other work between two submissions does,
// and time the run alone (manual time).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/strings/str_cat.h"
#include "core/timeline/timeline.h"
#include "server/app/processor_rows.h"
#include "server/app/row_occupancy.h"

namespace {

using resched::Duration;
using resched::Time;
using resched::Timeline;
using resched::server::ProcessorRows;
using resched::server::RowOccupancy;

constexpr int kProcessors = 1024;
constexpr int kJobs = 8000;

// A job as a queue of them has it: mostly narrow, some wide; minutes to an hour.
ProcessorRows::Span NextJob(Timeline& timeline, std::mt19937_64& rng) {
  const int k =
      rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 128) : 1 + static_cast<int>(rng() % 16);
  const Duration length = (60 + static_cast<Duration>(rng() % 3540)) * 1'000'000;
  const Time start = *timeline.EarliestStart(0, length, k);
  return {start, start + length, k, -1};
}

struct Packed {
  Timeline timeline{kProcessors};
  ProcessorRows rows{{kProcessors}};
  RowOccupancy occupancy{kProcessors};
  std::vector<absl::btree_map<Time, Time>> spans_per_row =
      std::vector<absl::btree_map<Time, Time>>(kProcessors);
  std::mt19937_64 rng{7};
  // New jobs where the plan would start them, found before timing: each run takes the next.
  std::vector<ProcessorRows::Span> probes;
  std::size_t next_probe = 0;
  // The same jobs started where the plan ends, as most new jobs of a busy cluster are.
  std::vector<ProcessorRows::Span> end_probes;
  std::size_t next_end_probe = 0;

  const ProcessorRows::Span& NextProbe() { return probes[next_probe++ % probes.size()]; }
  const ProcessorRows::Span& NextEndProbe() {
    return end_probes[next_end_probe++ % end_probes.size()];
  }

  Packed() {
    std::vector<ProcessorRows::Change> changes;
    for (int i = 0; i < kJobs; ++i) {
      const ProcessorRows::Span span = NextJob(timeline, rng);
      (void)timeline.Add(span.start, span.end, span.k);
      changes.emplace_back(absl::StrCat("j", i), span);
    }
    (void)rows.Update(changes);
    for (const auto& [key, span] : changes) {
      for (int id : rows.Ids(key)) {
        spans_per_row[id].emplace(span->start, span->end);
        occupancy.Add(id, span->start, span->end);
      }
    }
    for (int i = 0; i < 1000; ++i) probes.push_back(NextJob(timeline, rng));
    Time plan_end = 0;
    for (const auto& [key, span] : changes) plan_end = std::max(plan_end, span->end);
    for (const ProcessorRows::Span& probe : probes) {
      end_probes.push_back({plan_end, plan_end + probe.end - probe.start, probe.k, -1});
    }
  }
};

Packed& Fixture() {
  static Packed packed;
  return packed;
}

// Reads and writes more memory than the last-level cache holds.
void EvictCaches() {
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  static std::vector<char> sweep(kBytes);
  for (std::size_t i = 0; i < sweep.size(); i += 64) ++sweep[i];
  benchmark::ClobberMemory();
}

// Runs `run` after evicting the caches, and times it alone.
template <class Run>
void TimeCold(benchmark::State& state, const Run& run) {
  EvictCaches();
  const auto start = std::chrono::steady_clock::now();
  run();
  state.SetIterationTime(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

void BM_PlaceAndRemove(benchmark::State& state) {
  Packed& packed = Fixture();
  for (auto _ : state) {
    const ProcessorRows::Span& span = packed.NextProbe();
    benchmark::DoNotOptimize(packed.rows.Update({{"new", span}}));
    benchmark::DoNotOptimize(packed.rows.Update({{"new", std::nullopt}}));
  }
}
BENCHMARK(BM_PlaceAndRemove);

// New jobs from `next` placed with the caches evicted (the placement timed alone), each taken
// out again.
void PlaceCold(benchmark::State& state, const ProcessorRows::Span& (Packed::*next)()) {
  Packed& packed = Fixture();
  for (auto _ : state) {
    const ProcessorRows::Span& span = (packed.*next)();
    TimeCold(state, [&] { benchmark::DoNotOptimize(packed.rows.Update({{"new", span}})); });
    benchmark::DoNotOptimize(packed.rows.Update({{"new", std::nullopt}}));
  }
}

void BM_PlaceCold(benchmark::State& state) { PlaceCold(state, &Packed::NextProbe); }
BENCHMARK(BM_PlaceCold)->UseManualTime()->Iterations(300);

void BM_PlaceAtEndCold(benchmark::State& state) { PlaceCold(state, &Packed::NextEndProbe); }
BENCHMARK(BM_PlaceAtEndCold)->UseManualTime()->Iterations(300);

void BM_FreeRowsRowByRow(benchmark::State& state) {
  Packed& packed = Fixture();
  for (auto _ : state) {
    const ProcessorRows::Span& span = packed.NextProbe();
    int free = 0;
    for (const auto& spans : packed.spans_per_row) {
      auto after = spans.lower_bound(span.end);
      free += after == spans.begin() || std::prev(after)->second <= span.start ? 1 : 0;
    }
    benchmark::DoNotOptimize(free);
  }
}
BENCHMARK(BM_FreeRowsRowByRow);

void BM_FreeRowsByBlock(benchmark::State& state) {
  Packed& packed = Fixture();
  for (auto _ : state) {
    const ProcessorRows::Span& span = packed.NextProbe();
    benchmark::DoNotOptimize(packed.occupancy.BusyOver(0, kProcessors, span.start, span.end));
  }
}
BENCHMARK(BM_FreeRowsByBlock);

void BM_FreeRowsByBlockCold(benchmark::State& state) {
  Packed& packed = Fixture();
  for (auto _ : state) {
    const ProcessorRows::Span& span = packed.NextProbe();
    TimeCold(state, [&] {
      benchmark::DoNotOptimize(packed.occupancy.BusyOver(0, kProcessors, span.start, span.end));
    });
  }
}
BENCHMARK(BM_FreeRowsByBlockCold)->UseManualTime()->Iterations(300);

}  // namespace

BENCHMARK_MAIN();
