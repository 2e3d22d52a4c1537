// Micro-benchmarks of the reservation timeline (core/timeline) and a trace replayer.
//
//   timeline_bench [benchmark flags]
//       EarliestStart, LatestStart, Add, Remove and Add+Remove on timelines of 1k..1M
//       reservations (capacity 1024, profile density independent of the size).
//   timeline_bench --write-trace=FILE [--ops=N] [--seed=S] [--capacity=P]
//       writes a random trace (format below) and exits, so that other implementations can be
//       measured on the same sequence of operations.
//   timeline_bench --trace=FILE [benchmark flags]
//       replays FILE as BM_TraceReplay (fresh timeline per iteration) and prints a checksum of
//       the answers, comparable across implementations.
//
// Trace format, one operation per line, '#' starts a comment line:
//   capacity P                   optional, first operation line only (default 1024)
//   add START DUR K              Add(START, START + DUR, K)
//   remove ID                    Remove the reservation of the ID-th add line (0-based); a no-op
//                                if that add failed
//   earliest T0 DUR K            EarliestStart(T0, DUR, K)
//   latest T0 DEADLINE DUR K     LatestStart(T0, DEADLINE, DUR, K)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "bench/timeline_fixture.h"
#include "bench/timeline_latency.h"
#include "core/timeline/timeline.h"

namespace resched {
namespace {

void SetSizeCounters(benchmark::State& state, const Fixture& f) {
  state.counters["reservations"] = static_cast<double>(f.timeline->reservation_count());
  state.counters["breakpoints"] = static_cast<double>(f.timeline->breakpoint_count());
}

// Runs `search` over `requests` in turn on timeline `t`.
template <typename Search>
void Searches(benchmark::State& state, const Timeline& t, const std::vector<Request>& requests,
              Search search) {
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(search(t, requests[i++ & (requests.size() - 1)]));
  state.counters["breakpoints"] = static_cast<double>(t.breakpoint_count());
}

std::optional<Time> Earliest(const Timeline& t, const Request& r) {
  return t.EarliestStart(r.start, r.d, r.k);
}
// Latest start before a deadline 5 maximal reservation durations (or 5 request durations, if
// longer) after t0.
std::optional<Time> Latest(const Timeline& t, const Request& r) {
  return t.LatestStart(r.start, r.start + 5 * std::max(r.d, kMaxDuration), r.d, r.k);
}

// Searches from a random instant, with the widths of the mix up to 256 (95% of requests) or
// above 256 (a wide request often has to cross many blocked stretches, O(log n) each), or
// long (2-20 times the longest reservation, all widths: the searches that cross the most gaps
// too short for them).
template <auto kSearch>
void Search(benchmark::State& state, std::vector<Request> Fixture::*requests) {
  Fixture& f = GetFixture(state.range(0));
  Searches(state, *f.timeline, f.*requests, kSearch);
  SetSizeCounters(state, f);
}
void BM_EarliestStart(benchmark::State& state) { Search<Earliest>(state, &Fixture::narrow); }
void BM_EarliestStartWide(benchmark::State& state) { Search<Earliest>(state, &Fixture::wide); }
void BM_EarliestStartLong(benchmark::State& state) {
  Search<Earliest>(state, &Fixture::long_requests);
}
void BM_LatestStart(benchmark::State& state) { Search<Latest>(state, &Fixture::narrow); }
void BM_LatestStartWide(benchmark::State& state) { Search<Latest>(state, &Fixture::wide); }
void BM_LatestStartLong(benchmark::State& state) { Search<Latest>(state, &Fixture::long_requests); }

// Searches from the front of a packed backlog (timeline_fixture.h): the searches a submission
// makes on a busy cluster, which walk far and cross many small holes.
void BM_EarliestStartBacklog(benchmark::State& state) {
  const Backlog& b = GetBacklog(state.range(0));
  Searches(state, *b.timeline, b.requests, Earliest);
}

// One Add immediately undone: the cost of booking and releasing a request.
void BM_AddRemove(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  Timeline& t = *f.timeline;
  std::size_t i = 0;
  std::int64_t ok = 0;
  for (auto _ : state) {
    const Request& r = f.requests[i++ & (f.requests.size() - 1)];
    if (auto id = t.Add(r.start, r.start + r.d, r.k); id.ok()) {
      ++ok;
      (void)t.Remove(*id);
    }
  }
  state.counters["fit_ratio"] = static_cast<double>(ok) / static_cast<double>(state.iterations());
  SetSizeCounters(state, f);
}

// Add and Remove are timed separately, in batches of kBatch operations per iteration (manual
// time, per operation); the undoing half of each batch is not timed.
constexpr int kBatch = 64;
constexpr int kBatchIterations = 1500;

double Seconds(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}

void BM_Add(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  Timeline& t = *f.timeline;
  std::size_t i = 0;
  std::int64_t ok = 0;
  std::int64_t ops = 0;
  ReservationId added[kBatch];
  for (auto _ : state) {
    int n = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int b = 0; b < kBatch; ++b) {
      const Request& r = f.requests[i++ & (f.requests.size() - 1)];
      if (auto id = t.Add(r.start, r.start + r.d, r.k); id.ok()) added[n++] = *id;
    }
    state.SetIterationTime(Seconds(start) / kBatch);
    for (int b = 0; b < n; ++b) (void)t.Remove(added[b]);
    ok += n;
    ops += kBatch;
  }
  state.counters["fit_ratio"] = static_cast<double>(ok) / static_cast<double>(ops);
  SetSizeCounters(state, f);
}

void BM_Remove(benchmark::State& state) {
  Fixture& f = GetFixture(state.range(0));
  Timeline& t = *f.timeline;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::size_t> pick(0, f.ids.size() - 1);
  std::size_t chosen[kBatch];
  for (auto _ : state) {
    for (unsigned long& b : chosen) b = pick(rng);
    std::sort(chosen, chosen + kBatch);
    const int n = static_cast<int>(std::unique(chosen, chosen + kBatch) - chosen);
    const auto start = std::chrono::steady_clock::now();
    for (int b = 0; b < n; ++b) (void)t.Remove(f.ids[chosen[b]]);
    state.SetIterationTime(Seconds(start) / n);
    // Putting back a subset of a feasible set always fits.
    for (int b = 0; b < n; ++b) {
      const Allocation& p = f.params[chosen[b]];
      f.ids[chosen[b]] = t.Add(p.start, p.end, p.k).value();
    }
  }
  SetSizeCounters(state, f);
}

void RegisterMicroBenchmarks() {
  const std::vector<std::int64_t> sizes = {1'000, 10'000, 100'000, 1'000'000};
  auto sized = [&](benchmark::internal::Benchmark* b) {
    for (std::int64_t n : sizes) b->Arg(n);
    b->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
  };
  sized(benchmark::RegisterBenchmark("BM_EarliestStart", BM_EarliestStart)->MinTime(0.2));
  sized(benchmark::RegisterBenchmark("BM_EarliestStartWide", BM_EarliestStartWide)->MinTime(0.2));
  sized(benchmark::RegisterBenchmark("BM_EarliestStartLong", BM_EarliestStartLong)->MinTime(0.2));
  benchmark::RegisterBenchmark("BM_EarliestStartBacklog", BM_EarliestStartBacklog)
      ->Arg(1'000)
      ->Arg(10'000)
      ->MinTime(0.2)
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
  sized(benchmark::RegisterBenchmark("BM_LatestStart", BM_LatestStart)->MinTime(0.2));
  sized(benchmark::RegisterBenchmark("BM_LatestStartWide", BM_LatestStartWide)->MinTime(0.2));
  sized(benchmark::RegisterBenchmark("BM_LatestStartLong", BM_LatestStartLong)->MinTime(0.2));
  sized(benchmark::RegisterBenchmark("BM_AddRemove", BM_AddRemove)->MinTime(0.2));
  sized(benchmark::RegisterBenchmark("BM_Add", BM_Add)
            ->UseManualTime()
            ->Iterations(kBatchIterations));
  sized(benchmark::RegisterBenchmark("BM_Remove", BM_Remove)
            ->UseManualTime()
            ->Iterations(kBatchIterations));
}

// ---------------------------------------------------------------------------------------------
// Traces.

struct TraceOp {
  enum Kind { kAdd, kRemove, kEarliest, kLatest } kind;
  std::int64_t a = 0, b = 0, c = 0;  // add: start, dur; remove: id; earliest: t0, dur;
  int k = 0;                         // latest: t0, deadline, dur
};

struct Trace {
  int capacity = kCapacity;
  std::vector<TraceOp> ops;
  std::int64_t adds = 0;
};

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "timeline_bench: " << message << "\n";
  std::exit(2);
}

Trace ReadTrace(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail("cannot open trace " + path);
  Trace trace;
  std::string line;
  bool first = true;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    const std::vector<absl::string_view> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (words.empty() || words[0][0] == '#') continue;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    std::vector<std::int64_t> v(words.size() - 1);
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (!absl::SimpleAtoi(words[i], &v[i - 1])) {
        Fail(where + "not an integer: '" + std::string(words[i]) + "'");
      }
    }
    auto expect = [&](std::size_t n) {
      if (v.size() != n) {
        Fail(where + "'" + std::string(words[0]) + "' takes " + std::to_string(n) + " numbers");
      }
    };
    auto width = [&](std::int64_t k, std::int64_t lowest) {
      if (k < lowest || k > 1'000'000'000) Fail(where + "K out of range");
      return static_cast<int>(k);
    };
    const absl::string_view op = words[0];
    if (op == "capacity") {
      expect(1);
      if (!first) Fail(where + "capacity must come before every operation");
      trace.capacity = width(v[0], 0);
    } else if (op == "add") {
      expect(3);
      if (v[1] < 1) Fail(where + "DUR must be >= 1");
      trace.ops.push_back({TraceOp::kAdd, v[0], v[1], 0, width(v[2], 1)});
      ++trace.adds;
    } else if (op == "remove") {
      expect(1);
      if (v[0] < 0 || v[0] >= trace.adds) Fail(where + "ID must name an earlier add line");
      trace.ops.push_back({TraceOp::kRemove, v[0], 0, 0, 0});
    } else if (op == "earliest") {
      expect(3);
      trace.ops.push_back({TraceOp::kEarliest, v[0], v[1], 0, width(v[2], 0)});
    } else if (op == "latest") {
      expect(4);
      trace.ops.push_back({TraceOp::kLatest, v[0], v[1], v[2], width(v[3], 0)});
    } else {
      Fail(where + "unknown operation '" + std::string(op) + "'");
    }
    first = false;
  }
  return trace;
}

struct ReplayResult {
  std::int64_t added = 0, rejected = 0, removed = 0, missing = 0;
  std::uint64_t checksum = 0;  // over every answer, in order
};

ReplayResult Replay(const Trace& trace) {
  Timeline t(trace.capacity);
  std::vector<ReservationId> ids;
  ids.reserve(trace.adds);
  ReplayResult r;
  auto mix = [&](std::int64_t x) {
    r.checksum = (r.checksum ^ static_cast<std::uint64_t>(x)) * 0x100000001b3ULL;
  };
  for (const TraceOp& op : trace.ops) {
    switch (op.kind) {
      case TraceOp::kAdd:
        if (auto id = t.Add(op.a, op.a + op.b, op.k); id.ok()) {
          ids.push_back(*id);
          ++r.added;
          mix(1);
        } else {
          ids.push_back(-1);
          ++r.rejected;
          mix(0);
        }
        break;
      case TraceOp::kRemove:
        if (ids[op.a] >= 0 && t.Remove(ids[op.a]).ok()) {
          ++r.removed;
        } else {
          ++r.missing;
        }
        break;
      case TraceOp::kEarliest:
        mix(t.EarliestStart(op.a, op.b, op.k).value_or(-1));
        break;
      case TraceOp::kLatest:
        mix(t.LatestStart(op.a, op.b, op.c, op.k).value_or(-1));
        break;
    }
  }
  return r;
}

void RegisterTraceReplay(const std::string& path) {
  auto trace = std::make_shared<Trace>(ReadTrace(path));
  const ReplayResult once = Replay(*trace);
  std::printf(
      "trace %s: %zu ops, capacity %d; adds %lld accepted, %lld rejected; removes %lld done, "
      "%lld no-op; answer checksum %016llx\n",
      path.c_str(), trace->ops.size(), trace->capacity, static_cast<long long>(once.added),
      static_cast<long long>(once.rejected), static_cast<long long>(once.removed),
      static_cast<long long>(once.missing), static_cast<unsigned long long>(once.checksum));
  benchmark::RegisterBenchmark(
      "BM_TraceReplay",
      [trace](benchmark::State& state) {
        for (auto _ : state) benchmark::DoNotOptimize(Replay(*trace));
        state.counters["ops"] = static_cast<double>(trace->ops.size());
        state.counters["time_per_op"] = benchmark::Counter(
            static_cast<double>(trace->ops.size()),
            benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
      })
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(3)
      ->ReportAggregatesOnly(true);
}

// Random trace: 40% add, 25% remove of a live add, 20% earliest, 15% latest, over a horizon
// that keeps the load comparable to the micro-benchmarks.
void WriteTrace(const std::string& path, std::int64_t ops, std::uint64_t seed, int capacity) {
  std::ofstream out(path);
  if (!out) Fail("cannot write trace " + path);
  std::mt19937_64 rng(seed);
  const Time horizon = std::max<std::int64_t>(ops, 1) * 100;
  std::uniform_int_distribution<Time> when(0, horizon);
  auto width = [&] { return std::min(capacity, RandomWidth(rng)); };
  out << "# timeline_bench --write-trace ops=" << ops << " seed=" << seed << "\n";
  out << "capacity " << capacity << "\n";
  std::vector<std::int64_t> live;
  std::int64_t adds = 0;
  for (std::int64_t i = 0; i < ops; ++i) {
    const int dice = std::uniform_int_distribution<int>(0, 99)(rng);
    if (dice < 40 || (dice < 65 && live.empty())) {
      out << "add " << when(rng) << " " << RandomDuration(rng) << " " << width() << "\n";
      live.push_back(adds++);
    } else if (dice < 65) {
      const std::size_t j = std::uniform_int_distribution<std::size_t>(0, live.size() - 1)(rng);
      out << "remove " << live[j] << "\n";
      live[j] = live.back();
      live.pop_back();
    } else if (dice < 85) {
      out << "earliest " << when(rng) << " " << RandomDuration(rng) << " " << width() << "\n";
    } else {
      const Time t0 = when(rng);
      out << "latest " << t0 << " " << t0 + 5 * kMaxDuration << " " << RandomDuration(rng) << " "
          << width() << "\n";
    }
  }
  if (!out.flush()) Fail("cannot write trace " + path);
}

// Removes our flags from argv (before benchmark::Initialize sees them).
struct Flags {
  std::string trace, write_trace;
  std::int64_t ops = 1'000'000;
  std::uint64_t seed = 1;
  int capacity = kCapacity;
};

Flags ParseFlags(int& argc, char** argv) {
  Flags flags;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    auto value = [&](absl::string_view name) -> std::optional<absl::string_view> {
      if (arg.substr(0, name.size()) != name) return std::nullopt;
      return arg.substr(name.size());
    };
    auto number = [&](absl::string_view v, auto* out) {
      if (!absl::SimpleAtoi(v, out)) Fail("bad value in " + std::string(arg));
    };
    if (auto v = value("--trace=")) {
      flags.trace = std::string(*v);
    } else if (auto v = value("--write-trace=")) {
      flags.write_trace = std::string(*v);
    } else if (auto v = value("--ops=")) {
      number(*v, &flags.ops);
    } else if (auto v = value("--seed=")) {
      number(*v, &flags.seed);
    } else if (auto v = value("--capacity=")) {
      number(*v, &flags.capacity);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
  return flags;
}

}  // namespace
}  // namespace resched

int main(int argc, char** argv) {
  using namespace resched;
  const Flags flags = ParseFlags(argc, argv);
  if (!flags.write_trace.empty()) {
    if (flags.ops < 0 || flags.capacity < 1) Fail("--ops must be >= 0 and --capacity >= 1");
    WriteTrace(flags.write_trace, flags.ops, flags.seed, flags.capacity);
    return 0;
  }
  if (!flags.trace.empty()) {
    RegisterTraceReplay(flags.trace);
  } else {
    RegisterMicroBenchmarks();
    RegisterLatencyBenchmarks();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
