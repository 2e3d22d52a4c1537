// The timelines the timeline benchmarks run on (see timeline_fixture.h).
#include "bench/timeline_fixture.h"

#include <map>

namespace resched {
namespace {

// Mean width ~80 and mean duration ~5050: about 404k processor-microseconds per reservation.
// A horizon of 660 us per reservation gives a 60% average load on 1024 processors, so the
// profile looks the same at every size and some Adds fail where it is locally full.
constexpr Time kHorizonPerReservation = 660;

int WidthForDice(std::mt19937_64& rng, int dice) {
  if (dice < 70) return std::uniform_int_distribution<int>(1, 32)(rng);
  if (dice < 95) return std::uniform_int_distribution<int>(33, 256)(rng);
  return std::uniform_int_distribution<int>(257, kCapacity)(rng);
}
// The 95% of the mix up to 256 processors, and the 5% above.
int NarrowWidth(std::mt19937_64& rng) {
  return WidthForDice(rng, std::uniform_int_distribution<int>(0, 94)(rng));
}
int WideWidth(std::mt19937_64& rng) { return WidthForDice(rng, 95); }

}  // namespace

int RandomWidth(std::mt19937_64& rng) {
  return WidthForDice(rng, std::uniform_int_distribution<int>(0, 99)(rng));
}

Duration RandomDuration(std::mt19937_64& rng) {
  return std::uniform_int_distribution<Duration>(kMinDuration, kMaxDuration)(rng);
}

namespace {

// One T per size, built once and shared by every benchmark of the process.
template <typename T>
T& Cached(std::int64_t n, void (*build)(std::int64_t, T&)) {
  static std::map<std::int64_t, std::unique_ptr<T>> cache;
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<T>();
    build(n, *slot);
  }
  return *slot;
}

void BuildFixture(std::int64_t n, Fixture& f) {
  f.horizon = n * kHorizonPerReservation;
  f.timeline = std::make_unique<Timeline>(kCapacity);
  std::mt19937_64 rng(42 + n);
  std::uniform_int_distribution<Time> start(0, f.horizon);
  // Skip the Adds that do not fit; give up after 4n attempts (it never gets near that).
  for (std::int64_t attempt = 0; attempt < 4 * n && std::int64_t(f.ids.size()) < n; ++attempt) {
    const Time s = start(rng);
    const Time e = s + RandomDuration(rng);
    const int k = RandomWidth(rng);
    if (auto id = f.timeline->Add(s, e, k); id.ok()) {
      f.ids.push_back(*id);
      f.params.push_back({k, s, e});
    }
  }
  for (int i = 0; i < 1 << 14; ++i) {
    f.requests.push_back({start(rng), RandomDuration(rng), RandomWidth(rng)});
    f.narrow.push_back({start(rng), RandomDuration(rng), NarrowWidth(rng)});
    f.wide.push_back({start(rng), RandomDuration(rng), WideWidth(rng)});
    f.long_requests.push_back({start(rng),
                               std::uniform_int_distribution<Duration>(2, 20)(rng) * kMaxDuration,
                               RandomWidth(rng)});
  }
}

void BuildBacklog(std::int64_t n, Backlog& b) {
  constexpr int kProcessors = 64;
  constexpr Duration kMinute = 60'000'000;
  b.timeline = std::make_unique<Timeline>(kProcessors);
  std::mt19937_64 rng(7 + n);
  auto job = [&] {
    return Request{0, std::uniform_int_distribution<Duration>(1, 120)(rng) * kMinute,
                   std::uniform_int_distribution<int>(1, 32)(rng)};
  };
  for (std::int64_t i = 0; i < n; ++i) {
    const Request r = job();
    const Time start = *b.timeline->EarliestStart(0, r.d, r.k);
    (void)b.timeline->Add(start, start + r.d, r.k);
  }
  for (int i = 0; i < 1 << 10; ++i) b.requests.push_back(job());
}

}  // namespace

Fixture& GetFixture(std::int64_t n) { return Cached<Fixture>(n, BuildFixture); }

Backlog& GetBacklog(std::int64_t n) { return Cached<Backlog>(n, BuildBacklog); }

}  // namespace resched
