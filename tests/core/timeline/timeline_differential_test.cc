// Randomized differential test: every operation is applied to the timeline and to the
// brute-force reference, and every answer must agree.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "core/timeline/timeline.h"
#include "gtest/gtest.h"
#include "tests/core/timeline/timeline_reference.h"
#include "tests/testing/status.h"

namespace resched {
namespace {

using reference::ReferenceTimeline;

// Time scales: a small one makes many touching and coinciding breakpoints, a large one makes
// long sparse profiles.
struct Scale {
  Time horizon;
  Duration max_duration;
};
constexpr Scale kSmall{200, 30};
constexpr Scale kLarge{1'000'000'000, 60'000'000};

constexpr std::size_t kMaxLive = 300;  // keeps the O(n) reference fast

// What EarliestStart with a start limit answers, from the unbounded answer.
std::optional<Time> WithinLimit(std::optional<Time> start, Time limit) {
  return start && *start <= limit ? start : std::nullopt;
}

// RESCHED_TEST_SEED_OFFSET=N shifts every seed by N, to run more seeds locally.
std::uint64_t SeedOffset() {
  const char* env = std::getenv("RESCHED_TEST_SEED_OFFSET");
  return env == nullptr ? 0 : std::strtoull(env, nullptr, 10);
}

class Driver {
 public:
  Driver(std::uint64_t seed, int capacity, int run_index_height)
      : rng_(seed), timeline_(capacity), ref_(capacity) {
    timeline_.SetRunIndexHeightForTest(run_index_height);
  }

  void Step(int op) {
    if (op % 1000 == 0) scale_ = Uniform(0, 2) == 0 ? kLarge : kSmall;
    const int dice = ref_.size() > kMaxLive ? 30 : Uniform(0, 99);
    if (dice < 28) return DoAdd();
    if (dice < 30) return DoForceAdd();
    if (dice < 50) return DoRemove();
    if (dice < 57) return DoFreeAt();
    if (dice < 65) return DoMinFree();
    if (dice < 79) return DoEarliest();
    if (dice < 93) return DoLatest();
    if (dice < 97) return DoSteps();
    return DoCheck();
  }

 private:
  std::int64_t Uniform(std::int64_t lo, std::int64_t hi) {  // inclusive
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  // An id the timeline never handed out: near the issued ones (a neighbouring slot or
  // generation), or anything, zero and negative ids included.
  ReservationId NeverIssued() {
    for (;;) {
      ReservationId id;
      switch (Uniform(0, 3)) {
        case 0:
          id = Uniform(std::numeric_limits<std::int64_t>::min(), 0);
          break;
        case 1:
          id = Uniform(1, std::numeric_limits<std::int64_t>::max());
          break;
        default:
          id = (Uniform(0, 3) << 32) + Uniform(-1, 40);
      }
      if (!issued_.contains(id)) return id;
    }
  }
  Time RandomTime() { return Uniform(-scale_.max_duration, scale_.horizon); }
  Duration RandomDuration() { return Uniform(1, scale_.max_duration); }
  // Mostly narrow requests, sometimes up to the whole cluster.
  int RandomK() {
    const int cap = ref_.capacity();
    return static_cast<int>(Uniform(0, 1) ? Uniform(1, std::max(1, cap / 4)) : Uniform(1, cap));
  }
  // Query widths also probe 0, the capacity, above it and the invalid -1.
  int QueryK() {
    const int dice = static_cast<int>(Uniform(0, 19));
    if (dice == 0) return 0;
    if (dice == 1) return ref_.capacity() + 1;
    if (dice == 2) return -1;
    if (dice == 3) return ref_.capacity();
    return RandomK();
  }
  Duration QueryDuration() {
    const int dice = static_cast<int>(Uniform(0, 19));
    if (dice == 0) return 0;
    if (dice == 1) return -1;
    return Uniform(1, 2 * scale_.max_duration);
  }

  std::vector<TimelineStep> AllSteps() const {
    std::vector<TimelineStep> steps;
    timeline_.ForEachStep(kTimeMin, kTimeMax, [&](const TimelineStep& s) { steps.push_back(s); });
    return steps;
  }

  void DoAdd() {
    const Time start = RandomTime();
    const Time end = start + RandomDuration();
    const int k = RandomK();
    const bool fits = ref_.MinFree(start, end) >= k;
    const std::vector<TimelineStep> before = fits ? std::vector<TimelineStep>{} : AllSteps();
    const std::size_t breakpoints = timeline_.breakpoint_count();
    auto id = timeline_.Add(start, end, k);
    if (!fits) {
      ASSERT_EQ(id.status().code(), absl::StatusCode::kResourceExhausted) << id.status();
      ASSERT_EQ(timeline_.reservation_count(), ref_.size());
      ASSERT_EQ(timeline_.breakpoint_count(), breakpoints);
      ASSERT_EQ(AllSteps(), before);
      return;
    }
    ASSERT_OK(id);
    Record(*id, start, end, k);
  }

  void DoForceAdd() {
    const Time start = RandomTime();
    const Time end = start + RandomDuration();
    const int k = RandomK();
    auto id = timeline_.ForceAdd(start, end, k);
    ASSERT_OK(id);
    Record(*id, start, end, k);
  }

  void Record(ReservationId id, Time start, Time end, int k) {
    ASSERT_GT(id, 0);
    ASSERT_TRUE(issued_.insert(id).second) << "id " << id << " handed out twice";
    ref_.Add(id, start, end, k);
    live_.push_back(id);
    ASSERT_EQ(timeline_.reservation_count(), ref_.size());
  }

  void DoRemove() {
    if (live_.empty() || Uniform(0, 6) == 0) {
      // Removed before, or never issued.
      const ReservationId id = removed_.empty() || Uniform(0, 1)
                                   ? NeverIssued()
                                   : removed_[Uniform(0, removed_.size() - 1)];
      ASSERT_EQ(timeline_.Remove(id).code(), absl::StatusCode::kNotFound);
      return;
    }
    const std::size_t i = Uniform(0, live_.size() - 1);
    const ReservationId id = live_[i];
    live_[i] = live_.back();
    live_.pop_back();
    const auto rec = timeline_.Get(id);
    ASSERT_TRUE(rec.has_value());
    const auto& want = ref_.reservations().at(id);
    ASSERT_EQ(rec->start, want.start);
    ASSERT_EQ(rec->end, want.end);
    ASSERT_EQ(rec->k, want.k);
    ASSERT_OK(timeline_.Remove(id));
    ASSERT_FALSE(timeline_.Get(id).has_value());
    ref_.Remove(id);
    removed_.push_back(id);
    ASSERT_EQ(timeline_.reservation_count(), ref_.size());
  }

  void DoFreeAt() {
    const Time t = RandomTime();
    ASSERT_EQ(timeline_.FreeAt(t), ref_.FreeBySum(t)) << "t=" << t;
  }

  void DoMinFree() {
    const Time start = RandomTime();
    const Time end = Uniform(0, 9) == 0 ? start - Uniform(0, 2) : start + RandomDuration();
    ASSERT_EQ(timeline_.MinFree(start, end), ref_.MinFree(start, end))
        << "[" << start << ", " << end << ")";
  }

  void DoEarliest() {
    const Time t0 = RandomTime();
    const Duration d = QueryDuration();
    const int k = QueryK();
    const auto expected = ref_.EarliestStart(t0, d, k);
    ASSERT_EQ(timeline_.EarliestStart(t0, d, k), expected)
        << "t0=" << t0 << " d=" << d << " k=" << k;
    // Bounded: the same start when it is within the limit, none otherwise; limits around the
    // answer and anywhere.
    const Time limit = expected && Uniform(0, 1) == 0 ? *expected + Uniform(-2, 1)
                                                      : t0 + Uniform(-1, 4 * scale_.max_duration);
    ASSERT_EQ(timeline_.EarliestStart(t0, d, k, limit), WithinLimit(expected, limit))
        << "t0=" << t0 << " d=" << d << " k=" << k << " limit=" << limit;
  }

  void DoLatest() {
    const Time t0 = RandomTime();
    const Time deadline = t0 + Uniform(-scale_.max_duration, 4 * scale_.max_duration);
    const Duration d = QueryDuration();
    const int k = QueryK();
    ASSERT_EQ(timeline_.LatestStart(t0, deadline, d, k), ref_.LatestStart(t0, deadline, d, k))
        << "t0=" << t0 << " deadline=" << deadline << " d=" << d << " k=" << k;
  }

  void DoSteps() {
    const Time from = RandomTime();
    const Time to = Uniform(0, 9) == 0 ? from : from + Uniform(1, 3 * scale_.max_duration);
    std::vector<TimelineStep> steps;
    timeline_.ForEachStep(from, to, [&](const TimelineStep& s) { steps.push_back(s); });
    // Equal to the reference's maximal steps implies: clipped, contiguous, in order.
    ASSERT_EQ(steps, ref_.Steps(from, to)) << "[" << from << ", " << to << ")";
  }

  void DoCheck() {
    ASSERT_OK(timeline_.CheckInvariants());
    const Timeline copy = timeline_.Copy();
    ASSERT_OK(copy.CheckInvariants());
  }

  std::mt19937_64 rng_;
  Scale scale_ = kSmall;
  Timeline timeline_;
  ReferenceTimeline ref_;
  std::vector<ReservationId> live_;
  std::vector<ReservationId> removed_;
  absl::flat_hash_set<ReservationId> issued_;
};

TEST(TimelineDifferentialTest, MatchesReference) {
  constexpr int kOpsPerSeed = 25'000;
  const std::uint64_t seeds[] = {1, 2, 3, 20240607, 0xdeadbeef};
  const int capacities[] = {16, 1, 100, 4, 1024};
  // Run summaries kept throughout (0), from the first inner node (1), or from height 2 and
  // dropped at a single leaf (2); the default height, which these small trees never reach,
  // checks the plain walk.
  const int run_index_heights[] = {0, 2, Timeline::kRunIndexHeight, 1, 2};
  for (int s = 0; s < 5; ++s) {
    Driver driver(seeds[s] + SeedOffset(), capacities[s], run_index_heights[s]);
    for (int op = 0; op < kOpsPerSeed; ++op) {
      SCOPED_TRACE(absl::StrFormat("seed=%d capacity=%d op=%d", seeds[s], capacities[s], op));
      driver.Step(op);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Wide requests on busy profiles: many short reservations leave many free gaps that are too
// short or too narrow for a request close to the capacity, so searches must cross (or skip)
// long stretches of near misses. Long durations make most queries fail or land far away.
TEST(TimelineDifferentialTest, WideRequestsOnBusyProfiles) {
  struct Case {
    std::uint64_t seed;
    int capacity;
  };
  for (const Case c :
       {Case{11, 64}, Case{12, 1024}, Case{13, 7}, Case{14, 1000}, Case{15, 1024}, Case{16, 64}}) {
    std::mt19937_64 rng(c.seed + SeedOffset());
    auto uniform = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    Timeline timeline(c.capacity);
    // The last two cases search with the plain walk, the others with run summaries.
    if (c.seed < 15) timeline.SetRunIndexHeightForTest(0);
    ReferenceTimeline ref(c.capacity);
    std::vector<ReservationId> live;
    const Time horizon = 20'000;
    for (int op = 0; op < 6'000; ++op) {
      SCOPED_TRACE(absl::StrFormat("seed=%d capacity=%d op=%d", c.seed, c.capacity, op));
      const int dice = static_cast<int>(uniform(0, 99));
      if (dice < 35 || live.size() < 150) {
        // Short, mostly narrow bookings, sometimes wide ones.
        const Time start = uniform(0, horizon);
        const Time end = start + uniform(1, 120);
        const int k = static_cast<int>(uniform(0, 3) ? uniform(1, std::max(1, c.capacity / 8))
                                                     : uniform(1, c.capacity));
        const bool force = uniform(0, 49) == 0;
        auto id = force ? timeline.ForceAdd(start, end, k) : timeline.Add(start, end, k);
        if (!force && ref.MinFree(start, end) < k) {
          ASSERT_FALSE(id.ok());
          continue;
        }
        ASSERT_OK(id);
        ref.Add(*id, start, end, k);
        live.push_back(*id);
      } else if (dice < 50 && live.size() > 250) {
        const std::size_t i = uniform(0, live.size() - 1);
        ASSERT_OK(timeline.Remove(live[i]));
        ref.Remove(live[i]);
        live[i] = live.back();
        live.pop_back();
      } else if (dice < 75) {
        const Time t0 = uniform(-200, horizon);
        const Duration d = uniform(1, uniform(0, 3) ? 200 : 3'000);
        const int k = static_cast<int>(c.capacity - uniform(0, std::max(1, c.capacity / 4)));
        const auto expected = ref.EarliestStart(t0, d, k);
        ASSERT_EQ(timeline.EarliestStart(t0, d, k), expected)
            << "t0=" << t0 << " d=" << d << " k=" << k;
        const Time limit = t0 + uniform(0, horizon);
        ASSERT_EQ(timeline.EarliestStart(t0, d, k, limit), WithinLimit(expected, limit))
            << "t0=" << t0 << " d=" << d << " k=" << k << " limit=" << limit;
      } else if (dice < 99) {
        const Time t0 = uniform(-200, horizon);
        const Time deadline = t0 + uniform(0, horizon);
        const Duration d = uniform(1, uniform(0, 3) ? 200 : 3'000);
        const int k = static_cast<int>(c.capacity - uniform(0, std::max(1, c.capacity / 4)));
        ASSERT_EQ(timeline.LatestStart(t0, deadline, d, k), ref.LatestStart(t0, deadline, d, k))
            << "t0=" << t0 << " deadline=" << deadline << " d=" << d << " k=" << k;
      } else {
        ASSERT_OK(timeline.CheckInvariants());
      }
    }
  }
}

// The profile of a set of reservations as sorted steps (key, free from key on), and the first
// fitting start found by scanning it: an independent check for trees too big for the
// quadratic reference.
std::vector<std::pair<Time, int>> Profile(const std::vector<Allocation>& live, int capacity) {
  std::vector<std::pair<Time, int>> events;
  for (const Allocation& r : live) {
    events.emplace_back(r.start, -r.k);
    events.emplace_back(r.end, r.k);
  }
  std::sort(events.begin(), events.end());
  std::vector<std::pair<Time, int>> steps = {{std::numeric_limits<Time>::min(), capacity}};
  for (const auto& [key, change] : events) {
    if (steps.back().first == key) {
      steps.back().second += change;
    } else {
      steps.emplace_back(key, steps.back().second + change);
    }
  }
  return steps;
}

std::optional<Time> ScanEarliest(const std::vector<std::pair<Time, int>>& steps, Time t0,
                                 Duration d, int k) {
  // The step containing t0, then forward; cand is the start of the current free run.
  auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(t0, INT_MAX));
  std::optional<Time> cand;
  if (std::prev(it)->second >= k) cand = t0;
  for (; it != steps.end(); ++it) {
    if (cand && it->first - *cand >= d) return cand;
    if (it->second < k) {
      cand.reset();
    } else if (!cand) {
      cand = it->first;
    }
  }
  return cand;  // the last step runs forever
}

// The latest fitting start by the same scan: the latest run of free >= k, cut at the deadline,
// that still holds d after t0.
std::optional<Time> ScanLatest(const std::vector<std::pair<Time, int>>& steps, Time t0,
                               Time deadline, Duration d, int k) {
  std::optional<Time> best;
  for (std::size_t i = 0; i < steps.size();) {
    if (steps[i].second < k) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < steps.size() && steps[j].second >= k) ++j;
    const Time run_start = steps[i].first;
    const Time run_end = j < steps.size() ? steps[j].first : std::numeric_limits<Time>::max();
    const Time end = std::min(run_end, deadline);
    if (end - d >= std::max(run_start, t0)) best = end - d;  // later runs overwrite
    i = j;
  }
  return best;
}

// Thousands of reservations make a tree of height 3, where the searches skip subtrees three
// levels up and cross between them; the reference tests keep trees small. Wide requests on
// a half-loaded profile have mixed subtrees to cross. Seed 21 keeps run summaries from the
// start, seed 22 from height 3 (built when the tree gets there), then drops and rebuilds them,
// seed 23 walks without them.
TEST(TimelineDifferentialTest, DeepTreesMatchAScan) {
  for (const std::uint64_t seed : {21, 22, 23}) {
    std::mt19937_64 rng(seed + SeedOffset());
    auto uniform = [&](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    constexpr int kCapacity = 1024;
    const Time horizon = 4'000'000;
    Timeline timeline(kCapacity);
    timeline.SetRunIndexHeightForTest(seed == 21 ? 0 : seed == 22 ? 3 : Timeline::kRunIndexHeight);
    std::vector<ReservationId> ids;
    std::vector<Allocation> live;
    for (int round = 0; round < 12; ++round) {
      SCOPED_TRACE(absl::StrFormat("seed=%d round=%d", seed, round));
      if (seed == 22 && round == 6) timeline.SetRunIndexHeightForTest(Timeline::kRunIndexHeight);
      if (seed == 22 && round == 9) timeline.SetRunIndexHeightForTest(2);
      // Grow to about 6000 reservations, then churn.
      for (int op = 0; op < 1000; ++op) {
        if (live.size() > 5000 && uniform(0, 1) == 0) {
          const std::size_t i = uniform(0, live.size() - 1);
          ASSERT_OK(timeline.Remove(ids[i]));
          ids[i] = ids.back();
          ids.pop_back();
          live[i] = live.back();
          live.pop_back();
          continue;
        }
        const Time start = uniform(0, horizon);
        const Time end = start + uniform(10, 8'000);
        const int k = static_cast<int>(uniform(0, 9) ? uniform(1, 64) : uniform(65, kCapacity));
        if (auto id = timeline.Add(start, end, k); id.ok()) {
          ids.push_back(*id);
          live.push_back({k, start, end});
        }
      }
      ASSERT_OK(timeline.CheckInvariants());
      const auto steps = Profile(live, kCapacity);
      for (int q = 0; q < 300; ++q) {
        const Time t0 = uniform(-100, horizon);
        const Duration d = uniform(1, uniform(0, 1) ? 500 : 50'000);
        const int k = static_cast<int>(uniform(0, 2) ? uniform(300, kCapacity) : uniform(1, 300));
        const auto expected = ScanEarliest(steps, t0, d, k);
        ASSERT_EQ(timeline.EarliestStart(t0, d, k), expected)
            << "t0=" << t0 << " d=" << d << " k=" << k;
        const Time limit = t0 + uniform(0, 200'000);
        ASSERT_EQ(timeline.EarliestStart(t0, d, k, limit), WithinLimit(expected, limit))
            << "t0=" << t0 << " d=" << d << " k=" << k << " limit=" << limit;
        const Time deadline = t0 + uniform(0, 200'000);
        ASSERT_EQ(timeline.LatestStart(t0, deadline, d, k), ScanLatest(steps, t0, deadline, d, k))
            << "t0=" << t0 << " deadline=" << deadline << " d=" << d << " k=" << k;
      }
    }
  }
}

}  // namespace
}  // namespace resched
